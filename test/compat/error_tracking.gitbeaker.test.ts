import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { type Served, startServe } from './harness';

let served: Served;
let api: InstanceType<typeof Gitlab>;
let projectId: number;

beforeAll(async () => {
  served = await startServe();
  api = new Gitlab({ host: served.url, token: served.token });
  projectId = ((await api.Projects.create({ name: 'error-tracking-compat' })) as { id: number }).id;
});
afterAll(async () => served?.stop());

describe('gitbeaker ErrorTrackingSettings / ErrorTrackingClientKeys', () => {
  it('show fails with 404 before any setting, create (PUT with query params) makes one', async () => {
    await expect(api.ErrorTrackingSettings.show(projectId)).rejects.toMatchObject({ cause: { response: { status: 404 } } });
    const created = await api.ErrorTrackingSettings.create(projectId, true, true);
    expect(created).toMatchObject({ active: true, integrated: true, sentry_external_url: null, errortracker_external_url: null });
    expect(await api.ErrorTrackingSettings.show(projectId)).toMatchObject({ active: true, integrated: true });
  });

  it('edit (PATCH with query params) changes active and keeps integrated', async () => {
    const edited = await api.ErrorTrackingSettings.edit(projectId, false);
    expect(edited).toMatchObject({ active: false, integrated: true });
    const both = await api.ErrorTrackingSettings.edit(projectId, true, { integrated: false });
    expect(both).toMatchObject({ active: true, integrated: false });
  });

  it('creates and lists client keys', async () => {
    const key = (await api.ErrorTrackingClientKeys.create(projectId)) as Record<string, unknown>;
    expect(key.public_key).toMatch(/^glet_[0-9a-f]{32}$/);
    expect(key.sentry_dsn).toBe(`${served.url.replace('://', `://${key.public_key as string}@`)}/api/v4/error_tracking/collector/${projectId}`);
    const all = (await api.ErrorTrackingClientKeys.all(projectId)) as Record<string, unknown>[];
    expect(all.map((k) => k.id)).toEqual([key.id]);
  });

  it('remove (no key id, a gitbeaker bug) gets the 405 Grape answers for a path known to other methods', async () => {
    await expect(api.ErrorTrackingClientKeys.remove(projectId)).rejects.toMatchObject({ cause: { response: { status: 405 } } });
  });
});
