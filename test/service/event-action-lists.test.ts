import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { queryPlan } from '../helpers/lists';

/**
 * A project's events filtered by action read the (project, action, id) index (core/021): the
 * rows, their order and the headers are the ones the events say, either side of 10,000.
 */
let s: TestService;
let project: number;
const N = 12_600;
/** Every sixth event closes, the rest are created: 10,500 and 2,100. */
const actionOf = (i: number): string => (i % 6 === 0 ? 'closed' : 'created');
const ids: { id: number; action: string }[] = [];

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'eventful', visibility: 'public' })).id;
  const db = s.service.context.db;
  const insert = db.prepare(
    `INSERT INTO events (project_id, author_id, action, target_type, target_id, target_iid, target_title, created_at)
     VALUES (?, 1, ?, NULL, NULL, NULL, NULL, ?)`,
  );
  db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const info = insert.run(project, actionOf(i), new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString());
      ids.push({ id: Number(info.lastInsertRowid), action: actionOf(i) });
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

const newestFirst = (action: string): number[] => ids.filter((e) => e.action === action).map((e) => e.id).sort((a, b) => b - a);

describe("a project's events by action", () => {
  it('past 10,000 is uncounted, newest first; fewer are counted exactly; sort=asc reverses', async () => {
    const created = newestFirst('created');
    expect(created.length).toBeGreaterThan(10_000);
    const first = await s.get(`/projects/${project}/events`, { query: { action: 'created', per_page: '100' } });
    expect(first.headers.has('x-total')).toBe(false);
    expect(first.headers.get('x-next-page')).toBe('2');
    expect(first.body.map((e: any) => e.id)).toEqual(created.slice(0, 100));
    expect(first.body.every((e: any) => e.action_name === 'created')).toBe(true);
    const closed = newestFirst('closed');
    const page = await s.get(`/projects/${project}/events`, { query: { action: 'closed', per_page: '100', page: '7' } });
    expect(page.headers.get('x-total')).toBe(String(closed.length));
    expect(page.headers.get('x-total-pages')).toBe(String(Math.ceil(closed.length / 100)));
    expect(page.body.map((e: any) => e.id)).toEqual(closed.slice(600, 700));
    const asc = await s.get(`/projects/${project}/events`, { query: { action: 'closed', sort: 'asc', per_page: '50', page: '3' } });
    expect(asc.body.map((e: any) => e.id)).toEqual([...closed].reverse().slice(100, 150));
  });

  it('read through the index of the project and action', () => {
    const plan = queryPlan(s.service.context.db, 'SELECT e.id FROM events e WHERE e.project_id = ? AND e.action = ? ORDER BY e.id DESC', project, 'closed');
    expect(plan).toContain('events_project_action');
  });
});
