import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { groupAccessLevel } from '../../src/main/service/areas/core/access';
import { queryPlan } from '../helpers/lists';

/**
 * A user's level in a group (inherited from its ancestors) is read by (group, user) for each
 * ancestor, never through all of the user's memberships: an administrator who created 10,000
 * projects holds 12,000 memberships, and every project entity of a group asks after each write.
 * The level itself is what the memberships say.
 */
let s: TestService;
let parent: number;
let child: number;
let project: number;
let user: { id: number; token: string };

beforeAll(async () => {
  s = await TestService.start();
  parent = (await s.createGroup({ visibility: 'private' })).id;
  child = (await s.createGroup({ visibility: 'private', parent_id: parent })).id;
  project = (await s.createProject({ name: 'inside', namespace_id: child })).id;
  const u = await s.createUser();
  user = { id: u.user.id, token: u.token };
  // Many memberships of the user's own, as a busy creator holds.
  const db = s.service.context.db;
  const now = new Date().toISOString();
  db.transaction(() => {
    for (let i = 0; i < 300; i++) {
      const g = db.prepare("INSERT INTO namespaces (name, path, full_path, kind, visibility, created_at, updated_at) VALUES (?, ?, ?, 'group', 'private', ?, ?)").run(`g${i}`, `g${i}`, `g${i}`, now, now);
      db.prepare("INSERT INTO members (source_type, source_id, user_id, access_level, created_at, updated_at) VALUES ('Namespace', ?, ?, 10, ?, ?)").run(g.lastInsertRowid, user.id, now, now);
    }
  })();
});
afterAll(async () => s.stop());

/** The SQL statements `fn` prepared. */
function preparedBy(fn: () => void): string[] {
  const db = s.service.context.db;
  const prepare = db.prepare;
  const seen: string[] = [];
  db.prepare = ((sql: string) => (seen.push(sql), prepare.call(db, sql))) as typeof db.prepare;
  try {
    fn();
  } finally {
    db.prepare = prepare;
  }
  return seen;
}

describe("a user's level in a group", () => {
  it('is read by (group, user) for each ancestor, not through all of the user memberships', () => {
    const ctx = s.service.context;
    const [sql] = preparedBy(() => groupAccessLevel(ctx, user.id, child));
    const plan = queryPlan(ctx.db, sql, child, user.id, '2026-01-01');
    expect(plan).toContain('SEARCH m USING INDEX members_source_user (source_type=? AND source_id=? AND user_id=?)');
    expect(plan).not.toContain('members_user ');
  });

  it('is the highest of the memberships in the group and its ancestors that grant access today', async () => {
    expect(groupAccessLevel(s.service.context, user.id, child)).toBe(0);
    await s.addMember('groups', parent, user.id, 30);
    expect(groupAccessLevel(s.service.context, user.id, child)).toBe(30);
    const inherited = await s.get(`/projects/${project}`, { token: user.token });
    expect(inherited.body.permissions.group_access).toEqual({ access_level: 30, notification_level: 3 });
    await s.addMember('groups', child, user.id, 40);
    expect(groupAccessLevel(s.service.context, user.id, child)).toBe(40);
    expect(groupAccessLevel(s.service.context, user.id, parent)).toBe(30);
    // An expired membership grants nothing.
    s.service.context.db.prepare("UPDATE members SET expires_at = '2000-01-01' WHERE source_type = 'Namespace' AND source_id = ? AND user_id = ?").run(child, user.id);
    expect(groupAccessLevel(s.service.context, user.id, child)).toBe(30);
    expect((await s.get(`/projects/${project}`, { token: user.token })).body.permissions.group_access).toEqual({ access_level: 30, notification_level: 3 });
  });
});
