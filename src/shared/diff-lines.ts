// GitLab's diff line parser, shared by the service (positions, line codes) and the renderer (the
// merge request diff a reviewer clicks on), so both count lines the same way.

export type DiffLineType = 'match' | 'context' | 'old' | 'new' | 'nonewline';

export interface DiffLine {
  type: DiffLineType;
  /** The counters where the line stands (GitLab's Diff::Line old_pos/new_pos). */
  oldPos: number;
  newPos: number;
  text: string;
}

/**
 * Gitlab::Diff::Parser: at `@@ -a,b +c,d @@` the counters start at a and c; a context line takes
 * both then both advance, a removed line takes both then only old advances, an added line takes
 * both then only new advances.
 */
export function diffLines(diff: string): DiffLine[] {
  const lines: DiffLine[] = [];
  let oldPos = 0;
  let newPos = 0;
  const body = diff.endsWith('\n') ? diff.slice(0, -1) : diff;
  if (!body) return lines;
  for (const text of body.split('\n')) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (hunk) {
      oldPos = Number(hunk[1]);
      newPos = Number(hunk[2]);
      lines.push({ type: 'match', oldPos: oldPos - 1, newPos: newPos - 1, text });
      continue;
    }
    if (text.startsWith('\\')) {
      lines.push({ type: 'nonewline', oldPos, newPos, text });
    } else if (text.startsWith('-')) {
      lines.push({ type: 'old', oldPos, newPos, text });
      oldPos++;
    } else if (text.startsWith('+')) {
      lines.push({ type: 'new', oldPos, newPos, text });
      newPos++;
    } else {
      lines.push({ type: 'context', oldPos, newPos, text });
      oldPos++;
      newPos++;
    }
  }
  return lines;
}

/**
 * The line a text position points at: an added line (new_line only), a removed line (old_line
 * only) or an unchanged line shown in the diff (both).
 */
export function positionLine(lines: DiffLine[], oldLine: number | null, newLine: number | null): DiffLine | undefined {
  return lines.find((l) => {
    if (l.type === 'new') return newLine === l.newPos && oldLine === null;
    if (l.type === 'old') return oldLine === l.oldPos && newLine === null;
    if (l.type === 'context') return oldLine === l.oldPos && newLine === l.newPos;
    return false;
  });
}
