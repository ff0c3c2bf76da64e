// Upload throughput and the server's memory while a large Markdown upload streams in.
//
//   npx tsx bench/upload-throughput.ts [sizeMB=500]
//
// Spawns the service in its own process (maxUploadBytes raised above the file size), uploads a
// file of `sizeMB` through POST /projects/:id/uploads, samples the server's RSS from /proc while
// it does, downloads it back, and prints figures. Everything it writes is deleted at the end.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, openAsBlob, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';

const TOKEN = 'glpat-bench-upload-token-0001';
const MB = 1024 * 1024;

async function serverMain(dataDir: string, maxUploadBytes: number): Promise<void> {
  const { createService } = await import('../src/main/service');
  const service = await createService({ dataDir, port: 0, rootToken: TOKEN, limits: { maxUploadBytes } });
  const url = await service.listen();
  process.stdout.write(`listening on ${url}\n`);
  process.on('SIGTERM', () => void service.close().then(() => process.exit(0)));
}

function rssMb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
}

function spawnServer(dataDir: string, maxUploadBytes: number): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', __filename, '--server', dataDir, String(maxUploadBytes)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
}

async function writeFile(path: string, bytes: number): Promise<void> {
  const chunk = randomBytes(MB);
  const out = createWriteStream(path);
  for (let written = 0; written < bytes; written += chunk.length) {
    if (!out.write(written + chunk.length <= bytes ? chunk : chunk.subarray(0, bytes - written))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

async function main(): Promise<void> {
  const sizeMb = Number(process.argv[2] ?? 500);
  const bytes = sizeMb * MB;
  const work = mkdtempSync(join(tmpdir(), 'sandlab-bench-upload-'));
  const file = join(work, 'big.bin');
  const dataDir = join(work, 'data');
  let child: ChildProcess | undefined;
  try {
    await writeFile(file, bytes);
    const server = await spawnServer(dataDir, bytes + 10 * MB);
    child = server.child;
    const pid = child.pid!;
    const headers = { 'private-token': TOKEN };
    const project = (await (
      await fetch(`${server.url}/api/v4/projects`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench' }) })
    ).json()) as { id: number };

    // Warm up the route, then take the idle baseline.
    const warm = new FormData();
    warm.append('file', new Blob(['warm']), 'warm.txt');
    await (await fetch(`${server.url}/api/v4/projects/${project.id}/uploads`, { method: 'POST', headers, body: warm })).json();
    const baseline = rssMb(pid);

    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
    const form = new FormData();
    form.append('file', await openAsBlob(file), 'big.bin');
    const t0 = performance.now();
    const res = await fetch(`${server.url}/api/v4/projects/${project.id}/uploads`, { method: 'POST', headers, body: form });
    const created = (await res.json()) as { id: number; url: string };
    const uploadS = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    if (res.status !== 201) throw new Error(`upload answered ${res.status}`);

    const dlSampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
    const t1 = performance.now();
    const dl = await fetch(`${server.url}/api/v4/projects/${project.id}/uploads/${created.id}`, { headers });
    let received = 0;
    for await (const chunk of dl.body as unknown as AsyncIterable<Uint8Array>) received += chunk.length;
    const downloadS = (performance.now() - t1) / 1000;
    clearInterval(dlSampler);
    if (received !== bytes) throw new Error(`downloaded ${received} of ${bytes} bytes`);

    const fmt = (n: number): string => n.toFixed(1);
    console.log(`upload ${sizeMb} MB: ${fmt(uploadS)} s, ${fmt(sizeMb / uploadS)} MB/s`);
    console.log(`download ${sizeMb} MB: ${fmt(downloadS)} s, ${fmt(sizeMb / downloadS)} MB/s`);
    console.log(`server RSS: idle ${fmt(baseline)} MB, peak during upload+download ${fmt(peak)} MB (+${fmt(peak - baseline)} MB), VmHWM ${fmt(rssMb(pid, 'VmHWM'))} MB`);
  } finally {
    if (child && child.exitCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--server') {
  void serverMain(process.argv[3], Number(process.argv[4]));
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
