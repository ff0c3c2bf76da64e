/**
 * Builds the data dirs the scale bench reads, once (reused across runs; `--force` rebuilds):
 *
 * - big:   a group holding the big project (1,000,000 issues by default, a tenth of them closed,
 *          a third labelled, a twentieth by other authors, created over three years) and the small
 *          project (3 issues), with notes, merge requests, snippets, epics, labels and members at a
 *          realistic scale around them, and thousands of users, groups and projects besides.
 * - small: the same shapes with a handful of rows, for the instance-wide lists (projects, groups,
 *          users) to be compared with.
 *
 * Every record goes through the service's own route handlers with `inject()` (no sockets, no HTTP
 * parsing), thousands per SQLite transaction, so ids, iids, events and validation are exactly what
 * the API would have written; except the big project's issues and their notes, which go through the
 * importers' bulk writers (see below).
 *
 * Run: npx tsx bench/build-scale.ts [--issues 1000000] [--dir bench/.data] [--force]
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createService, type Service } from '../src/main/service';
import { insertImportedIssue, insertImportedNote } from '../src/main/service/areas/core/imported';
import { ROOT, fmt } from './lib';
import { TOKEN } from './targets';

/** What the scale bench needs to find in a built data dir. */
export interface ScaleManifest {
  token: string;
  groupId: number;
  groupPath: string;
  bigProjectId: number;
  smallProjectId: number;
  authorId: number;
  labels: string[];
  milestone: string | null;
  /** The big project's issue with many notes, once bench/scale-busy.ts added them. */
  busyIssueIid?: number;
  /** Once bench/scale-more.ts added its merge requests, snippets, epics and labels. */
  moreLists?: boolean;
  /** Once bench/scale-weights.ts gave issues weights and epics: the epic the lines filter by. */
  weightsAndEpics?: { epicId: number };
  counts: Record<string, number>;
  builtAt: string;
  seconds: number;
}

interface Scale {
  issues: number;
  users: number;
  groups: number;
  projects: number;
  notesPerIssueEvery: number;
  mergeRequests: number;
  snippets: number;
  epics: number;
  labels: number;
  members: number;
}

const BIG = (issues: number): Scale => ({
  issues,
  users: 5_000,
  groups: 2_000,
  projects: 10_000,
  notesPerIssueEvery: 10,
  mergeRequests: 20_000,
  snippets: 5_000,
  epics: 10_000,
  labels: 200,
  members: 2_000,
});

const SMALL: Scale = { issues: 3, users: 3, groups: 3, projects: 3, notesPerIssueEvery: 1, mergeRequests: 3, snippets: 3, epics: 3, labels: 3, members: 3 };

export const manifestPath = (dataDir: string): string => join(dataDir, 'bench-manifest.json');

export function readManifest(dataDir: string): ScaleManifest | null {
  const file = manifestPath(dataDir);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ScaleManifest) : null;
}

/** The big and small instances of a data dir this script wrote, for the benches that read them. */
export function readScaleDirs(dirArg: string): { dir: string; big: ScaleManifest; small: ScaleManifest } {
  const dir = resolve(dirArg);
  const big = readManifest(join(dir, 'big'));
  const small = readManifest(join(dir, 'small'));
  if (!big || !small) throw new Error(`build the data first: npx tsx bench/build-scale.ts --dir ${dir}`);
  return { dir, big, small };
}

const BATCH = 2_000;

async function build(dataDir: string, scale: Scale, bigIssues: number): Promise<ScaleManifest> {
  const started = performance.now();
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const service = await createService({ dataDir, port: 0, rootToken: TOKEN });
  const db = service.context.db;
  const counts: Record<string, number> = {};
  try {
    const api = apiOf(service);
    const group = await api('POST', '/groups', { name: 'Scale', path: 'scale', visibility: 'internal' });
    const big = await api('POST', '/projects', { name: 'big', namespace_id: group.id, visibility: 'internal' });
    const small = await api('POST', '/projects', { name: 'small', namespace_id: group.id, visibility: 'internal' });

    // Users (no password hashing: force_random_password), some of them members of the group.
    const userIds: number[] = [];
    await batched(db, 'users', scale.users, counts, async (i) => {
      const u = await api('POST', '/users', { username: `user${i}`, name: `User ${i}`, email: `user${i}@example.com`, force_random_password: true });
      userIds.push(u.id);
    });
    await batched(db, 'members', Math.min(scale.members, userIds.length), counts, async (i) => {
      await api('POST', `/groups/${group.id}/members`, { user_id: userIds[i], access_level: [10, 20, 30, 40][i % 4] });
    });
    await batched(db, 'groups', scale.groups, counts, async (i) => {
      await api('POST', '/groups', { name: `Group ${i}`, path: `group-${i}`, visibility: ['public', 'internal', 'private'][i % 3] });
    });
    await batched(db, 'projects', scale.projects, counts, async (i) => {
      await api('POST', '/projects', { name: `project-${i}`, visibility: ['public', 'internal', 'private'][i % 3] });
    });

    const labels: string[] = [];
    for (const project of [big, small]) {
      for (let i = 0; i < (project === big ? scale.labels : 3); i++) {
        const name = i === 0 ? 'bug' : `label-${i}`;
        await api('POST', `/projects/${project.id}/labels`, { name, color: '#428bca' });
        if (project === big) labels.push(name);
      }
    }
    // Milestones are filtered on; create them where the service has them.
    let milestone: string | null = null;
    const milestoneIds = new Map<number, number>();
    for (const project of [big, small]) {
      const res = await service.inject({ method: 'POST', url: `/api/v4/projects/${project.id}/milestones`, headers: headers(), payload: { title: 'v1' } });
      if (res.statusCode === 201) {
        milestone = 'v1';
        milestoneIds.set(project.id, (JSON.parse(res.body) as { id: number }).id);
      }
    }

    const authorId = userIds[1] ?? 1;
    const day = 24 * 3600 * 1000;
    const since = Date.parse('2023-01-01T00:00:00Z');
    const issueBody = (project: { id: number }, i: number, n: number) => ({
      title: `Issue ${i}: ${['crash on start', 'slow list', 'typo in docs', 'login fails', 'export broken'][i % 5]}`,
      description: `Steps to reproduce issue ${i}.`,
      labels: i % 3 === 0 ? `${labels[i % labels.length] ?? 'bug'},${i % 9 === 0 ? 'bug' : (labels[(i * 7) % labels.length] ?? 'bug')}` : '',
      created_at: new Date(since + Math.floor((i / n) * 3 * 365 * day)).toISOString(),
      ...(milestoneIds.has(project.id) && i % 4 === 0 ? { milestone_id: milestoneIds.get(project.id) } : {}),
    });
    // The small project's issues go through the issue routes. The big project's million go through
    // the service's own bulk write path, the importers' writers (core/imported.ts: one INSERT per
    // record, the same triggers and indexes; no activity events, as for any imported record):
    // through the routes they would take hours on a shared machine.
    await batched(db, 'issues (small)', SMALL.issues, counts, async (i) => {
      const sudo: Record<string, string> = i % 20 === 0 ? { sudo: String(authorId) } : {};
      const issue = await api('POST', `/projects/${small.id}/issues`, issueBody(small, i, SMALL.issues), sudo);
      if (i % 10 === 0) await api('PUT', `/projects/${small.id}/issues/${issue.iid}`, { state_event: 'close' });
      await api('POST', `/projects/${small.id}/issues/${issue.iid}/notes`, { body: `A comment on issue ${i}` });
    });
    const setMilestone = db.prepare('UPDATE issues SET milestone_id = ? WHERE id = ?');
    await batched(db, 'issues (big)', bigIssues, counts, async (i) => {
      const body = issueBody(big, i, bigIssues);
      const closed = i % 10 === 0;
      const row = insertImportedIssue(service.context, big.id, {
        iid: i + 1,
        title: body.title,
        description: body.description,
        state: closed ? 'closed' : 'opened',
        // A twentieth by another author, a tenth closed.
        authorId: i % 20 === 0 ? authorId : 1,
        labels: body.labels ? [...new Set(body.labels.split(','))] : [],
        closedAt: closed ? body.created_at : null,
        closedById: closed ? 1 : null,
        createdAt: body.created_at,
        updatedAt: body.created_at,
        importedFrom: 'none',
      });
      if (body.milestone_id) setMilestone.run(body.milestone_id, row.id);
      if (i % scale.notesPerIssueEvery === 0) {
        insertImportedNote(service.context, big.id, {
          noteableType: 'Issue',
          noteableId: row.id,
          authorId: 1,
          body: `A comment on issue ${i}`,
          createdAt: body.created_at,
          updatedAt: body.created_at,
          importedFrom: 'none',
        });
      }
    });
    for (const project of [small, big]) {
      const isBig = project === big;
      await batched(db, `merge requests${isBig ? ' (big)' : ''}`, isBig ? scale.mergeRequests : SMALL.mergeRequests, counts, async (i) => {
        await api('POST', `/projects/${project.id}/merge_requests`, { source_branch: `feature-${i}`, target_branch: 'main', title: `Change ${i}` });
      });
      await batched(db, `snippets${isBig ? ' (big)' : ''}`, isBig ? scale.snippets : SMALL.snippets, counts, async (i) => {
        await api('POST', `/projects/${project.id}/snippets`, { title: `Snippet ${i}`, file_name: `s${i}.txt`, content: `content ${i}`, visibility: 'internal' });
      });
    }
    await batched(db, 'epics', scale.epics, counts, async (i) => {
      await api('POST', `/groups/${group.id}/epics`, { title: `Epic ${i}`, labels: i % 2 ? 'bug' : '' });
    });

    const manifest: ScaleManifest = {
      token: TOKEN,
      groupId: group.id,
      groupPath: group.full_path,
      bigProjectId: big.id,
      smallProjectId: small.id,
      authorId,
      labels: labels.slice(0, 5),
      milestone,
      counts,
      builtAt: new Date().toISOString(),
      seconds: Math.round((performance.now() - started) / 1000),
    };
    writeFileSync(manifestPath(dataDir), JSON.stringify(manifest, null, 2));
    return manifest;
  } finally {
    await service.close();
  }
}

const headers = (extra: Record<string, string> = {}) => ({ 'private-token': TOKEN, 'content-type': 'application/json', ...extra });

/** A JSON call through the service's own routes; anything but 2xx stops the build. */
function apiOf(service: Service) {
  return async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, extra?: Record<string, string>): Promise<any> => {
    const res = await service.inject({ method, url: `/api/v4${url}`, headers: headers(extra), payload: payload as object });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? JSON.parse(res.body) : null;
  };
}

/** Runs `one(i)` for i < n, BATCH calls per SQLite transaction, printing progress. */
async function batched(db: Service['context']['db'], what: string, n: number, counts: Record<string, number>, one: (i: number) => Promise<void>): Promise<void> {
  const t0 = performance.now();
  for (let start = 0; start < n; start += BATCH) {
    db.exec('BEGIN');
    try {
      for (let i = start; i < Math.min(n, start + BATCH); i++) await one(i);
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw err;
    }
    const done = Math.min(n, start + BATCH);
    if (n > BATCH) process.stderr.write(`\r  ${what}: ${done.toLocaleString('en-US')} / ${n.toLocaleString('en-US')} (${fmt(done / ((performance.now() - t0) / 1000), 0)}/s)   `);
  }
  if (n > BATCH) process.stderr.write('\n');
  counts[what] = n;
}

async function main(): Promise<void> {
  const { values: opts } = parseArgs({
    options: {
      issues: { type: 'string', default: '1000000' },
      dir: { type: 'string', default: join(ROOT, 'bench/.data') },
      force: { type: 'boolean', default: false },
    },
  });
  const dir = resolve(opts.dir);
  const issues = Number(opts.issues);
  for (const [name, scale] of [
    ['small', SMALL],
    ['big', BIG(issues)],
  ] as const) {
    const dataDir = join(dir, name);
    const existing = readManifest(dataDir);
    if (existing && !opts.force && (name === 'small' || existing.counts['issues (big)'] === issues)) {
      console.log(`${name}: already built ${existing.builtAt} (${JSON.stringify(existing.counts)}); --force rebuilds`);
      continue;
    }
    console.log(`building ${name} in ${dataDir}`);
    const manifest = await build(dataDir, scale, name === 'big' ? issues : SMALL.issues);
    console.log(`${name}: built in ${manifest.seconds} s: ${JSON.stringify(manifest.counts)}`);
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
