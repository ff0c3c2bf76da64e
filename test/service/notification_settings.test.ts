import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

const EVENTS = [
  'new_release', 'new_note', 'new_issue', 'reopen_issue', 'close_issue', 'reassign_issue', 'issue_due', 'new_merge_request',
  'push_to_merge_request', 'reopen_merge_request', 'close_merge_request', 'reassign_merge_request', 'change_reviewer_merge_request',
  'merge_merge_request', 'failed_pipeline', 'fixed_pipeline', 'success_pipeline', 'moved_project', 'merge_when_pipeline_succeeds', 'new_epic',
];

describe('global notification settings', () => {
  it('reads participating and the primary e-mail by default', async () => {
    const u = await s.createUser();
    const res = await s.get('/notification_settings', { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ level: 'participating', notification_email: u.user.email });
  });

  it('changes the level and keeps it', async () => {
    const u = await s.createUser();
    const res = await s.put('/notification_settings', { level: 'watch' }, { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ level: 'watch', notification_email: u.user.email });
    expect((await s.get('/notification_settings', { token: u.token })).body.level).toBe('watch');
  });

  it('answers 400 for an unknown level', async () => {
    const u = await s.createUser();
    const res = await s.put('/notification_settings', { level: 'loud' }, { token: u.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "'loud' is not a valid level" });
  });

  it('refuses a notification e-mail the user does not own', async () => {
    const u = await s.createUser();
    const res = await s.put('/notification_settings', { notification_email: 'someone@else.org' }, { token: u.token });
    expect(res.status).toBe(400);
    expect(res.body.message).toHaveProperty('notification_email');
    const own = await s.put('/notification_settings', { notification_email: u.user.email }, { token: u.token });
    expect(own.body.notification_email).toBe(u.user.email);
  });

  it('needs authentication', async () => {
    expect((await s.get('/notification_settings', { token: null })).status).toBe(401);
  });
});

describe.each(['projects', 'groups'] as const)('%s notification settings', (kind) => {
  const source = async () => (kind === 'projects' ? s.createProject() : s.createGroup());

  it('reads global by default, without events', async () => {
    const src = await source();
    const res = await s.get(`/${kind}/${src.id}/notification_settings`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ level: 'global' });
  });

  it('shows all twenty events as null at level custom, then the flags set', async () => {
    const src = await source();
    const res = await s.put(`/${kind}/${src.id}/notification_settings`, { level: 'custom' });
    expect(res.body.level).toBe('custom');
    expect(Object.keys(res.body.events)).toEqual(EVENTS);
    expect(Object.values(res.body.events).every((v) => v === null)).toBe(true);
    const flags = await s.api('PUT', `/${kind}/${src.id}/notification_settings`, { form: { new_note: 'true', close_issue: 'false', approver: 'true' } });
    expect(flags.body.events).toMatchObject({ new_note: true, close_issue: false, new_issue: null });
    expect(flags.body.events).not.toHaveProperty('approver');
  });

  it('stores event flags without switching the level to custom', async () => {
    const src = await source();
    const res = await s.put(`/${kind}/${src.id}/notification_settings`, { level: 'watch', new_issue: true });
    expect(res.body).toEqual({ level: 'watch' });
    const custom = await s.put(`/${kind}/${src.id}/notification_settings`, { level: 'custom' });
    expect(custom.body.events.new_issue).toBe(true);
  });

  it('answers 400 for an unknown level and 404 for an invisible source', async () => {
    const src = await source();
    const bad = await s.put(`/${kind}/${src.id}/notification_settings`, { level: 'sometimes' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: "'sometimes' is not a valid level" });
    const u = await s.createUser();
    expect((await s.get(`/${kind}/${src.id}/notification_settings`, { token: u.token })).status).toBe(404);
  });

  it('keeps settings per user', async () => {
    const src = await source();
    const u = await s.createUser();
    await s.addMember(kind, src.id, u.user.id, 30);
    await s.put(`/${kind}/${src.id}/notification_settings`, { level: 'disabled' }, { token: u.token });
    expect((await s.get(`/${kind}/${src.id}/notification_settings`, { token: u.token })).body).toEqual({ level: 'disabled' });
    expect((await s.get(`/${kind}/${src.id}/notification_settings`)).body).toEqual({ level: 'global' });
  });
});
