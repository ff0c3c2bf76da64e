import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, startServe } from './harness';

// No GitLab client library covers alert intake; the GitLab docs drive the receivers with curl.
let served: Served;
let projectPath: string;
let projectId: number;

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${served.url}/api/v4${path}`, {
    method,
    headers: { 'private-token': served.token, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

/** curl as the docs write it; returns [status, body]. */
function curl(args: string[]): [number, string] {
  const r = spawnSync('curl', ['--silent', '--show-error', '--write-out', '\n%{http_code}', ...args], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`curl failed: ${r.stderr}`);
  const lines = r.stdout.split('\n');
  return [Number(lines.pop()), lines.join('\n')];
}

beforeAll(async () => {
  served = await startServe();
  const group = await api('POST', '/groups', { name: 'ops', path: 'ops' });
  const sub = await api('POST', '/groups', { name: 'team', path: 'team', parent_id: group.id });
  const project = await api('POST', '/projects', { name: 'svc', namespace_id: sub.id });
  projectId = project.id;
  projectPath = project.path_with_namespace;
});
afterAll(async () => served?.stop());

describe('alert receivers with curl, as the GitLab docs show', () => {
  it('posts a generic alert with a Bearer key', async () => {
    const integration = await api('POST', `/projects/${projectId}/alert_management/integrations`, { name: 'HTTP endpoint' });
    expect(integration.url).toContain(`/${projectPath}/alerts/notify/http-endpoint/`);
    const [status, body] = curl([
      '--request', 'POST',
      '--data', '{"title": "Incident title"}',
      '--header', `Authorization: Bearer ${integration.token}`,
      '--header', 'Content-Type: application/json',
      integration.url,
    ]);
    expect(status).toBe(200);
    expect(JSON.parse(body)).toEqual([{ iid: 1, title: 'Incident title' }]);
  });

  it('posts with Basic authentication and with credentials embedded in the URL', async () => {
    const integration = await api('POST', `/projects/${projectId}/alert_management/integrations`, { name: 'Basic' });
    const basic = Buffer.from(`:${integration.token}`).toString('base64');
    const [s1] = curl(['--request', 'POST', '--data', '{"title": "basic"}', '--header', `Authorization: Basic ${basic}`, '--header', 'Content-Type: application/json', integration.url]);
    expect(s1).toBe(200);
    const embedded = integration.url.replace('://', `://:${integration.token}@`);
    const [s2, body] = curl(['--request', 'POST', '--data', '{"title": "embedded"}', '--header', 'Content-Type: application/json', embedded]);
    expect(s2).toBe(200);
    expect(JSON.parse(body)[0].title).toBe('embedded');
    const [s3] = curl(['--request', 'POST', '--data', '{}', '--header', 'Content-Type: application/json', integration.url]);
    expect(s3).toBe(401);
  });

  it('posts an Alertmanager webhook to the metrics receiver', async () => {
    const integration = await api('POST', `/projects/${projectId}/alert_management/integrations`, { name: 'Prometheus', type: 'prometheus' });
    const payload = {
      version: '4',
      groupKey: 'g',
      status: 'firing',
      receiver: 'gitlab',
      groupLabels: {},
      commonLabels: {},
      commonAnnotations: {},
      externalURL: 'http://alertmanager',
      alerts: [{ status: 'firing', labels: { alertname: 'Up', severity: 'warning' }, annotations: {}, startsAt: '2024-01-01T00:00:00Z' }],
    };
    const [status, body] = curl([
      '--request', 'POST',
      '--data', JSON.stringify(payload),
      '--header', `Authorization: Bearer ${integration.token}`,
      '--header', 'Content-Type: application/json',
      integration.url,
    ]);
    expect(status).toBe(200);
    const [alert] = JSON.parse(body);
    expect(alert.title).toBe('Up');
    const full = await api('GET', `/projects/${projectId}/alert_management/alerts/${alert.iid}`);
    expect(full.severity).toBe('low');
  });
});
