import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start({ limits: { maxAlertPayloadBytes: 64 * 1024 } });
});
afterAll(async () => s.stop());

interface Integration {
  id: number;
  url: string;
  token: string;
}

async function setup(type: 'http' | 'prometheus' = 'http'): Promise<{ project: any; integration: Integration }> {
  const group = await s.createGroup();
  const sub = await s.createGroup({ parent_id: group.id });
  const project = await s.createProject({ namespace_id: sub.id });
  const created = await s.post(`/projects/${project.id}/alert_management/integrations`, { name: `My ${type} integration`, type });
  expect(created.status).toBe(201);
  return { project, integration: created.body };
}

/** POSTs a payload to a receiver URL; `key` as Bearer unless `headers` say otherwise. */
async function notify(url: string, key: string | null, payload: unknown, headers: Record<string, string> = {}) {
  const h: Record<string, string> = { 'content-type': 'application/json', ...headers };
  if (key !== null && !h.authorization) h.authorization = `Bearer ${key}`;
  const res = await fetch(url, { method: 'POST', headers: h, body: typeof payload === 'string' ? payload : JSON.stringify(payload) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, contentType: res.headers.get('content-type') };
}

const metricsPayload = (alerts: Record<string, unknown>[]) => ({
  version: '4',
  groupKey: '{}:{alertname="HighLatency"}',
  status: 'firing',
  receiver: 'gitlab',
  groupLabels: { alertname: 'HighLatency' },
  commonLabels: { alertname: 'HighLatency' },
  commonAnnotations: {},
  externalURL: 'http://alertmanager:9093',
  alerts,
});

const metricsItem = (over: Record<string, unknown> = {}) => ({
  status: 'firing',
  labels: { alertname: 'HighLatency', severity: 's3', gitlab_environment_name: 'production' },
  annotations: { summary: 'Latency is high', description: 'p99 above 1s', runbook: 'https://runbooks/latency', gitlab_incident_markdown: '**x**', owner: 'sre' },
  startsAt: '2020-04-27T10:10:22.265949279Z',
  endsAt: '0001-01-01T00:00:00Z',
  generatorURL: 'http://prometheus:9090/graph?g0.expr=histogram_quantile%280.99%29&g0.tab=1',
  ...over,
});

describe('alert integrations (Sandlab-only REST)', () => {
  it('creates an integration with its receiver URL and key, shown only on create and reset', async () => {
    const { project, integration } = await setup();
    expect(integration).toMatchObject({ name: 'My http integration', type: 'http', active: true });
    expect(integration.token).toMatch(/^[0-9a-f]{32}$/);
    expect(integration.url).toMatch(
      new RegExp(`^${s.url}/${project.path_with_namespace}/alerts/notify/my-http-integration/[0-9a-f]{16}\\.json$`),
    );
    const list = await s.get(`/projects/${project.id}/alert_management/integrations`);
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).not.toHaveProperty('token');
    expect(list.body[0].url).toBe(integration.url);

    const reset = await s.post(`/projects/${project.id}/alert_management/integrations/${integration.id}/reset_token`);
    expect(reset.status).toBe(200);
    expect(reset.body.token).toMatch(/^[0-9a-f]{32}$/);
    expect(reset.body.token).not.toBe(integration.token);
    expect((await notify(integration.url, integration.token, {})).status).toBe(401);
    expect((await notify(integration.url, reset.body.token, {})).status).toBe(200);
  });

  it('gives the metrics type the project prometheus URL', async () => {
    const { project, integration } = await setup('prometheus');
    expect(integration.url).toBe(`${s.url}/${project.path_with_namespace}/prometheus/alerts/notify.json`);
  });

  it('updates name and active, and deletes', async () => {
    const { project, integration } = await setup();
    const base = `/projects/${project.id}/alert_management/integrations/${integration.id}`;
    const upd = await s.put(base, { name: 'Renamed', active: false });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ name: 'Renamed', active: false });
    expect(upd.body).not.toHaveProperty('token');
    expect((await s.get(base)).body.name).toBe('Renamed');
    expect((await s.del(base)).status).toBe(204);
    expect((await s.get(base)).status).toBe(404);
    expect((await s.get(base)).body).toEqual({ message: '404 Integration Not Found' });
  });

  it('validates the name and type', async () => {
    const project = await s.createProject();
    const path = `/projects/${project.id}/alert_management/integrations`;
    expect((await s.post(path, {})).body).toEqual({ error: 'name is missing' });
    expect((await s.post(path, { name: 'x', type: 'pagerduty' })).body).toEqual({ error: 'type does not have a valid value' });
    const blank = await s.post(path, { name: '  ' });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ message: { name: ["can't be blank"] } });
  });

  it('allows several integrations of one kind', async () => {
    const { project, integration } = await setup();
    const second = await s.post(`/projects/${project.id}/alert_management/integrations`, { name: 'Second' });
    expect(second.status).toBe(201);
    expect(second.body.url).not.toBe(integration.url);
    expect((await notify(second.body.url, second.body.token, { title: 'from second' })).status).toBe(200);
    expect((await notify(integration.url, second.body.token, { title: 'wrong key' })).status).toBe(401);
  });

  it('needs Maintainer to manage integrations and Developer to send a test alert', async () => {
    const { project, integration } = await setup();
    const dev = await s.createUser();
    await s.addMember('projects', project.id, dev.user.id, 30);
    const base = `/projects/${project.id}/alert_management/integrations`;
    expect((await s.get(base, { token: dev.token })).status).toBe(403);
    expect((await s.post(base, { name: 'x' }, { token: dev.token })).status).toBe(403);
    const test = await s.post(`${base}/${integration.id}/test`, { title: 'Test alert', severity: 'low' }, { token: dev.token });
    expect(test.status).toBe(200);
    expect(test.body).toEqual([{ iid: 1, title: 'Test alert' }]);
    const reporter = await s.createUser();
    await s.addMember('projects', project.id, reporter.user.id, 20);
    expect((await s.post(`${base}/${integration.id}/test`, {}, { token: reporter.token })).status).toBe(403);
    const stranger = await s.createUser();
    expect((await s.get(base, { token: stranger.token })).status).toBe(404);
  });

  it('sends a whole metrics payload as a test alert to a metrics integration', async () => {
    const { project, integration } = await setup('prometheus');
    const base = `/projects/${project.id}/alert_management/integrations/${integration.id}/test`;
    const ok = await s.post(base, metricsPayload([metricsItem()]));
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual([{ iid: 1, title: 'Latency is high' }]);
    expect((await s.post(base, { title: 'not a metrics payload' })).status).toBe(422);
  });
});

describe('generic HTTP receiver', () => {
  it('creates an alert with every field of the reference and keeps extra nested fields', async () => {
    const { project, integration } = await setup();
    const payload = {
      title: 'Incident title',
      description: 'Disk full',
      start_time: '2019-09-12T06:00:55Z',
      service: 'db',
      monitoring_tool: 'Zabbix',
      hosts: ['db-1', 'db-2'],
      severity: 'High',
      fingerprint: ['disk', 'db'],
      platform_environment_name: 'production',
      runbook: 'https://runbooks/disk',
      custom: { nested: { deep: [1, 2] } },
    };
    const res = await notify(integration.url, integration.token, payload);
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/json');
    expect(res.body).toEqual([{ iid: 1, title: 'Incident title' }]);
    const a = (await s.get(`/projects/${project.id}/alert_management/alerts/1`)).body;
    expect(a).toMatchObject({
      iid: 1,
      title: 'Incident title',
      description: 'Disk full',
      status: 'triggered',
      severity: 'high',
      started_at: '2019-09-12T06:00:55.000Z',
      ended_at: null,
      events: 1,
      service: 'db',
      monitoring_tool: 'Zabbix',
      hosts: ['db-1', 'db-2'],
      environment: 'production',
      runbook: 'https://runbooks/disk',
      payload,
    });
    expect(a.fingerprint).toMatch(/^[0-9a-f]{40}$/);
    expect(a.created_at).toMatch(/Z$/);
    expect(a.updated_at).toMatch(/Z$/);
  });

  it('fills the defaults: "New: Alert", critical, start time now, string hosts', async () => {
    const { project, integration } = await setup();
    const before = Date.now();
    const res = await notify(integration.url, integration.token, { hosts: 'web-1', severity: 'nonsense', gitlab_environment_name: 'staging' });
    expect(res.body).toEqual([{ iid: 1, title: 'New: Alert' }]);
    const a = (await s.get(`/projects/${project.id}/alert_management/alerts/1`)).body;
    expect(a).toMatchObject({ severity: 'critical', hosts: ['web-1'], environment: 'staging', description: null, service: null });
    expect(new Date(a.started_at).getTime()).toBeGreaterThanOrEqual(before - 1000);
    const empty = await notify(integration.url, integration.token, '');
    expect(empty.status).toBe(200);
  });

  it('maps severity case-insensitively, including unknown', async () => {
    const { project, integration } = await setup();
    const words = ['CRITICAL', 'high', 'Medium', 'LOW', 'info', 'Unknown'];
    for (const [i, w] of words.entries()) await notify(integration.url, integration.token, { title: `sev ${i}`, severity: w });
    const list = (await s.get(`/projects/${project.id}/alert_management/alerts`)).body;
    expect(list.map((a: any) => a.severity)).toEqual(['critical', 'high', 'medium', 'low', 'info', 'unknown']);
  });

  it('groups repeats of an open alert by fingerprint and counts events', async () => {
    const { project, integration } = await setup();
    for (let i = 0; i < 3; i++) {
      const res = await notify(integration.url, integration.token, { title: 'Same', fingerprint: 'fp-1', start_time: `2020-01-0${i + 1}T00:00:00Z` });
      expect(res.body).toEqual([{ iid: 1, title: 'Same' }]);
    }
    const a = (await s.get(`/projects/${project.id}/alert_management/alerts/1`)).body;
    expect(a.events).toBe(3);
    expect((await s.get(`/projects/${project.id}/alert_management/alerts`)).body).toHaveLength(1);
  });

  it('derives the fingerprint from the payload without start_time, end_time and hosts', async () => {
    const { project, integration } = await setup();
    await notify(integration.url, integration.token, { title: 'Auto', service: 'api', hosts: 'a', start_time: '2020-01-01T00:00:00Z' });
    await notify(integration.url, integration.token, { title: 'Auto', service: 'api', hosts: ['b'], start_time: '2020-02-01T00:00:00Z' });
    await notify(integration.url, integration.token, { title: 'Auto', service: 'other' });
    const list = (await s.get(`/projects/${project.id}/alert_management/alerts`)).body;
    expect(list.map((a: any) => [a.iid, a.events])).toEqual([
      [1, 2],
      [2, 1],
    ]);
  });

  it('resolves the matching open alert on end_time, and a repeat after that opens a new alert', async () => {
    const { project, integration } = await setup();
    const alert = { title: 'Down', fingerprint: 'svc-down' };
    await notify(integration.url, integration.token, alert);
    const resolved = await notify(integration.url, integration.token, { ...alert, end_time: '2020-05-01T10:00:00Z' });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toEqual([{ iid: 1, title: 'Down' }]);
    const a = (await s.get(`/projects/${project.id}/alert_management/alerts/1`)).body;
    expect(a).toMatchObject({ status: 'resolved', ended_at: '2020-05-01T10:00:00.000Z', events: 1 });
    const again = await notify(integration.url, integration.token, alert);
    expect(again.body).toEqual([{ iid: 2, title: 'Down' }]);
    expect((await s.get(`/projects/${project.id}/alert_management/alerts/2`)).body.status).toBe('triggered');
  });

  it('answers 400 to a resolving payload with no open alert, as GitLab does', async () => {
    const { project, integration } = await setup();
    const res = await notify(integration.url, integration.token, { title: 'Nothing open', end_time: '2020-05-01T10:00:00Z' });
    expect(res.status).toBe(400);
    expect((await s.get(`/projects/${project.id}/alert_management/alerts`)).body).toEqual([]);
  });

  it('accepts Bearer, Basic with a blank user, and credentials embedded in the URL', async () => {
    const { integration } = await setup();
    const basic = `Basic ${Buffer.from(`:${integration.token}`).toString('base64')}`;
    expect((await notify(integration.url, null, { title: 'basic' }, { authorization: basic })).status).toBe(200);
    // curl https://:KEY@host/... sends the same Basic header; node's http does too with `auth`.
    const embedded = await new Promise<number>((resolve, reject) => {
      const u = new URL(integration.url);
      const req = httpRequest(
        { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', auth: `:${integration.token}`, headers: { 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ title: 'embedded' }));
    });
    expect(embedded).toBe(200);
  });

  it('answers 401 to a missing or wrong key and 403 to an inactive or unknown integration', async () => {
    const { project, integration } = await setup();
    expect((await notify(integration.url, null, {})).status).toBe(401);
    expect((await notify(integration.url, 'f'.repeat(32), {})).status).toBe(401);
    const wrongBasic = `Basic ${Buffer.from(':nope').toString('base64')}`;
    expect((await notify(integration.url, null, {}, { authorization: wrongBasic })).status).toBe(401);
    // A user's personal access token is not the integration's key.
    expect((await notify(integration.url, null, {}, { authorization: `Bearer ${'glpat-test-root-token-000000'}` })).status).toBe(401);
    await s.put(`/projects/${project.id}/alert_management/integrations/${integration.id}`, { active: false });
    const inactive = await notify(integration.url, integration.token, {});
    expect(inactive.status).toBe(403);
    const unknown = integration.url.replace(/[0-9a-f]{16}\.json$/, '0000000000000000.json');
    expect((await notify(unknown, integration.token, {})).status).toBe(403);
    expect((await s.get(`/projects/${project.id}/alert_management/alerts`)).body).toEqual([]);
  });

  it('answers 404 for an unknown project and 400 to malformed JSON', async () => {
    const { integration } = await setup();
    const missing = await notify(`${s.url}/nobody/nothing/alerts/notify/x/abc.json`, integration.token, {});
    expect(missing.status).toBe(404);
    const malformed = await notify(integration.url, integration.token, '{"title": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: 'The request body is not valid JSON' });
    const textBody = await notify(integration.url, integration.token, 'not json', { 'content-type': 'text/plain' });
    expect(textBody.status).toBe(400);
  });

  it('answers 400 to a payload over the configured limit or nested too deep', async () => {
    const { project, integration } = await setup();
    const big = await notify(integration.url, integration.token, { title: 'big', blob: 'x'.repeat(70 * 1024) });
    expect(big.status).toBe(400);
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 25; i++) deep = { n: deep };
    expect((await notify(integration.url, integration.token, { title: 'deep', deep })).status).toBe(400);
    expect((await s.get(`/projects/${project.id}/alert_management/alerts`)).body).toEqual([]);
  });

  it('reads a JSON body sent as a form (curl without a content type)', async () => {
    const { integration } = await setup();
    const res = await notify(integration.url, integration.token, JSON.stringify({ title: 'curl -d' }), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.body).toEqual([{ iid: 1, title: 'curl -d' }]);
  });

  it('accepts the legacy project URL with any active HTTP integration key', async () => {
    const { project, integration } = await setup();
    const legacy = `${s.url}/${project.path_with_namespace}/alerts/notify.json`;
    expect((await notify(legacy, integration.token, { title: 'legacy' })).body).toEqual([{ iid: 1, title: 'legacy' }]);
    expect((await notify(legacy, 'nope', {})).status).toBe(401);
  });

  it('receives for projects deep in nested groups, and without the .json suffix', async () => {
    let parent = await s.createGroup();
    for (let i = 0; i < 5; i++) parent = await s.createGroup({ parent_id: parent.id });
    const project = await s.createProject({ namespace_id: parent.id });
    const created = await s.post(`/projects/${project.id}/alert_management/integrations`, { name: 'deep' });
    expect(created.body.url.split('/').length).toBeGreaterThan(10);
    expect((await notify(created.body.url, created.body.token, { title: 'deep' })).body).toEqual([{ iid: 1, title: 'deep' }]);
    const bare = created.body.url.replace(/\.json$/, '');
    expect((await notify(bare, created.body.token, { title: 'bare' })).body).toEqual([{ iid: 2, title: 'bare' }]);
  });

  it('leaves other unknown POSTs as 404, /api/v3 as 410 and GET-only API paths as 405', async () => {
    const res = await s.post('/no/such/endpoint', {});
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: '404 Not Found' });
    expect((await s.post('/api/v3/projects', {})).status).toBe(410);
    expect((await s.post('/version', {})).status).toBe(405);
  });
});

describe('metrics (Prometheus) receiver', () => {
  it('creates one alert per item with the reference attributes', async () => {
    const { project, integration } = await setup('prometheus');
    const items = [
      metricsItem(),
      metricsItem({ labels: { alertname: 'DiskFull', severity: 'P1' }, annotations: { title: 'Disk full' }, startsAt: '2020-04-27T11:00:00Z' }),
      metricsItem({ labels: { alertname: 'Cpu' }, annotations: {}, startsAt: '2020-04-27T12:00:00Z' }),
    ];
    const res = await notify(integration.url, integration.token, metricsPayload(items));
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { iid: 1, title: 'Latency is high' },
      { iid: 2, title: 'Disk full' },
      { iid: 3, title: 'Cpu' },
    ]);
    const a = (await s.get(`/projects/${project.id}/alert_management/alerts/1`)).body;
    expect(a).toMatchObject({
      title: 'Latency is high',
      description: 'p99 above 1s',
      severity: 'medium',
      monitoring_tool: 'Prometheus',
      environment: 'production',
      runbook: 'https://runbooks/latency',
      started_at: '2020-04-27T10:10:22.265Z',
      status: 'triggered',
    });
    expect(a.payload.annotations).toMatchObject({ gitlab_incident_markdown: '**x**', owner: 'sre' });
    expect((await s.get(`/projects/${project.id}/alert_management/alerts/2`)).body.severity).toBe('critical');
    expect((await s.get(`/projects/${project.id}/alert_management/alerts/3`)).body.severity).toBe('critical');
  });

  it('maps the whole severity table', async () => {
    const { project, integration } = await setup('prometheus');
    const words = ['fatal', 'page', 'error', 'warning', 'notice', 'bogus'];
    const items = words.map((w, i) => metricsItem({ labels: { alertname: `sev-${w}`, severity: w }, annotations: {}, startsAt: `2020-01-0${i + 1}T00:00:00Z` }));
    await notify(integration.url, integration.token, metricsPayload(items));
    const list = (await s.get(`/projects/${project.id}/alert_management/alerts`)).body;
    expect(list.map((a: any) => a.severity)).toEqual(['critical', 'high', 'medium', 'low', 'info', 'critical']);
  });

  it('groups a repeat and resolves on status resolved', async () => {
    const { project, integration } = await setup('prometheus');
    await notify(integration.url, integration.token, metricsPayload([metricsItem()]));
    const repeat = await notify(integration.url, integration.token, metricsPayload([metricsItem()]));
    expect(repeat.body).toEqual([{ iid: 1, title: 'Latency is high' }]);
    expect((await s.get(`/projects/${project.id}/alert_management/alerts/1`)).body.events).toBe(2);
    const done = await notify(
      integration.url,
      integration.token,
      metricsPayload([metricsItem({ status: 'resolved', endsAt: '2020-04-27T11:10:22Z' })]),
    );
    expect(done.body).toEqual([{ iid: 1, title: 'Latency is high' }]);
    expect((await s.get(`/projects/${project.id}/alert_management/alerts/1`)).body).toMatchObject({
      status: 'resolved',
      ended_at: '2020-04-27T11:10:22.000Z',
    });
  });

  it('answers 422 when a required top-level attribute is missing', async () => {
    const { integration } = await setup('prometheus');
    for (const key of ['version', 'groupKey', 'status', 'receiver', 'groupLabels', 'commonLabels', 'commonAnnotations', 'externalURL', 'alerts']) {
      const payload: Record<string, unknown> = metricsPayload([metricsItem()]);
      delete payload[key];
      expect((await notify(integration.url, integration.token, payload)).status).toBe(422);
    }
  });

  it('answers 401 to a wrong key and to an inactive integration (the metrics service checks only the key)', async () => {
    const { project, integration } = await setup('prometheus');
    expect((await notify(integration.url, 'wrong', metricsPayload([metricsItem()]))).status).toBe(401);
    await s.put(`/projects/${project.id}/alert_management/integrations/${integration.id}`, { active: false });
    expect((await notify(integration.url, integration.token, metricsPayload([metricsItem()]))).status).toBe(401);
    expect((await s.get(`/projects/${project.id}/alert_management/alerts`)).body).toEqual([]);
  });

  it('skips items without a title or start time', async () => {
    const { integration } = await setup('prometheus');
    const res = await notify(
      integration.url,
      integration.token,
      metricsPayload([metricsItem({ labels: {}, annotations: {} }), metricsItem({ startsAt: undefined }), metricsItem()]),
    );
    expect(res.body).toEqual([{ iid: 1, title: 'Latency is high' }]);
  });
});

describe('alerts (Sandlab-only REST)', () => {
  it('filters by status and search, paginates, and updates the status', async () => {
    const { project, integration } = await setup();
    for (const t of ['Disk full on db', 'CPU high on web', 'Memory leak']) await notify(integration.url, integration.token, { title: t });
    const base = `/projects/${project.id}/alert_management/alerts`;
    const ack = await s.put(`${base}/2`, { status: 'acknowledged' });
    expect(ack.status).toBe(200);
    expect(ack.body.status).toBe('acknowledged');
    const resolved = await s.put(`${base}/3`, { status: 'resolved' });
    expect(resolved.body.ended_at).not.toBeNull();
    expect((await s.get(base, { query: { status: 'triggered' } })).body.map((a: any) => a.iid)).toEqual([1]);
    expect((await s.get(base, { query: { status: 'resolved' } })).body.map((a: any) => a.iid)).toEqual([3]);
    expect((await s.get(base, { query: { search: 'on' } })).body.map((a: any) => a.iid)).toEqual([1, 2]);
    const page = await s.get(base, { query: { per_page: 2, page: 2 } });
    expect(page.body.map((a: any) => a.iid)).toEqual([3]);
    expect(page.headers.get('x-total')).toBe('3');
    expect(page.headers.get('link')).toContain('rel="first"');
    expect((await s.get(base, { query: { status: 'open' } })).body).toEqual({ error: 'status does not have a valid value' });
    expect((await s.put(`${base}/1`, { status: 'closed' })).status).toBe(400);
    expect((await s.put(`${base}/1`, {})).body).toEqual({ error: 'status is missing' });
    expect((await s.get(`${base}/99`)).body).toEqual({ message: '404 Alert Not Found' });
    // Leaving resolved clears ended_at.
    expect((await s.put(`${base}/3`, { status: 'triggered' })).body.ended_at).toBeNull();
  });

  it('records the alert timeline: created, repeated, resolved, status changes', async () => {
    const { project, integration } = await setup();
    await notify(integration.url, integration.token, { title: 'T', fingerprint: 'f', monitoring_tool: 'Zabbix' });
    await s.put(`/projects/${project.id}/alert_management/alerts/1`, { status: 'acknowledged' });
    await notify(integration.url, integration.token, { title: 'T', fingerprint: 'f', monitoring_tool: 'Zabbix', end_time: '2020-01-01T00:00:00Z' });
    const notes = (await s.get(`/projects/${project.id}/alert_management/alerts/1/notes`)).body;
    expect(notes.map((n: any) => n.body)).toEqual([
      'logged an alert from **Zabbix**',
      'changed the status to **Acknowledged**',
      'logged a recovery alert from **Zabbix**',
      'changed the status to **Resolved**',
    ]);
    expect(notes[0].author).toBeNull();
    expect(notes[1].author.username).toBe('root');
  });

  it('refuses to reopen a resolved alert while another with its fingerprint is open', async () => {
    const { project, integration } = await setup();
    await notify(integration.url, integration.token, { fingerprint: 'dup' });
    await notify(integration.url, integration.token, { fingerprint: 'dup', end_time: '2020-01-01T00:00:00Z' });
    await notify(integration.url, integration.token, { fingerprint: 'dup' });
    const res = await s.put(`/projects/${project.id}/alert_management/alerts/1`, { status: 'triggered' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { fingerprint: ['Cannot have multiple unresolved alerts'] } });
  });

  it('shows alerts only to project members with Developer or more', async () => {
    const { project, integration } = await setup();
    await notify(integration.url, integration.token, { title: 'secret' });
    const base = `/projects/${project.id}/alert_management/alerts`;
    const dev = await s.createUser();
    await s.addMember('projects', project.id, dev.user.id, 30);
    expect((await s.get(base, { token: dev.token })).body).toHaveLength(1);
    expect((await s.put(`${base}/1`, { status: 'ignored' }, { token: dev.token })).body.status).toBe('ignored');
    const guest = await s.createUser();
    await s.addMember('projects', project.id, guest.user.id, 10);
    expect((await s.get(base, { token: guest.token })).status).toBe(403);
    const stranger = await s.createUser();
    expect((await s.get(base, { token: stranger.token })).status).toBe(404);
    expect((await s.get(base, { token: null })).status).toBe(401);
    const pub = await s.createProject({ visibility: 'public' });
    expect((await s.get(`/projects/${pub.id}/alert_management/alerts`, { token: stranger.token })).status).toBe(403);
  });
});
