import type { Db } from '../../db/connection';
import type { PageAnchors, SortDirection, SqlList } from '../../http/pagination';

/**
 * Deep-page anchors of an instance list (/users, /groups) whose conditions read only its own
 * table's columns: the table's version (core/052) moves on every write that may add, drop or move
 * one of its rows, so a page asked again, or the next one in turn, starts after a row an earlier
 * page read. The order is `column` then `idColumn` in `sort` (both never NULL).
 */
export function instanceListAnchors<T extends { id: number }>(
  db: Db,
  table: 'users' | 'namespaces',
  list: SqlList<T>,
  column: string,
  idColumn: string,
  sort: SortDirection,
  value: (row: T) => string | number,
): PageAnchors<T> {
  return {
    key: JSON.stringify([table, list.from, list.args, list.order]),
    version: () => (db.prepare('SELECT version FROM instance_list_versions WHERE list = ?').get(table) as { version: number }).version,
    column,
    idColumn,
    sort,
    value,
    id: (row) => row.id,
    countsAtVersion: true,
  };
}
