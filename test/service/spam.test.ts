import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

// The local spam check (Sandlab's stand-in for GitLab's spam service) and GitLab's CAPTCHA retry.

let s: TestService;
let project: any;
beforeAll(async () => {
  s = await TestService.start();
  project = await s.createProject({ visibility: 'public' });
});
afterAll(async () => s?.stop());

const SPAM = 'Buy CHEAP pills now';
const PRIVATE_KEY = 'local-private-key';
const solve = (spamLogId: number, key = PRIVATE_KEY) => createHmac('sha256', key).update(String(spamLogId)).digest('hex');

const settings = async (body: Record<string, unknown>) => {
  const res = await s.put('/application/settings', body);
  expect(res.status).toBe(200);
  return res.body;
};
const snippetBody = (content: string) => ({ title: 'A snippet', visibility: 'public', files: [{ file_path: 'a.txt', content }] });
const issueCount = async () => Number((await s.get(`/projects/${project.id}/issues`)).headers.get('x-total'));

describe('spam check off (the default)', () => {
  it('has the settings off and lets matching content through', async () => {
    const current = (await s.get('/application/settings')).body;
    expect(current).toMatchObject({ sandlab_spam_check_enabled: false, sandlab_spam_patterns: [], recaptcha_enabled: false, allow_possible_spam: false });
    expect((await s.post('/snippets', snippetBody(SPAM))).status).toBe(201);
  });

  it('refuses reCAPTCHA without its keys, as Grape requires them', async () => {
    const res = await s.put('/application/settings', { recaptcha_enabled: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'recaptcha_site_key is missing, recaptcha_private_key is missing' });
  });
});

describe('spam check on, without reCAPTCHA', () => {
  beforeAll(async () => {
    await settings({ sandlab_spam_check_enabled: true, sandlab_spam_patterns: 'cheap pills,casino', recaptcha_enabled: false });
  });

  it('refuses a personal snippet with 400 and GitLab’s body, and keeps a spam log', async () => {
    const before = (await s.get('/snippets')).body.length;
    const res = await s.post('/snippets', snippetBody(`hello\n${SPAM}`));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { error: 'Your snippet has been recognized as spam and has been discarded.' } });
    expect((await s.get('/snippets')).body.length).toBe(before);
    const logs = await s.get('/sandlab/spam_logs');
    expect(logs.status).toBe(200);
    expect(logs.body[0]).toMatchObject({ noteable_type: 'PersonalSnippet', title: 'A snippet', user_id: 1, via_api: true, recaptcha_verified: false });
  });

  it('refuses a project snippet whose title matches, and one updated to match', async () => {
    const res = await s.post(`/projects/${project.id}/snippets`, { ...snippetBody('fine'), title: 'Casino night' });
    expect(res.status).toBe(400);
    expect(res.body.message.error).toBe('Your snippet has been recognized as spam and has been discarded.');
    const ok = await s.post(`/projects/${project.id}/snippets`, snippetBody('fine'));
    expect(ok.status).toBe(201);
    const upd = await s.put(`/projects/${project.id}/snippets/${ok.body.id}`, { files: [{ action: 'update', file_path: 'a.txt', content: SPAM }] });
    expect(upd.status).toBe(400);
    expect((await s.get(`/projects/${project.id}/snippets/${ok.body.id}/raw`)).text).toBe('fine');
  });

  it('refuses an issue with render_validation_error!’s shape', async () => {
    const before = await issueCount();
    const res = await s.post(`/projects/${project.id}/issues`, { title: 'Hi', description: SPAM });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { base: ['Your issue has been recognized as spam and has been discarded.'] } });
    expect(await issueCount()).toBe(before);
  });

  it('checks an issue update only when it changes the text', async () => {
    const created = await s.post(`/projects/${project.id}/issues`, { title: 'Clean' });
    expect(created.status).toBe(201);
    const spammy = await s.put(`/projects/${project.id}/issues/${created.body.iid}`, { title: 'casino' });
    expect(spammy.status).toBe(400);
    expect(spammy.body.message.base[0]).toMatch(/^Your issue has been recognized as spam/);
    expect((await s.put(`/projects/${project.id}/issues/${created.body.iid}`, { labels: 'x' })).status).toBe(200);
  });

  it('refuses a merge request on create and update', async () => {
    const res = await s.post(`/projects/${project.id}/merge_requests`, { title: SPAM, source_branch: 'spam', target_branch: 'main' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { base: ['Your merge request has been recognized as spam and has been discarded.'] } });
    const mr = await s.post(`/projects/${project.id}/merge_requests`, { title: 'ok', source_branch: 'ok', target_branch: 'main' });
    expect(mr.status).toBe(201);
    expect((await s.put(`/projects/${project.id}/merge_requests/${mr.body.iid}`, { description: SPAM })).status).toBe(400);
  });

  it('lets possible spam through where allow_possible_spam says so, except snippets', async () => {
    await settings({ allow_possible_spam: true });
    try {
      const logsBefore = Number((await s.get('/sandlab/spam_logs')).headers.get('x-total'));
      expect((await s.post(`/projects/${project.id}/issues`, { title: SPAM })).status).toBe(201);
      expect(Number((await s.get('/sandlab/spam_logs')).headers.get('x-total'))).toBe(logsBefore + 1);
      expect((await s.post('/snippets', snippetBody(SPAM))).status).toBe(400);
    } finally {
      await settings({ allow_possible_spam: false });
    }
  });

  it('lists spam logs for administrators only', async () => {
    const u = await s.createUser();
    expect((await s.get('/sandlab/spam_logs', { token: u.token })).status).toBe(403);
    const refused = await s.post(`/projects/${project.id}/issues`, { title: SPAM }, { token: u.token });
    expect(refused.status).toBe(400);
    const mine = await s.get('/sandlab/spam_logs', { query: { user_id: u.user.id } });
    expect(mine.body).toHaveLength(1);
    expect(mine.body[0]).toMatchObject({ user_id: u.user.id, noteable_type: 'Issue', title: SPAM, description: null });
    expect((await s.get(`/sandlab/spam_logs/${mine.body[0].id}`)).body.id).toBe(mine.body[0].id);
    expect((await s.get('/sandlab/spam_logs/999999')).status).toBe(404);
  });
});

describe('spam check on, with reCAPTCHA', () => {
  beforeAll(async () => {
    await settings({ sandlab_spam_check_enabled: true, sandlab_spam_patterns: ['cheap pills'], recaptcha_enabled: true, recaptcha_site_key: 'site-key', recaptcha_private_key: PRIVATE_KEY });
  });

  it('answers 409 needs_captcha_response and accepts the solved resubmission once', async () => {
    const first = await s.post('/snippets', snippetBody(SPAM));
    expect(first.status).toBe(409);
    expect(Object.keys(first.body)).toEqual(['needs_captcha_response', 'spam_log_id', 'captcha_site_key', 'message']);
    expect(first.body).toEqual({
      needs_captcha_response: true,
      spam_log_id: expect.any(Number),
      captcha_site_key: 'site-key',
      message: { error: 'Your snippet has been recognized as spam. Please, change the content or solve the reCAPTCHA to proceed.' },
    });
    const id = first.body.spam_log_id;

    const wrong = await s.post('/snippets', snippetBody(SPAM), { headers: { 'X-GitLab-Captcha-Response': 'nope', 'X-GitLab-Spam-Log-Id': String(id) } });
    expect(wrong.status).toBe(409);
    expect(wrong.body.spam_log_id).toBeGreaterThan(id);

    const solved = await s.post('/snippets', snippetBody(SPAM), { headers: { 'X-GitLab-Captcha-Response': solve(id), 'X-GitLab-Spam-Log-Id': String(id) } });
    expect(solved.status).toBe(201);
    expect((await s.get(`/sandlab/spam_logs/${id}`)).body.recaptcha_verified).toBe(true);

    const reused = await s.post('/snippets', snippetBody(SPAM), { headers: { 'X-GitLab-Captcha-Response': solve(id), 'X-GitLab-Spam-Log-Id': String(id) } });
    expect(reused.status).toBe(409);
  });

  it('takes the reference’s X-Service-* headers too, for issues', async () => {
    const first = await s.post(`/projects/${project.id}/issues`, { title: SPAM });
    expect(first.status).toBe(409);
    expect(first.body.message).toEqual({ error: 'Your issue has been recognized as spam. Please, change the content or solve the reCAPTCHA to proceed.' });
    const id = first.body.spam_log_id;
    const solved = await s.post(`/projects/${project.id}/issues`, { title: SPAM }, { headers: { 'X-Service-Captcha-Response': solve(id), 'X-Service-Spam-Log-Id': String(id) } });
    expect(solved.status).toBe(201);
    expect(solved.body.title).toBe(SPAM);
  });

  it('refuses a solution for another user’s spam log, or under another key', async () => {
    const first = await s.post(`/projects/${project.id}/issues`, { title: SPAM });
    const id = first.body.spam_log_id;
    const u = await s.createUser();
    const theirs = await s.post('/snippets', snippetBody(SPAM), { token: u.token, headers: { 'X-GitLab-Captcha-Response': solve(id), 'X-GitLab-Spam-Log-Id': String(id) } });
    expect(theirs.status).toBe(409);
    const otherKey = await s.post(`/projects/${project.id}/issues`, { title: SPAM }, { headers: { 'X-GitLab-Captcha-Response': solve(id, 'other'), 'X-GitLab-Spam-Log-Id': String(id) } });
    expect(otherKey.status).toBe(409);
  });

  it('still discards a merge request outright (no CAPTCHA for merge requests)', async () => {
    const res = await s.post(`/projects/${project.id}/merge_requests`, { title: SPAM, source_branch: 'captcha', target_branch: 'main' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { base: ['Your merge request has been recognized as spam and has been discarded.'] } });
  });
});
