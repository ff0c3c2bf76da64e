import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../../helpers/service';
import { TestClock } from '../../helpers/world';

// Limits from the seed and GitLab, enforced: rate limits (Rack::Attack's API throttles), request
// body, upload and alert payload sizes, per_page, title and description lengths, snippet files.

let s: TestService;
const clock = new TestClock(new Date('2026-03-02T10:00:10Z'));

beforeAll(async () => {
  s = await TestService.start({ clock: clock.now, limits: { maxBodyBytes: 256 * 1024, maxUploadBytes: 64 * 1024, maxAlertPayloadBytes: 8 * 1024 } });
});
afterAll(async () => {
  await s.stop();
});

describe('API rate limits (throttle_*_api application settings)', () => {
  it('are off by default: a burst of requests is answered in full', async () => {
    const settings = (await s.get('/application/settings')).body;
    expect(settings.throttle_authenticated_api_enabled).toBe(false);
    expect(settings.throttle_unauthenticated_api_enabled).toBe(false);
    const statuses = await Promise.all(Array.from({ length: 30 }, () => s.get('/projects', { token: null }).then((r) => r.status)));
    expect(new Set(statuses)).toEqual(new Set([200]));
  });

  it('answers 429 "Retry later" with Retry-After and RateLimit headers past the unauthenticated limit, per IP', async () => {
    await s.put('/application/settings', {
      throttle_unauthenticated_api_enabled: true,
      throttle_unauthenticated_api_requests_per_period: 3,
      throttle_unauthenticated_api_period_in_seconds: 60,
    });
    try {
      for (let i = 0; i < 3; i++) expect((await s.get('/projects', { token: null })).status).toBe(200);
      const refused = await s.get('/projects', { token: null });
      expect(refused.status).toBe(429);
      expect(refused.text).toBe('Retry later\n');
      expect(refused.headers.get('content-type')).toMatch(/^text\/plain/);
      // The clock says hh:mm:10, so the 60 s window ends in 50 s.
      expect(refused.headers.get('retry-after')).toBe('50');
      expect(refused.headers.get('ratelimit-name')).toBe('throttle_unauthenticated_api');
      expect(refused.headers.get('ratelimit-limit')).toBe('3');
      expect(refused.headers.get('ratelimit-observed')).toBe('4');
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('ratelimit-resettime')).toBe('Mon, 02 Mar 2026 10:01:00 GMT');
      // Signed-in callers are counted apart (their own throttle, off here).
      expect((await s.get('/projects')).status).toBe(200);
      // A bad token is an anonymous caller to the throttle.
      expect((await s.get('/projects', { token: 'glpat-not-a-token' })).status).toBe(429);
      // The next window starts afresh.
      clock.advanceDays(1 / 1440);
      expect((await s.get('/projects', { token: null })).status).toBe(200);
    } finally {
      await s.put('/application/settings', { throttle_unauthenticated_api_enabled: false });
    }
  });

  it('counts signed-in callers per user and speaks the configured response text', async () => {
    const alice = await s.createUser();
    const bob = await s.createUser();
    await s.put('/application/settings', {
      throttle_authenticated_api_enabled: true,
      throttle_authenticated_api_requests_per_period: 2,
      throttle_authenticated_api_period_in_seconds: 3600,
      rate_limiting_response_text: 'Slow down, please',
    });
    try {
      expect((await s.get('/user', { token: alice.token })).status).toBe(200);
      expect((await s.get('/user', { token: alice.token })).status).toBe(200);
      const refused = await s.get('/user', { token: alice.token });
      expect(refused.status).toBe(429);
      expect(refused.text).toBe('Slow down, please\n');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.headers.get('ratelimit-limit')).toBe('1'); // 2 per hour, rounded up to a minute's share
      expect((await s.get('/user', { token: bob.token })).status).toBe(200);
    } finally {
      await s.put('/application/settings', { throttle_authenticated_api_enabled: false });
    }
    expect((await s.get('/user', { token: alice.token })).status).toBe(200);
  });
});

describe('size and length limits', () => {
  it('caps per_page at 100', async () => {
    const res = await s.get('/projects', { query: { per_page: 1000 } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-per-page')).toBe('100');
  });

  it('answers 413 to a JSON body over limits.maxBodyBytes, and nothing is written', async () => {
    const before = (await s.get('/projects')).body.length;
    const res = await s.post('/projects', { name: 'big', description: 'x'.repeat(300 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: '413 Request Entity Too Large' });
    expect((await s.get('/projects')).body.length).toBe(before);
  });

  it('answers 413 to an upload over limits.maxUploadBytes and keeps no file', async () => {
    const project = await s.createProject();
    const fd = new FormData();
    fd.append('file', new Blob([new Uint8Array(65 * 1024)]), 'big.bin');
    const res = await s.post(`/projects/${project.id}/uploads`, undefined, { multipart: fd });
    expect(res.status).toBe(413);
    expect((await s.get(`/projects/${project.id}/uploads`)).body).toEqual([]);
  });

  it('answers 400 to an alert payload over limits.maxAlertPayloadBytes', async () => {
    const project = await s.createProject();
    const integration = (await s.post(`/projects/${project.id}/alert_management/integrations`, { name: 'limits', type: 'http', active: true })).body;
    const url = new URL(integration.url);
    const res = await s.api('POST', `${s.url}${url.pathname}`, { token: null, body: { title: 'big', description: 'x'.repeat(9 * 1024) }, headers: { authorization: `Bearer ${integration.token}` } });
    expect(res.status).toBe(400);
    expect((await s.get(`/projects/${project.id}/alert_management/alerts`)).body).toEqual([]);
  });

  it("holds issues and merge requests to Issuable's title (255) and description (1 MiB) limits", async () => {
    const project = await s.createProject();
    const base = `/projects/${project.id}`;
    const longTitle = 'x'.repeat(256);
    expect((await s.post(`${base}/issues`, { title: longTitle })).body).toEqual({ message: { title: ['is too long (maximum is 255 characters)'] } });
    expect((await s.post(`${base}/merge_requests`, { title: longTitle, source_branch: 'a', target_branch: 'main' })).body).toEqual({
      message: { title: ['is too long (maximum is 255 characters)'] },
    });
    const mr = (await s.post(`${base}/merge_requests`, { title: 'ok', source_branch: 'a', target_branch: 'main' })).body;
    expect((await s.put(`${base}/merge_requests/${mr.iid}`, { title: longTitle })).status).toBe(400);
    expect((await s.put(`${base}/merge_requests/${mr.iid}`, { title: null })).body).toEqual({ message: { title: ["can't be blank"] } });
  });

  it('holds a project name to 255 characters', async () => {
    const res = await s.post('/projects', { name: 'x'.repeat(256), path: 'long-name' });
    expect(res.status).toBe(400);
    expect(res.body.message.name).toEqual(['is too long (maximum is 255 characters)']);
  });
});

describe('null where a value is required', () => {
  it('answers 400 validation errors, never a 500 (POST /projects, PUT /users/:id)', async () => {
    expect((await s.post('/projects', { path: null })).body).toEqual({ message: { name: ["can't be blank"], path: ["can't be blank"] } });
    const user = await s.createUser();
    const res = await s.put(`/users/${user.user.id}`, { username: null });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { username: ["can't be blank"] } });
  });
});
