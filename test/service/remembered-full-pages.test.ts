import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';

/**
 * A page of 100 reads 101 rows (the one past it says whether a next page exists): that answer is
 * remembered as shorter ones are (memory.ts rememberedListRows), so a page of 100 after a write
 * elsewhere reads nothing from SQLite but what the write moved (the project's row).
 */
let s: TestService;
let project = 0;
/** Rows SQLite handed over per statement text while `counting` (every statement's `all`, under the remembered answers). */
let counting = false;
const read: { sql: string; rows: number }[] = [];
let restore = (): void => {};

beforeAll(async () => {
  // Before the service prepares anything: each statement binds `all` when prepared (db/connection.ts).
  const proto = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as { all: (...args: unknown[]) => unknown[] };
  const all = proto.all;
  restore = () => void (proto.all = all);
  proto.all = function (this: { source: string }, ...args: unknown[]) {
    const rows = all.apply(this, args);
    if (counting) read.push({ sql: this.source, rows: rows.length });
    return rows;
  };
  s = await TestService.start();
  project = (await s.createProject({ name: 'full-pages' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 0; i < 150; i++) {
      const at = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
      insertImportedIssue(ctx, project, { iid: i + 1, title: `Issue ${i}`, description: null, state: 'opened', authorId: 1, createdAt: at, updatedAt: at, importedFrom: 'none' });
    }
  })();
});
afterAll(async () => {
  await s.stop();
  restore();
});

describe('a page of 100 after a write elsewhere', () => {
  it('reads no list rows again: its 101 rows were remembered', async () => {
    for (const query of [{ per_page: '100' }, { per_page: '100', order_by: 'updated_at', sort: 'asc' }] as Record<string, string>[]) {
      const first = await s.get(`/projects/${project}/issues`, { query });
      expect(first.body).toHaveLength(100);
      ok(await s.put(`/projects/${project}`, { description: `written ${query.sort ?? ''}` }));
      read.length = 0;
      counting = true;
      const again = await s.get(`/projects/${project}/issues`, { query });
      counting = false;
      expect(again.text).toBe(first.text);
      expect(read.filter((r) => r.rows > 100)).toEqual([]);
    }
  });
});
