import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';

// Crash safety: a real `serve` process (the CLI, from source) is killed with SIGKILL while
// clients write issues, notes, snippets and uploads; restarted on the same data dir, every write
// it acknowledged with a 2xx must be there, whole, and nothing may be half there.

const TOKEN = 'glpat-crash-test-root-token-0001';
const tsxCli = createRequire(__filename).resolve('tsx/cli');
const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-crash-'));
let server: ChildProcess | null = null;

afterAll(() => {
  server?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts `serve` on the data dir and resolves with its URL once it prints the listening line. */
function startServe(): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, [tsxCli, 'src/main/cli.ts', 'serve', '--port', '0', '--data-dir', dataDir], {
    env: { ...process.env, SANDLAB_ROOT_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server = proc;
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ proc, url: m[1] });
    });
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    proc.on('exit', (code) => reject(new Error(`serve exited (${code}) before listening: ${err}`)));
  });
}

async function call(url: string, method: string, path: string, body?: unknown, form?: FormData): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'private-token': TOKEN };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${url}/api/v4${path}`, { method, headers, body: form ?? (body === undefined ? undefined : JSON.stringify(body)) });
  const text = await res.text();
  return { status: res.status, body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
}

interface Acknowledged {
  issues: { iid: number; title: string }[];
  notes: { id: number; body: string }[];
  snippets: { id: number; content: string }[];
  uploads: { url: string; content: string }[];
}

describe('SIGKILL while clients write', () => {
  it('keeps every acknowledged write, whole, and nothing half-written', async () => {
    const first = await startServe();
    const project = (await call(first.url, 'POST', '/projects', { name: 'crash' })).body;
    const issue = (await call(first.url, 'POST', `/projects/${project.id}/issues`, { title: 'notes go here' })).body;
    const p = `/projects/${project.id}`;
    const acked: Acknowledged = { issues: [], notes: [], snippets: [], uploads: [] };
    let attempted = 0;
    let killed = false;

    // Each writer loops until the server dies; a write counts only once its 2xx arrived.
    const writer = async (n: number): Promise<void> => {
      for (let i = 0; !killed; i++) {
        const tag = `w${n}-${i}`;
        attempted++;
        try {
          const kind = i % 4;
          if (kind === 0) {
            const r = await call(first.url, 'POST', `${p}/issues`, { title: `issue ${tag}`, description: 'x'.repeat(2000) });
            if (r.status === 201) acked.issues.push({ iid: r.body.iid, title: r.body.title });
          } else if (kind === 1) {
            const r = await call(first.url, 'POST', `${p}/issues/${issue.iid}/notes`, { body: `note ${tag}` });
            if (r.status === 201) acked.notes.push({ id: r.body.id, body: r.body.body });
          } else if (kind === 2) {
            const content = `snippet ${tag}\n`.repeat(50);
            const r = await call(first.url, 'POST', `${p}/snippets`, { title: tag, visibility: 'private', files: [{ file_path: `${tag}.txt`, content }] });
            if (r.status === 201) acked.snippets.push({ id: r.body.id, content });
          } else {
            const content = `upload ${tag} `.repeat(500);
            const fd = new FormData();
            fd.append('file', new Blob([content]), `${tag}.txt`);
            const r = await call(first.url, 'POST', `${p}/uploads`, undefined, fd);
            if (r.status === 201) acked.uploads.push({ url: r.body.url, content });
          }
        } catch {
          // The connection died with the server: that write was never acknowledged.
        }
      }
    };
    const writers = [1, 2, 3, 4, 5, 6].map(writer);
    // Let writes pile up, then kill mid-stream.
    while (acked.issues.length + acked.notes.length + acked.snippets.length + acked.uploads.length < 40) await new Promise((r) => setTimeout(r, 20));
    first.proc.kill('SIGKILL');
    killed = true;
    await new Promise((r) => first.proc.once('exit', r));
    await Promise.all(writers);
    const total = acked.issues.length + acked.notes.length + acked.snippets.length + acked.uploads.length;

    const second = await startServe();
    let lost = 0;
    for (const a of acked.issues) {
      const r = await call(second.url, 'GET', `${p}/issues/${a.iid}`);
      if (r.status !== 200 || r.body.title !== a.title) lost++;
    }
    for (const a of acked.notes) {
      const r = await call(second.url, 'GET', `${p}/issues/${issue.iid}/notes/${a.id}`);
      if (r.status !== 200 || r.body.body !== a.body) lost++;
    }
    for (const a of acked.snippets) {
      const r = await call(second.url, 'GET', `${p}/snippets/${a.id}/raw`);
      if (r.status !== 200 || r.body !== a.content) lost++;
    }
    for (const a of acked.uploads) {
      const [, secret, filename] = /\/uploads\/([0-9a-f]{32})\/(.+)$/.exec(a.url) ?? [];
      const r = await call(second.url, 'GET', `${p}/uploads/${secret}/${filename}`);
      if (r.status !== 200 || r.body !== a.content) lost++;
    }
    console.log(`crash: ${attempted} writes attempted, ${total} acknowledged before SIGKILL, ${lost} lost after restart`);
    expect(total).toBeGreaterThanOrEqual(40);
    expect(lost).toBe(0);

    // Nothing half there: look at the data dir itself, with the server stopped.
    second.proc.kill('SIGTERM');
    await new Promise((r) => second.proc.once('exit', r));
    const db = new Database(join(dataDir, 'sandlab.db'), { readonly: true });
    try {
      expect(db.prepare('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }]);
      const snippetsWithoutFiles = db.prepare('SELECT s.id FROM snippets s WHERE NOT EXISTS (SELECT 1 FROM snippet_blobs b WHERE b.snippet_id = s.id)').all();
      expect(snippetsWithoutFiles).toEqual([]);
      const rows = db.prepare('SELECT project_id, secret, filename FROM uploads').all() as { project_id: number; secret: string; filename: string }[];
      const rowWithoutFile = rows.filter((u) => !existsSync(join(dataDir, 'uploads', String(u.project_id), u.secret, u.filename)));
      expect(rowWithoutFile).toEqual([]);
      const onDisk = existsSync(join(dataDir, 'uploads', String(project.id))) ? readdirSync(join(dataDir, 'uploads', String(project.id))) : [];
      const fileWithoutRow = onDisk.filter((secret) => !rows.some((u) => u.secret === secret));
      expect(fileWithoutRow).toEqual([]);
      expect(db.prepare("SELECT id, kind FROM jobs WHERE state = 'started'").all()).toEqual([]);
    } finally {
      db.close();
    }
  }, 120_000);
});
