import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

// The service clock says 2020; the wall clock says later. `active` must follow the service clock.
let s: TestService;
beforeAll(async () => {
  s = await TestService.start({ clock: () => new Date('2020-01-01T12:00:00Z') });
});
afterAll(async () => s?.stop());

describe('personal access token entity under the service clock', () => {
  it('reports a token that authenticates as active', async () => {
    const { user } = await s.createUser();
    const created = await s.post(`/users/${user.id}/personal_access_tokens`, { name: 'clocked', scopes: ['api'], expires_at: '2020-06-01' });
    expect(created.status).toBe(201);
    expect(created.body.active).toBe(true);
    expect((await s.get('/user', { token: created.body.token })).status).toBe(200);
    const listed = await s.get('/personal_access_tokens', { query: { user_id: user.id } });
    expect(listed.body.find((t: any) => t.id === created.body.id).active).toBe(true);
  });
});
