import { declared, t, type Params } from '../../http/params';
import type { SortDirection } from '../../http/pagination';
import { integerNoneAnyParam } from './integer_none_any';
import type { OwnCondition } from './issue_filters';

/**
 * The issues lists' `weight=` and `not[weight]=` (EE IssuesHelpers: weight an integer, None or Any;
 * not[weight] an integer) as conditions on `x`, as EE IssuesFinder#by_weight and
 * #by_negated_weight read them: None is no weight or -1 (`where(weight: [-1, nil])`), Any the
 * others, an integer that weight; not[weight] keeps the issues without a weight
 * (`without_weights`: `weight IS NULL OR weight != ?`).
 */
export function weightConditions(params: Params): OwnCondition[] {
  const conditions: OwnCondition[] = [];
  const value = integerNoneAnyParam(params, 'weight');
  if (value === 'none') conditions.push({ sql: '(x.weight IS NULL OR x.weight = -1)', args: [] });
  else if (value === 'any') conditions.push({ sql: '(x.weight IS NOT NULL AND x.weight != -1)', args: [] });
  else if (value !== undefined) conditions.push({ sql: 'x.weight = ?', args: [value] });
  const not = params.not;
  if (not && typeof not === 'object' && !Array.isArray(not)) {
    const negated = declared(not as Params, { weight: t.integer() }, 'not').weight;
    if (negated != null) conditions.push({ sql: '(x.weight IS NULL OR x.weight != ?)', args: [negated] });
  }
  return conditions;
}

/**
 * EE Issue.sort_by_attribute('weight_asc' / 'weight_desc'): the weight with no weight last either
 * way (`nulls_last`), ties broken by the newest id first (`with_order_id_desc`) whatever the sort.
 */
export function weightOrder(sort: SortDirection): string {
  return `x.weight IS NULL, x.weight ${sort}, x.id DESC`;
}
