// Sustained alert intake: generic payloads with repeats (grouping) and metrics payloads, over HTTP.
// Run: npx tsx bench/alert-intake.ts [seconds=5] [concurrency=8]. Prints figures, never pass/fail.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createService } from '../src/main/service';

const seconds = Number(process.argv[2] ?? 5);
const concurrency = Number(process.argv[3] ?? 8);
const TOKEN = 'glpat-bench-root-token-000000';

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-bench-'));
  const service = await createService({ dataDir, port: 0, rootToken: TOKEN });
  const url = await service.listen();
  const call = async (method: string, path: string, body?: unknown): Promise<any> =>
    (
      await fetch(`${url}/api/v4${path}`, {
        method,
        headers: { 'private-token': TOKEN, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    ).json();
  const project = await call('POST', '/projects', { name: 'bench' });
  const http = await call('POST', `/projects/${project.id}/alert_management/integrations`, { name: 'bench http' });
  const prom = await call('POST', `/projects/${project.id}/alert_management/integrations`, { name: 'bench prom', type: 'prometheus' });

  async function run(label: string, next: (i: number) => { url: string; token: string; body: string }): Promise<void> {
    const latencies: number[] = [];
    let sent = 0;
    let failed = 0;
    const end = Date.now() + seconds * 1000;
    const worker = async (): Promise<void> => {
      while (Date.now() < end) {
        const req = next(sent++);
        const t0 = performance.now();
        const res = await fetch(req.url, {
          method: 'POST',
          headers: { authorization: `Bearer ${req.token}`, 'content-type': 'application/json' },
          body: req.body,
        });
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (res.status !== 200) failed++;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, worker));
    const elapsed = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const pct = (p: number): string => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))].toFixed(2);
    console.log(
      `${label}: ${(latencies.length / elapsed).toFixed(0)} requests/s over ${elapsed.toFixed(1)} s, concurrency ${concurrency}, ` +
        `p50 ${pct(0.5)} ms, p95 ${pct(0.95)} ms, p99 ${pct(0.99)} ms, non-200 ${failed}`,
    );
  }

  // 1 in 20 payloads is new; the rest repeat one of the open alerts (events bump).
  await run('generic intake (grouping, 200 fingerprints)', (i) => ({
    url: http.url,
    token: http.token,
    body: JSON.stringify({
      title: `Service ${i % 200} degraded`,
      severity: ['critical', 'high', 'medium', 'low', 'info'][i % 5],
      service: `svc-${i % 200}`,
      hosts: [`host-${i % 7}`],
      start_time: new Date().toISOString(),
      details: { region: 'eu', attempt: i % 3 },
    }),
  }));
  await run('generic intake (every payload new, auto fingerprint)', (i) => ({
    url: http.url,
    token: http.token,
    body: JSON.stringify({ title: `Unique ${i}-${Math.random()}`, service: 'api' }),
  }));
  await run('metrics intake (10 items per payload, grouping)', (i) => ({
    url: prom.url,
    token: prom.token,
    body: JSON.stringify({
      version: '4',
      groupKey: 'g',
      status: 'firing',
      receiver: 'gitlab',
      groupLabels: {},
      commonLabels: {},
      commonAnnotations: {},
      externalURL: 'http://am',
      alerts: Array.from({ length: 10 }, (_, k) => ({
        status: 'firing',
        labels: { alertname: `Rule${(i + k) % 50}`, severity: 'warning' },
        annotations: { summary: `Rule ${(i + k) % 50} firing` },
        startsAt: '2024-01-01T00:00:00Z',
        generatorURL: `http://prom/graph?g0.expr=up%7Bjob%3D%22${k}%22%7D`,
      })),
    }),
  }));

  const counts = service.context.db
    .prepare('SELECT count(*) AS alerts, coalesce(sum(events), 0) AS events FROM alerts WHERE project_id = ?')
    .get(project.id) as { alerts: number; events: number };
  console.log(`stored: ${counts.alerts} alerts carrying ${counts.events} events`);
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}

void main();
