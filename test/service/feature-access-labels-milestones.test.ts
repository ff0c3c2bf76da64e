import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';

/**
 * A project's labels and milestones where neither its issues nor its merge requests are available to
 * the caller (ProjectPolicy: `issues_disabled & merge_requests_disabled` prevents read, create,
 * update, admin and destroy of labels and milestones; feature-access.ts): labels as LabelsFinder
 * without the project (an empty list, 404 Label Not Found for one, 403 to create or update),
 * milestones through `authorize! :read_milestone` / `:admin_milestone` (403). One feature available
 * is enough. Group and instance milestone searches leave those projects out, events their
 * milestones.
 */
let s: TestService;
let group: { id: number };
const p: Record<'off' | 'half' | 'priv', { id: number }> = {} as never;
const u: Record<'guest' | 'outsider', { user: { id: number }; token: string }> = {} as never;
const labelId: Record<string, number> = {};
const milestoneId: Record<string, number> = {};

beforeAll(async () => {
  s = await TestService.start();
  for (const name of ['guest', 'outsider'] as const) u[name] = await s.createUser({ username: `falm-${name}` });
  group = await s.createGroup({ path: 'falm', visibility: 'public' });
  for (const name of ['off', 'half', 'priv'] as const) {
    p[name] = await s.createProject({ name: `falm-${name}`, namespace_id: group.id, visibility: 'public' });
    labelId[name] = ok(await s.post(`/projects/${p[name].id}/labels`, { name: `label-${name}`, color: '#FF0000' })).id;
    milestoneId[name] = ok(await s.post(`/projects/${p[name].id}/milestones`, { title: `milestone ${name}` })).id;
  }
  await s.addMember('projects', p.priv.id, u.guest.user.id, 10);
  ok(await s.put(`/projects/${p.off.id}`, { issues_access_level: 'disabled', merge_requests_access_level: 'disabled' }));
  ok(await s.put(`/projects/${p.half.id}`, { issues_access_level: 'disabled' }));
  ok(await s.put(`/projects/${p.priv.id}`, { issues_access_level: 'private', merge_requests_access_level: 'private' }));
}, 120_000);
afterAll(async () => s?.stop());

type Who = 'root' | keyof typeof u;
const as = (who: Who) => ({ token: who === 'root' ? undefined : u[who].token });

describe('labels', () => {
  it('hidden where neither issues nor merge requests are available: an empty list, 404 for one, 403 to write', async () => {
    for (const [who, name] of [['root', 'off'], ['outsider', 'priv']] as const) {
      const base = `/projects/${p[name].id}/labels`;
      const list = await s.get(base, as(who));
      expect(list.status).toBe(200);
      expect(list.body).toEqual([]);
      const empty = await s.get(`/projects/${p.half.id}/labels`, { ...as(who), query: { search: 'nothing like it' } });
      for (const h of ['x-total', 'x-total-pages', 'x-per-page', 'x-page', 'x-next-page', 'x-prev-page']) expect(list.headers.get(h), h).toBe(empty.headers.get(h));
      expect((await s.get(`${base}/${labelId[name]}`, as(who))).body).toEqual({ message: '404 Label Not Found' });
      if (who === 'root') {
        expect((await s.post(base, { name: 'new', color: '#00FF00' })).status).toBe(403);
        expect((await s.put(`${base}/${labelId[name]}`, { color: '#00FF00' })).status).toBe(403);
        expect((await s.del(`${base}/${labelId[name]}`)).body).toEqual({ message: '404 Label Not Found' });
        expect((await s.put(`${base}/${labelId[name]}/promote`, {})).body).toEqual({ message: '404 Label Not Found' });
      }
      expect((await s.post(`${base}/${labelId[name]}/subscribe`, {}, as(who))).body).toEqual({ message: '404 Label Not Found' });
    }
    expect((await s.get(`/projects/${p.off.id}/labels/${labelId.off}`)).status).toBe(404);
  });

  it('readable with one of the two available', async () => {
    const names = async (name: 'half' | 'priv', who: Who) => ((ok(await s.get(`/projects/${p[name].id}/labels`, as(who))) as { name: string }[]).map((l) => l.name));
    expect(await names('half', 'outsider')).toEqual(['label-half']);
    expect(await names('priv', 'guest')).toEqual(['label-priv']);
    expect(await names('priv', 'root')).toEqual(['label-priv']);
    expect(ok(await s.put(`/projects/${p.half.id}/labels/${labelId.half}`, { color: '#00FF00' }))).toMatchObject({ color: '#00FF00' });
  });
});

describe('milestones', () => {
  it('403 where neither issues nor merge requests are available, reads and writes alike', async () => {
    for (const [who, name] of [['root', 'off'], ['outsider', 'priv']] as const) {
      const base = `/projects/${p[name].id}/milestones`;
      for (const path of [base, `${base}/${milestoneId[name]}`, `${base}/${milestoneId[name]}/issues`, `${base}/${milestoneId[name]}/merge_requests`]) {
        expect((await s.get(path, as(who))).status, `${who} ${path}`).toBe(403);
      }
    }
    const base = `/projects/${p.off.id}/milestones`;
    expect((await s.post(base, { title: 'new' })).status).toBe(403);
    expect((await s.put(`${base}/${milestoneId.off}`, { title: 'renamed' })).status).toBe(403);
    expect((await s.del(`${base}/${milestoneId.off}`)).status).toBe(403);
    expect((await s.post(`${base}/${milestoneId.off}/promote`, {})).status).toBe(403);
    const titles = async (name: 'half' | 'priv', who: Who) => ((ok(await s.get(`/projects/${p[name].id}/milestones`, as(who))) as { title: string }[]).map((m) => m.title));
    expect(await titles('half', 'outsider')).toEqual(['milestone half']);
    expect(await titles('priv', 'guest')).toEqual(['milestone priv']);
  });

  it('group and instance searches leave out the milestones of those projects; events too', async () => {
    const found = async (path: string, who: Who) =>
      ((ok(await s.get(path, { ...as(who), query: { scope: 'milestones', search: 'milestone' } })) as { title: string }[]).map((m) => m.title).sort());
    for (const path of [`/groups/${group.id}/search`, '/search']) {
      expect(await found(path, 'root')).toEqual(['milestone half', 'milestone priv']);
      expect(await found(path, 'guest')).toEqual(['milestone half', 'milestone priv']);
      expect(await found(path, 'outsider')).toEqual(['milestone half']);
    }
    const milestoneEvents = async (name: 'off' | 'half', who: Who) =>
      (ok(await s.get(`/projects/${p[name].id}/events`, { ...as(who), query: { target_type: 'milestone' } })) as unknown[]).length;
    expect(await milestoneEvents('off', 'root')).toBe(0);
    expect(await milestoneEvents('half', 'root')).toBe(1);
  });
});
