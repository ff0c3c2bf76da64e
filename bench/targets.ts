import { jsonOfSize, type BareRoute } from './lib';

export const TOKEN = 'glpat-bench-root-token-00000001';

/** One request of the hot-path benches, with what the bare server stands in for it. */
export interface Target {
  name: string;
  path: string;
  token: boolean;
  /** Goal ratio to bare node:http (0: no goal, reported beside the reads). */
  goal: number;
  method?: string;
  body?: string;
  connections?: number;
  /** The bare server's stand-in: Sandlab's status and a body of the same size. */
  bare: BareRoute;
}

/**
 * Creates what the hot-path requests read (a project with a badge) on a running Sandlab and
 * returns the requests, each sampled once so the bare server can answer the same status and size.
 */
export async function prepareTargets(url: string, which: { reads: boolean; writes: boolean }): Promise<Target[]> {
  const api = async (method: string, path: string, body?: string): Promise<{ status: number; bytes: number; json: any }> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { 'private-token': TOKEN, ...(body ? { 'content-type': 'application/json' } : {}) },
      body,
    });
    const text = await res.text();
    return { status: res.status, bytes: Buffer.byteLength(text), json: text ? JSON.parse(text) : null };
  };
  const project = (await api('POST', '/api/v4/projects', JSON.stringify({ name: 'bench' }))).json as { id: number };
  const badge = (
    await api('POST', `/api/v4/projects/${project.id}/badges`, JSON.stringify({ link_url: 'https://example.com/%{project_path}', image_url: 'https://shields.io/%{default_branch}.svg' }))
  ).json as { id: number };
  const issue = (
    await api('POST', `/api/v4/projects/${project.id}/issues`, JSON.stringify({ title: 'A read issue', description: 'Read by the hot-path bench', labels: 'bench' }))
  ).json as { iid: number };
  const issueBody = JSON.stringify({ title: 'A benchmark issue', description: 'Created by the hot-path bench', labels: 'bench,perf' });
  const specs: Omit<Target, 'bare'>[] = [];
  if (which.reads) {
    specs.push(
      { name: 'GET /projects/:id/badges/:badge_id (authenticated)', path: `/api/v4/projects/${project.id}/badges/${badge.id}`, token: true, goal: 0.7 },
      { name: 'GET /projects/:id (authenticated)', path: `/api/v4/projects/${project.id}`, token: true, goal: 0.7 },
      { name: 'GET /projects/:id/issues/:iid (authenticated)', path: `/api/v4/projects/${project.id}/issues/${issue.iid}`, token: true, goal: 0.7 },
      { name: 'GET /version (authenticated)', path: '/api/v4/version', token: true, goal: 0.8 },
      { name: 'unknown path (404, anonymous)', path: '/api/v4/no/such/path', token: false, goal: 0.8 },
    );
  }
  if (which.writes) {
    const path = `/api/v4/projects/${project.id}/issues`;
    specs.push(
      { name: 'POST /projects/:id/issues, 1 client', path, token: true, goal: 0, method: 'POST', body: issueBody, connections: 1 },
      { name: 'POST /projects/:id/issues, 8 clients', path, token: true, goal: 0, method: 'POST', body: issueBody, connections: 8 },
    );
  }
  const targets: Target[] = [];
  for (const spec of specs) {
    const sample = await api(spec.method ?? 'GET', spec.path, spec.body);
    targets.push({ ...spec, bare: { status: sample.status, body: jsonOfSize(sample.bytes) } });
  }
  return targets;
}

export const bareRoutes = (targets: Target[]): Record<string, BareRoute> =>
  Object.fromEntries(targets.map((t, i) => [`/r${i}`, t.bare]));

export const requestHeaders = (t: Target): Record<string, string> => ({
  ...(t.token ? { 'PRIVATE-TOKEN': TOKEN } : {}),
  ...(t.body ? { 'Content-Type': 'application/json' } : {}),
});
