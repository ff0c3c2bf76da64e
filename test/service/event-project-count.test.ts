import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectEveryPage, statementReads } from '../helpers/lists';
import { TestService, ok } from '../helpers/service';

/**
 * A project's events list counts (X-Total) from the project's counters alone (event_counts,
 * event_target_counts), the project seen once for the list: not through the project's row, which
 * any project's write sent back to SQLite. Every page and header against the events, after writes
 * to projects, for an administrator, a member and anonymous.
 */
let s: TestService;
let open: number;
let secret: number;
let member: { id: number; token: string };
let other: number;

const ids = (where: string, ...args: unknown[]): number[] =>
  (s.service.context.db.prepare(`SELECT e.id FROM events e WHERE ${where} ORDER BY e.id DESC`).all(...args) as { id: number }[]).map((r) => r.id);

beforeAll(async () => {
  s = await TestService.start();
  open = (await s.createProject({ name: 'open', visibility: 'public' })).id;
  secret = (await s.createProject({ name: 'secret', visibility: 'private' })).id;
  other = (await s.createProject({ name: 'other' })).id;
  const u = await s.createUser();
  member = { id: u.user.id, token: u.token };
  await s.addMember('projects', secret, member.id, 30);
  for (const project of [open, secret]) for (let i = 0; i < 4; i++) ok(await s.post(`/projects/${project}/issues`, { title: `issue ${i}` }));
});
afterAll(() => s.stop());

it("counts a project's events from its counters, answering every page as the events read", async () => {
  for (const [project, token] of [
    [open, undefined],
    [open, null],
    [secret, member.token],
    [secret, undefined],
  ] as const) {
    for (const query of [{}, { target_type: 'issue' }] as Record<string, string>[]) {
      ok(await s.put(`/projects/${other}`, { description: `written ${project} ${JSON.stringify(query)} ${token}` }));
      const reads = await statementReads(s, (sql) => /\b(event_counts|event_target_counts)\b/.test(sql), () => s.get(`/projects/${project}/events`, { token, query: { ...query, per_page: '3' } }), 'get');
      expect(reads.length).toBeGreaterThan(0);
      for (const r of reads) expect(r.sql).not.toMatch(/\bprojects\b/);
      const want = query.target_type ? ids("e.project_id = ? AND e.target_type = 'Issue'", project) : ids('e.project_id = ?', project);
      expect(want.length).toBeGreaterThan(3);
      // `null`: anonymous (TestService reads no token).
      await expectEveryPage(s, `/projects/${project}/events`, query, want, 3, token as string | undefined);
    }
  }
});
