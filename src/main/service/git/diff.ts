import { createHash } from 'node:crypto';
import { diffLines, positionLine, type DiffLine } from '../../../shared/diff-lines';

export { diffLines, type DiffLine, type DiffLineType } from '../../../shared/diff-lines';

/** One changed file between two commits, in the terms GitLab's diff entities use. */
export interface DiffFile {
  oldPath: string;
  newPath: string;
  /** Octal modes as strings, "0" when the side does not exist. */
  aMode: string;
  bMode: string;
  oldId: string;
  newId: string;
  newFile: boolean;
  renamedFile: boolean;
  deletedFile: boolean;
  binary: boolean;
  /** The patch from its first `@@` (or git's "Binary files ... differ" line); '' for a pure rename or mode change. */
  diff: string;
  additions: number;
  deletions: number;
}

/**
 * Parses `git diff -z --raw -p --no-abbrev --full-index`: the NUL-separated raw list (exact paths,
 * modes, status) followed by the patches in the same order.
 */
export function parseRawPatch(out: Buffer): DiffFile[] {
  const text = out.toString('utf8');
  const files: DiffFile[] = [];
  let i = 0;
  while (i < text.length && text[i] === ':') {
    const metaEnd = text.indexOf('\0', i);
    const [aMode, bMode, oldId, newId, status] = text.slice(i + 1, metaEnd).split(' ');
    i = metaEnd + 1;
    const p1End = text.indexOf('\0', i);
    const path1 = text.slice(i, p1End);
    i = p1End + 1;
    let path2 = path1;
    if (status.startsWith('R') || status.startsWith('C')) {
      const p2End = text.indexOf('\0', i);
      path2 = text.slice(i, p2End);
      i = p2End + 1;
    }
    const mode = (m: string): string => (/^0+$/.test(m) ? '0' : m);
    files.push({
      oldPath: path1,
      newPath: path2,
      aMode: mode(aMode),
      bMode: mode(bMode),
      oldId,
      newId,
      newFile: status === 'A',
      deletedFile: status === 'D',
      renamedFile: status.startsWith('R'),
      binary: false,
      diff: '',
      additions: 0,
      deletions: 0,
    });
  }
  const patches = text.slice(i).replace(/^\0/, '');
  const sections = patches ? patches.split(/^diff --git /m).slice(1) : [];
  sections.forEach((section, n) => {
    const file = files[n];
    if (!file) return;
    const hunk = section.search(/^@@ /m);
    if (hunk >= 0) {
      file.diff = section.slice(hunk);
      for (const line of file.diff.split('\n')) {
        if (line.startsWith('+')) file.additions++;
        else if (line.startsWith('-')) file.deletions++;
      }
      return;
    }
    const binary = /^Binary files .* differ$/m.exec(section);
    if (binary) {
      file.binary = true;
      file.diff = `${binary[0]}\n`;
    }
  });
  return files;
}

/** Gitlab::Git.diff_line_code: `<sha1 of the path>_<old>_<new>`. */
export function lineCode(path: string, oldPos: number, newPos: number): string {
  return `${createHash('sha1').update(path).digest('hex')}_${oldPos}_${newPos}`;
}

/** The diff line a text position points at (see positionLine); undefined when it is not there. */
export function findPositionLine(file: DiffFile, oldLine: number | null, newLine: number | null): DiffLine | undefined {
  return positionLine(diffLines(file.diff), oldLine, newLine);
}
