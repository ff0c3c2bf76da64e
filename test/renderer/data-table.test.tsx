import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { useStore, type StoreApi } from 'zustand';
import { createColumnHelper } from '@tanstack/react-table';
import { DataTable } from '../../src/renderer/src/components/DataTable';
import { createListStore, type ListQuery, type ListState } from '../../src/renderer/src/stores/list';
import { fakeBridge, thingsServer, type FakeAnswer, type Thing } from './fake-bridge';
import type { ApiRequest } from '../../src/shared/ipc';

afterEach(cleanup);

const col = createColumnHelper<Thing>();
const columns = [col.accessor('id', { header: 'ID' }), col.accessor('name', { header: 'Name', enableSorting: true })];
const things = (q: ListQuery): ApiRequest => ({
  method: 'GET',
  path: '/things',
  query: { order_by: q.sort?.id, sort: q.sort ? (q.sort.desc ? 'desc' : 'asc') : undefined, search: q.filter || undefined },
});

function Table({ store }: { store: StoreApi<ListState<Thing>> }): React.JSX.Element {
  const list = useStore(store);
  return <DataTable list={list} columns={columns} label="Things" filterLabel="Filter things" empty="No things yet." rowKey={(t) => String(t.id)} testId="things" />;
}

async function mount(answer: (req: ApiRequest) => FakeAnswer) {
  const bridge = fakeBridge(answer);
  const store = createListStore<Thing>(things, { bridge });
  render(<Table store={store} />);
  await act(() => store.getState().load());
  return { bridge, store, table: screen.getByRole('table', { name: 'Things' }) };
}

const names = (table: HTMLElement): string[] => within(table).getAllByRole('row').slice(1).map((r) => within(r).getAllByRole('cell')[1].textContent ?? '');

describe('DataTable (server pagination)', () => {
  it('shows the page the server sent with the range and total, and pages forward and back', async () => {
    const { bridge, table } = await mount(thingsServer(45));
    expect(names(table)).toHaveLength(20);
    expect(screen.getByTestId('things-range').textContent).toBe('1–20 of 45');
    expect(screen.getByText('Page 1 of 3')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Previous page' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await waitFor(() => expect(screen.getByTestId('things-range').textContent).toBe('21–40 of 45'));
    expect(bridge.requests.at(-1)!.query).toMatchObject({ page: 2, per_page: 20 });
    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await waitFor(() => expect(screen.getByTestId('things-range').textContent).toBe('41–45 of 45'));
    expect((screen.getByRole('button', { name: 'Next page' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByRole('combobox', { name: 'Rows per page' }), { target: { value: '50' } });
    await waitFor(() => expect(screen.getByTestId('things-range').textContent).toBe('1–45 of 45'));
    expect(bridge.requests.at(-1)!.query).toMatchObject({ page: 1, per_page: 50 });
  });

  it('pages when the server sends no totals, by X-Next-Page alone', async () => {
    await mount(thingsServer(45, { totals: false }));
    expect(screen.getByTestId('things-range').textContent).toBe('1–20');
    expect(screen.getByText('Page 1')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await screen.findByText('Page 2');
    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await screen.findByText('Page 3');
    expect(screen.getByTestId('things-range').textContent).toBe('41–45');
    expect((screen.getByRole('button', { name: 'Next page' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('sorts on the server: a click on a sortable header asks ascending, then descending, then the default', async () => {
    const { bridge, table } = await mount(thingsServer(45));
    const header = within(table).getByRole('columnheader', { name: /Name/ });
    expect(within(within(table).getByRole('columnheader', { name: 'ID' })).queryByRole('button')).toBeNull();
    fireEvent.click(within(header).getByRole('button'));
    await waitFor(() => expect(header.getAttribute('aria-sort')).toBe('ascending'));
    expect(bridge.requests.at(-1)!.query).toMatchObject({ order_by: 'name', sort: 'asc', page: 1 });
    fireEvent.click(within(header).getByRole('button'));
    await waitFor(() => expect(names(table)[0]).toBe('thing-045'));
    expect(header.getAttribute('aria-sort')).toBe('descending');
    fireEvent.click(within(header).getByRole('button'));
    await waitFor(() => expect(header.getAttribute('aria-sort')).toBeNull());
    expect(bridge.requests.at(-1)!.query).toMatchObject({ order_by: undefined, sort: undefined });
  });

  it('filters on the server once typing pauses', async () => {
    const { bridge, table } = await mount(thingsServer(45));
    fireEvent.change(screen.getByRole('searchbox', { name: 'Filter things' }), { target: { value: 'thing-04' } });
    await waitFor(() => expect(names(table)).toEqual(['thing-040', 'thing-041', 'thing-042', 'thing-043', 'thing-044', 'thing-045']));
    expect(bridge.requests.at(-1)!.query).toMatchObject({ search: 'thing-04', page: 1 });
  });

  it("shows the empty state, and the API's error with a retry", async () => {
    let answer: FakeAnswer = { body: [], headers: { 'x-total': '0' } };
    const { store, bridge } = await mount(() => answer);
    expect(screen.getByText('No things yet.')).toBeTruthy();
    answer = { status: 404, body: { message: '404 Project Not Found' } };
    await act(() => store.getState().load());
    expect(screen.getByRole('alert').textContent).toBe('404 Project Not Found');
    answer = { body: [{ id: 7, name: 'back' }] };
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    await screen.findByText('back');
    expect(bridge.requests).toHaveLength(3);
  });
});
