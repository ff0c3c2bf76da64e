import { useEffect, useRef, useState } from 'react';
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef, type SortingState, type Updater } from '@tanstack/react-table';
import type { ListState } from '../stores/list';

interface DataTableProps<T> {
  /** A server-paginated list (stores/list.ts): rows, page info, and the actions the controls call. */
  list: ListState<T>;
  // Column value types differ per column; tanstack's own docs type the list this way.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  columns: ColumnDef<T, any>[];
  /** The table's accessible name. */
  label: string;
  /** Shown when the API answered an empty page. */
  empty: React.ReactNode;
  rowKey: (row: T) => string;
  /** Shows the filter box (its accessible name) when given. */
  filterLabel?: string;
  onRowClick?: (row: T) => void;
  selectedKey?: string | null;
  testId?: string;
  /** Extra controls beside the filter box. */
  toolbar?: React.ReactNode;
}

const PAGE_SIZES = [10, 20, 50, 100];

/**
 * The one table: @tanstack/react-table for the model, the API for the data. Pages, sorting and
 * filtering are the server's (GitLab's page/per_page, order_by/sort, search); the table shows what
 * the list store holds, and its loading, empty and error states.
 */
export function DataTable<T>({ list, columns, label, empty, rowKey, filterLabel, onRowClick, selectedKey, testId, toolbar }: DataTableProps<T>): React.JSX.Element {
  const sorting: SortingState = list.sort ? [list.sort] : [];
  const table = useReactTable({
    data: list.rows,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: rowKey,
    manualSorting: true,
    manualPagination: true,
    enableSortingRemoval: true,
    defaultColumn: { enableSorting: false },
    state: { sorting },
    onSortingChange: (updater: Updater<SortingState>) => {
      const next = typeof updater === 'function' ? updater(sorting) : updater;
      void list.setSort(next[0] ? { id: next[0].id, desc: next[0].desc } : null);
    },
  });
  const rows = table.getRowModel().rows;
  const first = (list.page - 1) * list.perPage + 1;

  return (
    <div className="data-table-wrap" data-testid={testId}>
      {(filterLabel || toolbar) && (
        <div className="toolbar">
          {filterLabel && <FilterBox label={filterLabel} value={list.filter} onChange={(f) => void list.setFilter(f)} />}
          {toolbar}
        </div>
      )}
      <table className="data-table" aria-label={label} aria-busy={list.loading}>
        <thead>
          {table.getHeaderGroups().map((hg) => (
            <tr key={hg.id}>
              {hg.headers.map((h) => {
                const sorted = h.column.getIsSorted();
                const title = h.isPlaceholder ? null : flexRender(h.column.columnDef.header, h.getContext());
                return (
                  <th key={h.id} scope="col" aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}>
                    {h.column.getCanSort() ? (
                      <button type="button" className="sort-button" onClick={h.column.getToggleSortingHandler()}>
                        {title}
                        <span className="sort-mark" aria-hidden="true">
                          {sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : '↕'}
                        </span>
                      </button>
                    ) : (
                      title
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {list.error ? (
            <tr>
              <td className="table-state" colSpan={columns.length}>
                <span role="alert" className="error-note">
                  {list.error}
                </span>{' '}
                <button type="button" onClick={() => void list.load()}>
                  Retry
                </button>
              </td>
            </tr>
          ) : rows.length === 0 ? (
            <tr>
              <td className="table-state" colSpan={columns.length}>
                {list.loading || !list.loaded ? <span className="muted">Loading…</span> : empty}
              </td>
            </tr>
          ) : (
            rows.map((row) => (
              <tr
                key={row.id}
                className={onRowClick ? (row.id === selectedKey ? 'clickable selected' : 'clickable') : undefined}
                aria-selected={onRowClick ? row.id === selectedKey : undefined}
                tabIndex={onRowClick ? 0 : undefined}
                onClick={onRowClick ? (e) => !isControl(e.target) && onRowClick(row.original) : undefined}
                onKeyDown={onRowClick ? (e) => e.key === 'Enter' && e.target === e.currentTarget && onRowClick(row.original) : undefined}
              >
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
      <nav className="pager" aria-label={`${label} pages`}>
        <span className="muted" data-testid={testId ? `${testId}-range` : undefined}>
          {rows.length === 0 ? '' : list.total !== null ? `${first}–${first + rows.length - 1} of ${list.total}` : `${first}–${first + rows.length - 1}`}
        </span>
        <button type="button" aria-label="Previous page" disabled={list.loading || list.prevPage === null} onClick={() => void list.setPage(list.page - 1)}>
          ‹
        </button>
        <span aria-live="polite">Page {list.page}{list.totalPages !== null ? ` of ${list.totalPages}` : ''}</span>
        <button type="button" aria-label="Next page" disabled={list.loading || list.nextPage === null} onClick={() => void list.setPage(list.nextPage ?? list.page + 1)}>
          ›
        </button>
        <select aria-label="Rows per page" value={list.perPage} onChange={(e) => void list.setPerPage(Number(e.target.value))}>
          {PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n} / page
            </option>
          ))}
        </select>
      </nav>
    </div>
  );
}

/** Clicks on a row's own buttons and links are theirs, not the row's. */
function isControl(target: EventTarget): boolean {
  return target instanceof Element && !!target.closest('button, a, input, select, textarea, label');
}

/** The filter box: asks the API again once typing pauses. */
function FilterBox({ label, value, onChange }: { label: string; value: string; onChange: (v: string) => void }): React.JSX.Element {
  const [text, setText] = useState(value);
  const changed = useRef(onChange);
  changed.current = onChange;
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text === value) return;
    const t = setTimeout(() => changed.current(text), 250);
    return () => clearTimeout(t);
  }, [text, value]);
  return <input type="search" className="filter-box" aria-label={label} placeholder={label} value={text} onChange={(e) => setText(e.target.value)} />;
}
