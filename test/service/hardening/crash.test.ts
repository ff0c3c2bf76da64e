import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ProviderAStandIn } from '../../helpers/stand-ins/providera';
import { registerDataDir, registerLog, registerSecret, sweepingAfterRun } from '../../helpers/secrets-registry';

// Crash safety: a real `serve` process (the CLI, from source) is killed with SIGKILL while
// clients write issues, notes, snippets and uploads, a direct transfer migrates a group from a
// second `serve`, and a repository import runs against a stand-in GitHub. Restarted on the same
// data dir, every write it acknowledged with a 2xx must be there, whole; nothing may be half
// there; the migration and the import end failed with a reason a user can act on (their
// credentials were in memory only), and the migration, retried with its token, resumes and
// brings every record exactly once.

const TOKEN = 'glpat-crash-test-root-token-0001';
const SOURCE_TOKEN = 'glpat-crash-test-source-token-01';
const GH_TOKEN = 'ghp_crashTestProviderToken0123456789';
const SOURCE_ISSUES = 60;
const GH_ISSUES = 60;
const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-crash-'));
const sourceDir = mkdtempSync(join(tmpdir(), 'sandlab-crash-source-'));
const servers: ChildProcess[] = [];
const closers: (() => unknown)[] = [];
registerSecret(TOKEN, SOURCE_TOKEN, GH_TOKEN);
registerDataDir(dataDir);
registerDataDir(sourceDir);

afterAll(async () => {
  for (const s of servers) s.kill('SIGKILL');
  for (const close of closers) await close();
  if (sweepingAfterRun()) return; // the secrets sweep after the run reads and removes them
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(sourceDir, { recursive: true, force: true });
});

/**
 * Starts `serve` on a data dir and resolves with its URL once it prints the listening line. The
 * server is this very process (node with tsx's loader), not a child of the `tsx` CLI, which a
 * SIGKILL to the CLI would leave running.
 */
function startServe(dir = dataDir, token = TOKEN, env: Record<string, string> = {}): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', 'serve', '--port', '0', '--data-dir', dir], {
    env: { ...process.env, SANDLAB_ROOT_TOKEN: token, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  servers.push(proc);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      registerLog(d.toString());
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ proc, url: m[1] });
    });
    proc.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      registerLog(d.toString());
    });
    proc.on('exit', (code) => reject(new Error(`serve exited (${code}) before listening: ${err}`)));
  });
}

/**
 * The source as a far-away instance looks: every request answered after `delayMs`, so the
 * migration is still under way when the destination is killed.
 */
async function slowProxy(target: string, delayMs: number): Promise<string> {
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    setTimeout(() => {
      const upstream = http.request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function until<T>(what: string, check: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function call(url: string, method: string, path: string, body?: unknown, form?: FormData, token = TOKEN): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'private-token': token };
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

/** The source instance: a group with a project of SOURCE_ISSUES issues, each with a comment. */
async function seedSource(url: string): Promise<void> {
  const as = (method: string, path: string, body?: unknown) => call(url, method, path, body, undefined, SOURCE_TOKEN);
  const group = (await as('POST', '/groups', { name: 'Crash source', path: 'crash-source' })).body;
  const project = (await as('POST', '/projects', { name: 'app', namespace_id: group.id })).body;
  let next = 1;
  await Promise.all(
    [1, 2, 3, 4].map(async () => {
      while (next <= SOURCE_ISSUES) {
        const n = next++;
        const issue = await as('POST', `/projects/${project.id}/issues`, { title: `source issue ${n}`, description: `body ${n}` });
        expect(issue.status).toBe(201);
        expect((await as('POST', `/projects/${project.id}/issues/${issue.body.iid}/notes`, { body: `comment on ${n}` })).status).toBe(201);
      }
    }),
  );
}

describe('SIGKILL while clients write, a migration and an import run', () => {
  it('keeps every acknowledged write, whole, nothing half-written, and long jobs end readable or resume', async () => {
    const source = await startServe(sourceDir, SOURCE_TOKEN);
    await seedSource(source.url);
    const sourceUrl = await slowProxy(source.url, 1000);
    const gh = await new ProviderAStandIn().start();
    closers.push(() => gh.stop());
    gh.addUser({ login: 'octo', email: 'octo@example.com' }, GH_TOKEN);
    gh.addRepo({
      id: 2001,
      owner: 'octo',
      name: 'big',
      delayMs: 150,
      issues: Array.from({ length: GH_ISSUES }, (_, i) => ({ number: i + 1, title: `GitHub issue ${i + 1}`, body: `Body ${i + 1}`, user: 'octo' })),
    });
    const env = { SANDLAB_PROVIDERA_URL: gh.url };

    const first = await startServe(dataDir, TOKEN, env);
    const migration = await call(first.url, 'POST', '/bulk_imports', {
      configuration: { url: sourceUrl, access_token: SOURCE_TOKEN },
      entities: [{ source_type: 'group_entity', source_full_path: 'crash-source', destination_namespace: '', destination_slug: 'crash-copy' }],
    });
    expect(migration.status).toBe(201);
    const imported = await call(first.url, 'POST', '/import/github', { personal_access_token: GH_TOKEN, repo_id: 2001, target_namespace: 'root', pagination_limit: 1 });
    expect(imported.status).toBe(201);
    // Both under way: the migration's project entity has started and the import has issues.
    await until('the migration to reach its project', async () => {
      const entities = (await call(first.url, 'GET', `/bulk_imports/${migration.body.id}/entities`)).body as any[];
      return entities.some((e) => e.entity_type === 'project' && e.status === 'started');
    });
    await until('the import to bring issues', async () => Number((await call(first.url, 'GET', `/projects/${imported.body.id}/issues?per_page=1`)).body.length) > 0);

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
    // The long jobs are still running when the server dies.
    const entitiesAtKill = (await call(first.url, 'GET', `/bulk_imports/${migration.body.id}/entities`)).body as any[];
    expect(entitiesAtKill.find((e) => e.entity_type === 'project')?.status).toBe('started');
    expect((await call(first.url, 'GET', `/projects/${imported.body.id}/import`)).body.import_status).toBe('started');
    first.proc.kill('SIGKILL');
    killed = true;
    await new Promise((r) => first.proc.once('exit', r));
    await Promise.all(writers);
    const total = acked.issues.length + acked.notes.length + acked.snippets.length + acked.uploads.length;

    const second = await startServe(dataDir, TOKEN, env);
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

    // The credentials were in memory only: the interrupted jobs end failed and say why.
    const imp = (await call(second.url, 'GET', `/projects/${imported.body.id}/import`)).body;
    expect(imp.import_status).toBe('failed');
    expect(imp.import_error).toMatch(/restarted during the import .* start the import again/);
    const afterCrash = (await call(second.url, 'GET', `/bulk_imports/${migration.body.id}/entities`)).body as any[];
    expect(afterCrash.some((e) => e.status === 'failed')).toBe(true);
    for (const e of afterCrash.filter((x) => x.status === 'failed')) {
      expect(e.failures.map((f: any) => f.exception_message)).toContain(
        'The source access token is no longer held (Sandlab restarted, or this migration ended): send configuration[access_token] again to retry.',
      );
    }
    expect(afterCrash.every((e) => e.status !== 'started' && e.status !== 'created')).toBe(true);
    // Given the token again, the migration resumes where it stopped and brings each record once.
    for (const e of afterCrash.filter((x) => x.status === 'failed')) {
      const retried = await call(second.url, 'POST', `/bulk_imports/${migration.body.id}/entities/${e.id}/retry`, { configuration: { access_token: SOURCE_TOKEN } });
      expect(retried.status).toBe(200);
    }
    await until('the retried migration to finish', async () => (await call(second.url, 'GET', `/bulk_imports/${migration.body.id}`)).body.status === 'finished', 120_000);
    const copied: any[] = [];
    for (let page = 1; ; page++) {
      const r = await call(second.url, 'GET', `/projects/${encodeURIComponent('crash-copy/app')}/issues?per_page=100&page=${page}`);
      expect(r.status).toBe(200);
      copied.push(...r.body);
      if (r.body.length < 100) break;
    }
    expect(copied.map((i) => i.title).sort()).toEqual(Array.from({ length: SOURCE_ISSUES }, (_, i) => `source issue ${i + 1}`).sort());
    expect(copied.every((i) => i.user_notes_count === 1)).toBe(true);

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
      // Every record a migration or an import remembers exists, and every record they wrote is remembered.
      const tables: Record<string, string> = { issues: 'issues', notes: 'notes', merge_requests: 'merge_requests', labels: 'labels', milestones: 'milestones' };
      for (const [relation, table] of Object.entries(tables)) {
        expect(db.prepare(`SELECT source_key FROM bulk_import_records r WHERE relation = ? AND NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.id = r.destination_id)`).all(relation)).toEqual([]);
      }
      expect(
        db.prepare("SELECT id FROM issues WHERE imported_from = 'gitlab' AND id NOT IN (SELECT destination_id FROM bulk_import_records WHERE relation = 'issues')").all(),
      ).toEqual([]);
      expect(db.prepare("SELECT id FROM notes WHERE imported_from = 'gitlab' AND id NOT IN (SELECT destination_id FROM bulk_import_records WHERE relation = 'notes')").all()).toEqual([]);
      expect(db.prepare("SELECT r.source_id FROM project_import_records r WHERE kind = 'issue' AND NOT EXISTS (SELECT 1 FROM issues i WHERE i.id = r.target_id)").all()).toEqual([]);
      expect(
        db
          .prepare("SELECT id FROM issues WHERE project_id = ? AND imported_from = 'github' AND id NOT IN (SELECT target_id FROM project_import_records WHERE project_id = ? AND kind = 'issue')")
          .all(imported.body.id, imported.body.id),
      ).toEqual([]);
    } finally {
      db.close();
    }
  }, 300_000);
});
