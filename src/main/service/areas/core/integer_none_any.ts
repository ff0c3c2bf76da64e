import { grapeError } from '../../http/errors';
import type { Params } from '../../http/params';

/**
 * GitLab's `integer_none_any` parameters (API::Validations::Validators::IntegerNoneAny: assignee_id,
 * reviewer_id, weight, epic_id): an integer, or None / Any in any case (IssuableFinder::Params
 * FILTER_NONE, FILTER_ANY); anything else, an empty value among them (Grape coerces it to nil), is
 * a 400 naming the value.
 */
export function integerNoneAnyParam(params: Params, name: string): number | 'none' | 'any' | undefined {
  const raw = params[name];
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'number' && Number.isInteger(raw)) return raw;
  const text = typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : JSON.stringify(raw);
  if (/^\s*-?\d+\s*$/.test(text)) return Number.parseInt(text, 10);
  const word = text.toLowerCase();
  if (word === 'none' || word === 'any') return word;
  throw grapeError(400, `${name} should be an integer, none, or any, however got ${text}`);
}
