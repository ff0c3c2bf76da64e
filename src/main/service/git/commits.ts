/** Commit objects as git stores them, parsed without another process. */

export interface Signature {
  name: string;
  email: string;
  /** ISO-8601 in the signer's own offset, with milliseconds (`2024-05-01T10:00:00.000+02:00`), as GitLab shows it. */
  date: string;
  /** Seconds since the epoch. */
  time: number;
}

export interface Commit {
  id: string;
  tree: string;
  parents: string[];
  author: Signature;
  committer: Signature;
  /** The whole message, exactly as stored. */
  message: string;
}

/** `Name <email> 1700000000 +0100` */
function parseSignature(line: string): Signature {
  const m = /^(.*?) <([^>]*)> (-?\d+) ([+-])(\d{2})(\d{2})$/.exec(line);
  if (!m) return { name: line, email: '', date: new Date(0).toISOString(), time: 0 };
  const time = Number(m[3]);
  const offsetMin = (m[4] === '-' ? -1 : 1) * (Number(m[5]) * 60 + Number(m[6]));
  return { name: m[1], email: m[2], time, date: isoWithOffset(time, offsetMin) };
}

export function isoWithOffset(seconds: number, offsetMinutes: number): string {
  const local = new Date((seconds + offsetMinutes * 60) * 1000).toISOString().slice(0, 19);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}.000${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

export function parseCommit(id: string, raw: Buffer): Commit {
  const text = raw.toString('utf8');
  const split = text.indexOf('\n\n');
  const head = split < 0 ? text : text.slice(0, split);
  const message = split < 0 ? '' : text.slice(split + 2);
  const commit: Commit = { id, tree: '', parents: [], author: parseSignature(''), committer: parseSignature(''), message };
  for (const line of head.split('\n')) {
    if (line.startsWith(' ')) continue; // continuation of a multi-line header (gpgsig)
    const sp = line.indexOf(' ');
    const key = line.slice(0, sp);
    const value = line.slice(sp + 1);
    if (key === 'tree') commit.tree = value;
    else if (key === 'parent') commit.parents.push(value);
    else if (key === 'author') commit.author = parseSignature(value);
    else if (key === 'committer') commit.committer = parseSignature(value);
  }
  return commit;
}

/** The first line of the message (GitLab's `title`, which shortens very long ones). */
export function commitTitle(message: string): string {
  const first = message.replace(/^\s+/, '').split('\n')[0]?.trimEnd() ?? '';
  if (first.length <= 100) return first;
  const cut = first.slice(0, 80);
  const sp = cut.lastIndexOf(' ');
  return `${sp > 0 ? cut.slice(0, sp) : cut}…`;
}

/** `Key: value` lines of the message's last paragraph (git's trailers). */
export function commitTrailers(message: string): { trailers: Record<string, string>; extended: Record<string, string[]> } {
  const paragraphs = message.trim().split(/\n\s*\n/);
  const trailers: Record<string, string> = {};
  const extended: Record<string, string[]> = {};
  if (paragraphs.length < 2) return { trailers, extended };
  const lines = paragraphs[paragraphs.length - 1].split('\n');
  if (!lines.every((l) => /^[A-Za-z0-9-]+:\s/.test(l))) return { trailers, extended };
  for (const l of lines) {
    const i = l.indexOf(':');
    const key = l.slice(0, i);
    const value = l.slice(i + 1).trim();
    trailers[key] = value;
    (extended[key] ??= []).push(value);
  }
  return { trailers, extended };
}
