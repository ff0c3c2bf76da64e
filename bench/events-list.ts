/**
 * Activity event lists at scale: 50 projects (half private), 40,000 events, a member of 10
 * projects reading /events?scope=all, /users/:id/events and /projects/:id/events.
 * Prints figures; never pass/fail.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createService } from '../src/main/service';

async function main(): Promise<void> {
  const ROOT = 'glpat-bench-root-token-00000000';
  const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-bench-'));
  const service = await createService({ dataDir, port: 0, rootToken: ROOT });
  const url = await service.listen();

  async function call(method: string, path: string, token: string, body?: unknown): Promise<any> {
    const res = await fetch(`${url}/api/v4${path}`, {
      method,
      headers: { 'private-token': token, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return res.status === 204 ? null : res.json();
  }

  const reader = await call('POST', '/users', ROOT, { username: 'reader', name: 'Reader', email: 'reader@example.com', password: 'password123' });
  const readerToken = (await call('POST', `/users/${reader.id}/personal_access_tokens`, ROOT, { name: 'b', scopes: ['api'] })).token;
  const projects: number[] = [];
  for (let i = 0; i < 50; i++) {
    const p = await call('POST', '/projects', ROOT, { name: `bench-${i}`, visibility: i % 2 ? 'private' : 'public' });
    projects.push(p.id);
    if (i < 10) await call('POST', `/projects/${p.id}/members`, ROOT, { user_id: reader.id, access_level: 30 });
  }

  const db = service.context.db;
  const insert = db.prepare(
    `INSERT INTO events (project_id, author_id, action, target_type, target_id, target_iid, target_title, created_at)
     VALUES (?, ?, 'created', 'Issue', ?, ?, ?, ?)`,
  );
  const EVENTS = 40_000;
  db.transaction(() => {
    for (let i = 0; i < EVENTS; i++) {
      const author = i % 3 === 0 ? reader.id : 1;
      insert.run(projects[i % projects.length], author, i, i, `t${i}`, new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString());
    }
  })();

  async function measure(label: string, path: string, runs = 40): Promise<void> {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await call('GET', path, readerToken);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1);
    console.log(`${label.padEnd(44)} median ${pct(0.5)} ms   p95 ${pct(0.95)} ms   (${runs} runs)`);
  }

  console.log(`${EVENTS} events in ${projects.length} projects; reader is a member of 10`);
  await measure('GET /events (own, page 1)', '/events');
  await measure('GET /events?scope=all (page 1)', '/events?scope=all');
  await measure('GET /events?scope=all&page=50', '/events?scope=all&page=50');
  await measure('GET /users/1/events (root, visible only)', '/users/1/events');
  await measure(`GET /projects/${projects[0]}/events`, `/projects/${projects[0]}/events`);
  await measure('GET /events?target_type=issue&sort=asc', '/events?target_type=issue&sort=asc');

  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}

void main();
