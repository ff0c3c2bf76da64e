import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';

// A member whose row, user and creator read as when its entity was built keeps that entity and its
// JSON text across writes elsewhere (areas/core/entities.ts members: unchangedEntity, the viewer in
// the key). These tests pin that every write that changes what it shows (the membership, the
// member's user, the creator, through the API and in SQL) shows at the next page of a group's and
// a project's members, and of the Search API's users (UserBasic), each as read with nothing kept
// (inside a transaction); that each viewer sees the e-mails theirs to see; and that each request's
// base URL shows.

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

const db = () => s.service.context.db;
const sql = (text: string, ...args: unknown[]) => db().prepare(text).run(...args);


describe('member entities kept across writes', () => {
  let group: any;
  let project: any;
  let other: any;
  let alice: { user: any; token: string };
  let bob: { user: any; token: string };
  let touches = 0;

  const elsewhere = async (): Promise<void> => void ok(await s.put(`/projects/${other.id}`, { description: `elsewhere ${++touches}` }));
  const paths = (): string[] => [
    `/groups/${group.id}/members?per_page=100`,
    `/groups/${group.id}/members?query=memberent`,
    `/projects/${project.id}/members?per_page=100`,
    '/search?scope=users&search=memberent',
    `/groups/${group.id}/search?scope=users&search=memberent`,
  ];

  /** Each path's text for each viewer after a write elsewhere, twice, each the text read inside a transaction (nothing kept). By path, the root's answer. */
  const lists = async (): Promise<Record<string, any[]>> => {
    const viewers = [undefined, alice.token, bob.token];
    const fresh = new Map<string, string>();
    sql('SAVEPOINT afresh');
    try {
      for (const token of viewers) for (const path of paths()) fresh.set(`${token}|${path}`, (await s.get(path, { token })).text);
    } finally {
      sql('RELEASE afresh');
    }
    const out: Record<string, any[]> = {};
    for (let round = 0; round < 2; round++) {
      await elsewhere();
      for (const token of viewers) {
        for (const path of paths()) {
          const res = await s.get(path, { token });
          expect(res.status, path).toBe(200);
          expect(res.text, `${path} as ${token ?? 'root'} round ${round}`).toBe(fresh.get(`${token}|${path}`));
          if (!token) out[path] = res.body;
        }
      }
    }
    return out;
  };
  const find = (rows: any[], id: number) => rows.find((r) => r.id === id);

  beforeAll(async () => {
    alice = await s.createUser({ username: 'memberent-alice', name: 'Alice Memberent' });
    bob = await s.createUser({ username: 'memberent-bob', name: 'Bob Memberent' });
    group = await s.createGroup({ path: 'memberent-group' });
    project = await s.createProject({ namespace_id: group.id });
    other = await s.createProject();
    await s.addMember('groups', group.id, alice.user.id, 30);
    await s.addMember('groups', group.id, bob.user.id, 20);
    await s.addMember('projects', project.id, bob.user.id, 40);
  });

  it('show the membership as written through the API and in SQL', async () => {
    await lists();
    ok(await s.put(`/groups/${group.id}/members/${alice.user.id}`, { access_level: 40 }));
    expect(find((await lists())[`/groups/${group.id}/members?per_page=100`], alice.user.id).access_level).toBe(40);
    sql("UPDATE members SET expires_at = '2999-01-01' WHERE source_type = 'Project' AND source_id = ? AND user_id = ?", project.id, bob.user.id);
    expect(find((await lists())[`/projects/${project.id}/members?per_page=100`], bob.user.id).expires_at).toBe('2999-01-01');
  });

  it("show the member's user and the creator as written through the API and in SQL", async () => {
    await lists();
    ok(await s.put(`/users/${alice.user.id}`, { name: 'Alice Renamed Memberent' }));
    const after = await lists();
    expect(find(after[`/groups/${group.id}/members?per_page=100`], alice.user.id).name).toBe('Alice Renamed Memberent');
    expect(find(after['/search?scope=users&search=memberent'], alice.user.id).name).toBe('Alice Renamed Memberent');
    sql("UPDATE users SET username = 'memberent-bobby', email = 'bobby@example.com' WHERE id = ?", bob.user.id);
    const renamed = await lists();
    expect(find(renamed[`/projects/${project.id}/members?per_page=100`], bob.user.id).username).toBe('memberent-bobby');
    expect(find(renamed['/search?scope=users&search=memberent'], bob.user.id).web_url).toMatch(/\/memberent-bobby$/);
    // The creator of Bob's group membership: Alice, renamed in SQL.
    sql("UPDATE members SET created_by_id = ? WHERE source_type = 'Namespace' AND source_id = ? AND user_id = ?", alice.user.id, group.id, bob.user.id);
    expect(find((await lists())[`/groups/${group.id}/members?per_page=100`], bob.user.id).created_by.id).toBe(alice.user.id);
    sql("UPDATE users SET name = 'Alice Creator Memberent' WHERE id = ?", alice.user.id);
    expect(find((await lists())[`/groups/${group.id}/members?per_page=100`], bob.user.id).created_by.name).toBe('Alice Creator Memberent');
  });

  it("show each viewer the e-mails theirs to see, and each request's base URL", async () => {
    await lists();
    const asAlice = ok(await s.get(`/groups/${group.id}/members?per_page=100`, { token: alice.token }));
    expect(find(asAlice, alice.user.id).email).toBe(alice.user.email);
    expect(find(asAlice, bob.user.id).email).toBeUndefined();
    expect(find(ok(await s.get(`/groups/${group.id}/members?per_page=100`)), bob.user.id).email).toBe('bobby@example.com');
    for (const host of ['one.example:8080', 'two.example']) {
      for (const path of paths()) {
        const res = await s.getWithHost(path, host);
        expect(res.status).toBe(200);
        expect(res.body.length).toBeGreaterThan(0);
        for (const u of res.body) expect(u.web_url.startsWith(`http://${host}/`), `${path} ${u.id}`).toBe(true);
      }
    }
  });
});
