import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { preparedBy } from '../helpers/lists';
import { type MemberSource, memberListSql } from '../../src/main/service/areas/core/members';
import { findNamespaceById } from '../../src/main/service/areas/core/namespaces';

/**
 * The Search API's users scope: active users whose username or name holds the term, anyone
 * instance-wide, a group's or project's members (inherited ones too), in id order. Each answer
 * against the query the scope ran before (memberListSql's members, LIKE over every user), every
 * page with its headers.
 */
let s: TestService;
let parent: number;
let child: number;
let project: number;

beforeAll(async () => {
  s = await TestService.start();
  parent = (await s.createGroup({ visibility: 'public' })).id;
  child = (await s.createGroup({ visibility: 'public', parent_id: parent })).id;
  project = (await s.createProject({ name: 'p', namespace_id: child, visibility: 'public' })).id;
  for (let i = 1; i <= 40; i++) {
    const name = i % 4 === 0 ? `Zebra Keeper ${i}` : i % 4 === 1 ? `zeb ${i}` : `Other ${i}`;
    const u = await s.createUser({ username: i % 5 === 0 ? `ZEBRA_${i}` : `member_${i}`, name });
    // Members of the parent (inherited below), of the child, of the project, requests, none.
    const source = i % 6 === 0 ? `/groups/${parent}` : i % 6 === 1 ? `/groups/${child}` : i % 6 === 2 ? `/projects/${project}` : null;
    if (source) ok(await s.post(`${source}/members`, { user_id: u.user.id, access_level: 30 }));
    if (i % 6 === 3) ok(await s.post(`/projects/${project}/access_requests`, {}, { token: u.token }));
    if (i % 9 === 0) ok(await s.post(`/users/${u.user.id}/block`, {}));
  }
}, 120_000);
afterAll(async () => s.stop());

/** The scope's answer as it was read before: memberListSql's users, LIKE over every user. */
function truth(level: 'global' | 'group' | 'project', term: string): number[] {
  const svc = s.service.context;
  const like = `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  let members = '';
  const args: unknown[] = [like, like];
  if (level !== 'global') {
    const source: MemberSource =
      level === 'group'
        ? { type: 'Namespace', id: child, name: '', group: findNamespaceById(svc, child)!, project: null, parentGroupId: parent }
        : { type: 'Project', id: project, name: '', group: null, project: null, parentGroupId: child };
    const list = memberListSql(svc, source, true);
    members = ` AND u.id IN (SELECT m.user_id ${list.from})`;
    args.push(...list.args);
  }
  return (
    svc.db.prepare(`SELECT u.id FROM users u WHERE u.state = 'active' AND (lower(u.username) LIKE ? ESCAPE '\\' OR lower(u.name) LIKE ? ESCAPE '\\')${members} ORDER BY u.id`).all(...args) as { id: number }[]
  ).map((r) => r.id);
}

describe('GET /search?scope=users (instance, group, project)', () => {
  it('answers as before: every level, term, page and header', async () => {
    for (const [level, path] of [['global', '/search'], ['group', `/groups/${child}/search`], ['project', `/projects/${project}/search`]] as const) {
      for (const term of ['zebra', 'ZEB', 'keeper 1', 'member_', 'ze', 'r', 'nobody here', '_1']) {
        const want = truth(level, term);
        for (const [page, perPage] of [[1, 4], [2, 4], [1, 100]] as const) {
          const res = await s.get(path, { query: { scope: 'users', search: term, page: String(page), per_page: String(perPage) } });
          const where = `${level} ${term} ${page}x${perPage}`;
          expect(res.status, where).toBe(200);
          expect(res.body.map((u: any) => u.id), where).toEqual(want.slice((page - 1) * perPage, page * perPage));
          expect(res.headers.get('x-total'), where).toBe(String(want.length));
          expect(res.headers.get('x-next-page'), where).toBe(want.length > page * perPage ? String(page + 1) : '');
        }
      }
    }
    expect(truth('project', 'zebra').length).toBeGreaterThan(0);
    expect(truth('project', 'zebra').length).toBeLessThan(truth('global', 'zebra').length);
  }, 120_000);

  it('reads the candidates of the trigram index by id, and no ranked member list', async () => {
    const prepared = await preparedBy(s, async () => void ok(await s.get(`/projects/${project}/search`, { query: { scope: 'users', search: 'zebra' } })));
    // (A term most users hold walks the users instead: more than 1,000 candidates.)
    const sql = prepared.join('\n');
    expect(sql).toContain('FROM users u NOT INDEXED WHERE u.id IN (SELECT s.rowid FROM users_search s WHERE s.users_search MATCH ?)');
    expect(sql).not.toContain('row_number()');
  });

  it('reads the few candidates\' matches once, to count and to page', async () => {
    for (const path of ['/search', `/groups/${child}/search`, `/projects/${project}/search`]) {
      const prepared = await preparedBy(s, async () => void ok(await s.get(path, { query: { scope: 'users', search: 'zebra', per_page: '1', page: '2' } })));
      expect({ path, counts: prepared.filter((sql) => sql.includes('count(*)') && sql.includes('FROM users u')) }).toEqual({ path, counts: [] });
    }
  });
});
