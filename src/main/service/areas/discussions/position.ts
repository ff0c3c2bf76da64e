import { grapeError } from '../../http/errors';

export const POSITION_TYPES = ['text', 'image', 'file'] as const;

const str = (v: unknown): string | null => (v === undefined || v === null ? null : String(v));

function num(name: string, v: unknown, errors: string[], integer: boolean): number | null {
  if (v === undefined || v === null || v === '') return null;
  const n = typeof v === 'number' ? v : Number(String(v).trim());
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    errors.push(`position[${name}] is invalid`);
    return null;
  }
  return n;
}

function lineEnd(v: unknown): Record<string, unknown> | null {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const h = v as Record<string, unknown>;
  const line = (x: unknown): number | null => (x === undefined || x === null || x === '' ? null : Number(x));
  return { line_code: str(h.line_code), type: str(h.type), old_line: line(h.old_line), new_line: line(h.new_line) };
}

/**
 * `position` (a hash, from JSON or `position[...]` form fields) as Gitlab::Diff::Position#to_h
 * for its type, with Grape's errors for missing or invalid members. undefined/null -> null.
 */
export function readPosition(raw: unknown): Record<string, unknown> | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw grapeError(400, 'position is invalid');
  const h = raw as Record<string, unknown>;
  const errors: string[] = [];
  for (const k of ['base_sha', 'start_sha', 'head_sha', 'position_type']) if (h[k] === undefined || h[k] === null) errors.push(`position[${k}] is missing`);
  const type = str(h.position_type);
  if (type !== null && !(POSITION_TYPES as readonly string[]).includes(type)) errors.push('position[position_type] does not have a valid value');
  if (type === 'text') for (const k of ['new_path', 'old_path']) if (h[k] === undefined || h[k] === null) errors.push(`position[${k}] is missing`);
  const base = {
    base_sha: str(h.base_sha),
    start_sha: str(h.start_sha),
    head_sha: str(h.head_sha),
    old_path: str(h.old_path),
    new_path: str(h.new_path),
    position_type: type,
  };
  let out: Record<string, unknown> = base;
  if (type === 'image') {
    out = { ...base, width: num('width', h.width, errors, true), height: num('height', h.height, errors, true), x: num('x', h.x, errors, false), y: num('y', h.y, errors, false) };
  } else if (type === 'text') {
    let lineRange: Record<string, unknown> | null = null;
    if (h.line_range !== undefined && h.line_range !== null) {
      if (typeof h.line_range !== 'object' || Array.isArray(h.line_range)) errors.push('position[line_range] is invalid');
      else {
        const lr = h.line_range as Record<string, unknown>;
        lineRange = { start: lineEnd(lr.start), end: lineEnd(lr.end) };
      }
    }
    out = { ...base, old_line: num('old_line', h.old_line, errors, true), new_line: num('new_line', h.new_line, errors, true), line_range: lineRange };
  }
  if (errors.length) throw grapeError(400, errors.join(', '));
  return out;
}

/** What a draft without a position shows: a text position with every value null. */
export const EMPTY_POSITION = {
  base_sha: null,
  start_sha: null,
  head_sha: null,
  old_path: null,
  new_path: null,
  position_type: 'text',
  old_line: null,
  new_line: null,
  line_range: null,
};
