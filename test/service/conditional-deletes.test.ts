import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

// GitLab's destroy_conditionally!: a DELETE with If-Unmodified-Since is refused (412) when the
// record changed after that time; without the header, or with a later time, it goes through.

let s: TestService;
let project: any;
let group: any;
beforeAll(async () => {
  s = await TestService.start();
  group = await s.createGroup({ visibility: 'internal' });
  project = await s.createProject({ namespace_id: group.id, visibility: 'internal' });
});
afterAll(async () => s?.stop());

const BEFORE_ANY_RECORD = 'Wed, 01 Jan 2020 00:00:00 GMT';
const tomorrow = () => new Date(Date.now() + 86_400_000).toUTCString();

/** Makes a fresh record; answers the DELETE path and a GET path that finds it while it exists. */
interface Target {
  del: string;
  exists: () => Promise<boolean>;
  /** 200 or 202 where GitLab answers more than 204 (projects, groups). */
  status?: number;
}

const ok = (status: number) => status >= 200 && status < 300;
async function created(path: string, body: Record<string, unknown>, token?: string): Promise<any> {
  const res = await s.post(path, body, { token });
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
  return res.body;
}
const found = (path: string) => async () => ok((await s.get(path)).status);
const listed = (path: string, pick: (x: any) => boolean) => async () => ((await s.get(path)).body as any[]).some(pick);

async function issue(): Promise<any> {
  return created(`/projects/${project.id}/issues`, { title: 'An issue' });
}
async function epic(): Promise<any> {
  return created(`/groups/${group.id}/epics`, { title: 'An epic' });
}
async function projectSnippet(): Promise<any> {
  return created(`/projects/${project.id}/snippets`, { title: 's', file_name: 'a.txt', content: 'x', visibility: 'internal' });
}

const targets: Record<string, () => Promise<Target>> = {
  'project badge': async () => {
    const b = await created(`/projects/${project.id}/badges`, { link_url: 'http://l.example', image_url: 'http://i.example' });
    return { del: `/projects/${project.id}/badges/${b.id}`, exists: found(`/projects/${project.id}/badges/${b.id}`) };
  },
  'group badge': async () => {
    const b = await created(`/groups/${group.id}/badges`, { link_url: 'http://l.example', image_url: 'http://i.example' });
    return { del: `/groups/${group.id}/badges/${b.id}`, exists: found(`/groups/${group.id}/badges/${b.id}`) };
  },
  'project label (by id)': async () => {
    const l = await created(`/projects/${project.id}/labels`, { name: `l-${Math.random()}`, color: '#FF0000' });
    return { del: `/projects/${project.id}/labels/${l.id}`, exists: found(`/projects/${project.id}/labels/${l.id}`) };
  },
  'project label (by name, deprecated)': async () => {
    const l = await created(`/projects/${project.id}/labels`, { name: `n-${Math.random()}`, color: '#FF0000' });
    return { del: `/projects/${project.id}/labels?name=${encodeURIComponent(l.name)}`, exists: found(`/projects/${project.id}/labels/${l.id}`) };
  },
  'group label': async () => {
    const l = await created(`/groups/${group.id}/labels`, { name: `g-${Math.random()}`, color: '#00FF00' });
    return { del: `/groups/${group.id}/labels/${l.id}`, exists: found(`/groups/${group.id}/labels/${l.id}`) };
  },
  'project member': async () => {
    const u = await s.createUser();
    await s.addMember('projects', project.id, u.user.id, 30);
    return { del: `/projects/${project.id}/members/${u.user.id}`, exists: found(`/projects/${project.id}/members/${u.user.id}`) };
  },
  'group member': async () => {
    const u = await s.createUser();
    await s.addMember('groups', group.id, u.user.id, 30);
    return { del: `/groups/${group.id}/members/${u.user.id}`, exists: found(`/groups/${group.id}/members/${u.user.id}`) };
  },
  'project access request': async () => {
    const u = await s.createUser();
    await created(`/projects/${project.id}/access_requests`, {}, u.token);
    return { del: `/projects/${project.id}/access_requests/${u.user.id}`, exists: listed(`/projects/${project.id}/access_requests`, (r) => r.id === u.user.id) };
  },
  'group access request': async () => {
    const u = await s.createUser();
    await created(`/groups/${group.id}/access_requests`, {}, u.token);
    return { del: `/groups/${group.id}/access_requests/${u.user.id}`, exists: listed(`/groups/${group.id}/access_requests`, (r) => r.id === u.user.id) };
  },
  'project invitation': async () => {
    const email = `inv-${Math.random().toString(36).slice(2)}@example.com`;
    await created(`/projects/${project.id}/invitations`, { email, access_level: 30 });
    return { del: `/projects/${project.id}/invitations/${encodeURIComponent(email)}`, exists: listed(`/projects/${project.id}/invitations`, (i) => i.invite_email === email) };
  },
  'group invitation': async () => {
    const email = `inv-${Math.random().toString(36).slice(2)}@example.com`;
    await created(`/groups/${group.id}/invitations`, { email, access_level: 30 });
    return { del: `/groups/${group.id}/invitations/${encodeURIComponent(email)}`, exists: listed(`/groups/${group.id}/invitations`, (i) => i.invite_email === email) };
  },
  'project snippet': async () => {
    const sn = await projectSnippet();
    return { del: `/projects/${project.id}/snippets/${sn.id}`, exists: found(`/projects/${project.id}/snippets/${sn.id}`) };
  },
  'personal snippet': async () => {
    const sn = await created('/snippets', { title: 's', file_name: 'a.txt', content: 'x', visibility: 'private' });
    return { del: `/snippets/${sn.id}`, exists: found(`/snippets/${sn.id}`) };
  },
  issue: async () => {
    const i = await issue();
    return { del: `/projects/${project.id}/issues/${i.iid}`, exists: found(`/projects/${project.id}/issues/${i.iid}`) };
  },
  'merge request': async () => {
    const mr = await created(`/projects/${project.id}/merge_requests`, { title: 'MR', source_branch: `b-${Math.random()}`, target_branch: 'main' });
    return { del: `/projects/${project.id}/merge_requests/${mr.iid}`, exists: found(`/projects/${project.id}/merge_requests/${mr.iid}`) };
  },
  'issue note': async () => {
    const i = await issue();
    const n = await created(`/projects/${project.id}/issues/${i.iid}/notes`, { body: 'a note' });
    return { del: `/projects/${project.id}/issues/${i.iid}/notes/${n.id}`, exists: found(`/projects/${project.id}/issues/${i.iid}/notes/${n.id}`) };
  },
  'issue discussion note': async () => {
    const i = await issue();
    const d = await created(`/projects/${project.id}/issues/${i.iid}/discussions`, { body: 'a thread' });
    const path = `/projects/${project.id}/issues/${i.iid}/discussions/${d.id}/notes/${d.notes[0].id}`;
    return { del: path, exists: found(`/projects/${project.id}/issues/${i.iid}/notes/${d.notes[0].id}`) };
  },
  'project snippet note': async () => {
    const sn = await projectSnippet();
    const n = await created(`/projects/${project.id}/snippets/${sn.id}/notes`, { body: 'a note' });
    return { del: `/projects/${project.id}/snippets/${sn.id}/notes/${n.id}`, exists: found(`/projects/${project.id}/snippets/${sn.id}/notes/${n.id}`) };
  },
  'epic note': async () => {
    const e = await epic();
    const n = await created(`/groups/${group.id}/epics/${e.id}/notes`, { body: 'a note' });
    return { del: `/groups/${group.id}/epics/${e.id}/notes/${n.id}`, exists: found(`/groups/${group.id}/epics/${e.id}/notes/${n.id}`) };
  },
  'epic award emoji': async () => {
    const e = await epic();
    const a = await created(`/groups/${group.id}/epics/${e.iid}/award_emoji`, { name: 'thumbsup' });
    return { del: `/groups/${group.id}/epics/${e.iid}/award_emoji/${a.id}`, exists: listed(`/groups/${group.id}/epics/${e.iid}/award_emoji`, (x) => x.id === a.id) };
  },
  user: async () => {
    const u = await s.createUser();
    return { del: `/users/${u.user.id}`, exists: found(`/users/${u.user.id}`) };
  },
  'group service account': async () => {
    const sa = await created(`/groups/${group.id}/service_accounts`, {});
    return { del: `/groups/${group.id}/service_accounts/${sa.id}`, exists: listed(`/groups/${group.id}/service_accounts`, (a) => a.id === sa.id) };
  },
  project: async () => {
    const p = await s.createProject();
    return { del: `/projects/${p.id}`, exists: found(`/projects/${p.id}`), status: 202 };
  },
  group: async () => {
    const g = await s.createGroup();
    return { del: `/groups/${g.id}`, exists: found(`/groups/${g.id}`), status: 202 };
  },
  'project CI/CD variable': async () => {
    const v = await created(`/projects/${project.id}/variables`, { key: `K_${Date.now()}_${Math.floor(Math.random() * 1e6)}`, value: 'v' });
    return { del: `/projects/${project.id}/variables/${v.key}`, exists: found(`/projects/${project.id}/variables/${v.key}`) };
  },
  'group CI/CD variable': async () => {
    const v = await created(`/groups/${group.id}/variables`, { key: `K_${Date.now()}_${Math.floor(Math.random() * 1e6)}`, value: 'v' });
    return { del: `/groups/${group.id}/variables/${v.key}`, exists: found(`/groups/${group.id}/variables/${v.key}`) };
  },
};

describe.each(Object.keys(targets))('DELETE %s', (name) => {
  const make = targets[name];

  it('refuses with 412 when the record changed after If-Unmodified-Since, and keeps it', async () => {
    const t = await make();
    const res = await s.del(t.del, { headers: { 'if-unmodified-since': BEFORE_ANY_RECORD } });
    expect(res.status).toBe(412);
    expect(res.body).toEqual({ message: '412 Precondition Failed' });
    expect(await t.exists()).toBe(true);
  });

  it('deletes when If-Unmodified-Since is later than the last change', async () => {
    const t = await make();
    const res = await s.del(t.del, { headers: { 'if-unmodified-since': tomorrow() } });
    expect(res.status).toBe(t.status ?? 204);
    expect(await t.exists()).toBe(false);
  });

  it('deletes without the header', async () => {
    const t = await make();
    expect((await s.del(t.del)).status).toBe(t.status ?? 204);
    expect(await t.exists()).toBe(false);
  });
});

describe('If-Unmodified-Since parsing', () => {
  const badge = async () => (await targets['project badge']()) as Target;

  it('ignores a malformed date, as GitLab rescues the parse error', async () => {
    const t = await badge();
    expect((await s.del(t.del, { headers: { 'if-unmodified-since': 'not a date' } })).status).toBe(204);
    expect(await t.exists()).toBe(false);
  });

  it('reads ISO 8601 as well as the HTTP date, a zone-less time as UTC', async () => {
    const t = await badge();
    expect((await s.del(t.del, { headers: { 'if-unmodified-since': '2020-01-01T00:00:00' } })).status).toBe(412);
    expect((await s.del(t.del, { headers: { 'if-unmodified-since': '2020-01-01T00:00:00+02:00' } })).status).toBe(412);
    expect((await s.del(t.del, { headers: { 'if-unmodified-since': new Date(Date.now() + 86_400_000).toISOString() } })).status).toBe(204);
  });

  it('compares with the last update, not the creation', async () => {
    const t = await badge();
    const id = t.del.split('/').pop();
    await new Promise((r) => setTimeout(r, 1100));
    const afterCreate = new Date().toUTCString();
    await s.put(`/projects/${project.id}/badges/${id}`, { name: 'renamed' });
    expect((await s.del(t.del, { headers: { 'if-unmodified-since': afterCreate } })).status).toBe(412);
    expect(await t.exists()).toBe(true);
  });
});
