import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

describe('application settings the core honours', () => {
  it('creates projects and groups with the default visibilities, never above their group', async () => {
    expect((await s.createProject({ name: 'default-private' })).visibility).toBe('private');
    await s.put('/application/settings', { default_project_visibility: 'internal', default_group_visibility: 'public' });
    expect((await s.createProject({ name: 'now-internal' })).visibility).toBe('internal');
    const top = await s.createGroup({ path: 'open-top' });
    expect(top.visibility).toBe('public');
    const closed = await s.createGroup({ path: 'closed-top', visibility: 'private' });
    expect((await s.createGroup({ path: 'sub', parent_id: closed.id })).visibility).toBe('private');
    expect((await s.createProject({ name: 'in-private', namespace_id: closed.id })).visibility).toBe('private');
    expect((await s.createProject({ name: 'explicit', visibility: 'public' })).visibility).toBe('public');
  });
});
