import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

/**
 * A PUT to an issue or merge request that changes nothing, as GitLab's IssuableBaseService#update:
 * it sets updated_by to the caller and saves only if a column changed, updated_by included. The
 * first such PUT after another user's (or after creation, updated_by unset) moves updated_at; the
 * same PUT again by the same user saves nothing and updated_at stays, in the record and in lists.
 * A real change, another user, or an updated_at given move it as before.
 */
let nowMs = Date.parse('2026-03-01T10:00:00Z');
let s: TestService;
let p: string;
const tick = (): void => {
  nowMs += 60_000;
};

beforeAll(async () => {
  s = await TestService.start({ clock: () => new Date(nowMs) });
  const project = (await s.post('/projects', { name: 'unchanged-updates', initialize_with_readme: true })).body;
  p = `/projects/${project.id}`;
  await s.post(`${p}/repository/branches`, { branch: 'feature', ref: 'main' });
});
afterAll(async () => s?.stop());

describe('a PUT that changes nothing', () => {
  for (const kind of ['issues', 'merge_requests'] as const) {
    it(`leaves updated_at of ${kind} when the last updater repeats it`, async () => {
      const created = (
        await s.post(`${p}/${kind}`, kind === 'issues' ? { title: 'same', labels: 'a' } : { title: 'same', labels: 'a', source_branch: 'feature', target_branch: 'main' })
      ).body;
      const at = (): Promise<string> => s.get(`${p}/${kind}/${created.iid}`).then((r) => r.body.updated_at);
      const listed = (): Promise<string> => s.get(`${p}/${kind}`, { query: { order_by: 'updated_at' } }).then((r) => r.body.find((x: { iid: number }) => x.iid === created.iid).updated_at);
      const same = { title: 'same', labels: 'a' };

      tick();
      // updated_by was unset: the first PUT sets it, and the record is saved.
      const first = await s.put(`${p}/${kind}/${created.iid}`, same);
      expect(first.status).toBe(200);
      expect(first.body.updated_at).not.toBe(created.updated_at);
      const kept = first.body.updated_at;

      tick();
      const again = await s.put(`${p}/${kind}/${created.iid}`, same);
      expect(again.status).toBe(200);
      expect(again.body.updated_at).toBe(kept);
      expect(await at()).toBe(kept);
      expect(await listed()).toBe(kept);
      // A close on an open one is a change; the same close again is not.
      tick();
      const closed = (await s.put(`${p}/${kind}/${created.iid}`, { state_event: 'close' })).body;
      expect(closed.updated_at).not.toBe(kept);
      tick();
      expect((await s.put(`${p}/${kind}/${created.iid}`, { state_event: 'close' })).body.updated_at).toBe(closed.updated_at);

      // A real change moves it.
      tick();
      const retitled = (await s.put(`${p}/${kind}/${created.iid}`, { title: 'other' })).body;
      expect(retitled.updated_at).not.toBe(closed.updated_at);

      // Another user's PUT of the same values saves their updated_by, and so moves it.
      const { user, token } = await s.createUser();
      await s.addMember('projects', Number(p.split('/')[2]), user.id, 40);
      tick();
      const byOther = (await s.put(`${p}/${kind}/${created.iid}`, { title: 'other' }, { token })).body;
      expect(byOther.updated_at).not.toBe(retitled.updated_at);
      tick();
      expect((await s.put(`${p}/${kind}/${created.iid}`, { title: 'other' }, { token })).body.updated_at).toBe(byOther.updated_at);
    });
  }

  it('saves an updated_at given even when nothing else changes', async () => {
    const issue = (await s.post(`${p}/issues`, { title: 'dated' })).body;
    await s.put(`${p}/issues/${issue.iid}`, { title: 'dated' });
    const res = await s.put(`${p}/issues/${issue.iid}`, { title: 'dated', updated_at: '2026-02-01T00:00:00Z' });
    expect(res.body.updated_at).toBe('2026-02-01T00:00:00.000Z');
  });
});
