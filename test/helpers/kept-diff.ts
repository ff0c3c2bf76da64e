import Database from 'better-sqlite3';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { request } from 'node:http';
import { createService, type Service } from '../../src/main/service';
import { git, scratchDir, withCredentials } from './git';
import { insertImportedIssue, insertImportedMergeRequest, insertImportedNote } from '../../src/main/service/areas/core/imported';
import { insertImportedEpic } from '../../src/main/service/areas/bulk_imports/writer';

/**
 * The differential check of what a service keeps between requests (kept pages, remembered reads,
 * anchors, kept counts, entities): a long-running service takes random writes of the kinds a GitLab
 * user makes through the REST API, and after each batch every list in its pool (issues, merge
 * requests, notes, discussions, events, snippets, labels, epics, members, projects, groups, users,
 * milestones, search; project, group and instance scopes; as an administrator, a member, a guest
 * and a non-member; random filters, orders, pages and keyset cursors) is asked of it and of a
 * service started afresh on the same data dir (nothing kept yet): status, body, X-Total,
 * X-Total-Pages, X-Next-Page, X-Prev-Page, X-Page, X-Per-Page and Link must be the same.
 *
 * Works on any data dir (a test's seeded one, or a copy of a scale dir): the records are found in
 * SQL through a read-only connection of its own; the actors (a member, a guest, an outsider) and a
 * repository project for merge requests are made through the API at the start.
 */
export interface KeptDiffOptions {
  dataDir: string;
  rootToken: string;
  seed: number;
  batches: number;
  writesPerBatch: number;
  /** New random reads added to the pool each batch (the pool is read again after every batch). */
  readsPerBatch: number;
  /** Reads kept in the pool at most (the oldest go). */
  poolSize?: number;
  log?: (line: string) => void;
  /** Told every token and password the check makes (the test suite's secrets sweep looks for them). */
  secret?: (value: string) => void;
}

export interface Divergence {
  batch: number;
  who: Actor;
  path: string;
  what: string;
  kept: string;
  fresh: string;
  /** The writes of the batch before the reads (kind and path). */
  writes: string[];
}

export interface KeptDiffResult {
  divergences: Divergence[];
  reads: number;
  writes: Record<string, { ok: number; failed: number }>;
  /**
   * Per kind of read (readKinds: its endpoint, its caller, its list's shape): the reads compared, and
   * those the kept service answered with fewer SQL statements than the fresh one (something kept
   * reached: a kept page, an anchor, remembered rows or counts), with both services' statements summed.
   */
  kinds: Record<string, { reads: number; reached: number; keptStatements: number; freshStatements: number }>;
}

/**
 * The callers: the administrator; a Developer, a Reporter and a Guest of the group; an outsider (no
 * membership, but of a group some projects are shared with now and then); an external user (a
 * Reporter of the big project alone); nobody.
 */
type Actor = 'admin' | 'member' | 'reporter' | 'guest' | 'outsider' | 'external' | 'anonymous';
interface Read {
  who: Actor;
  path: string;
  /** A keyset first page: the next page is asked too, at the kept service's Link. */
  keyset?: boolean;
  /** Asked through this Host header (kept pages are keyed by the base URL they name). */
  host?: string;
}

/** mulberry32: the same draws for the same seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PASSWORD = 'Password-123-kept-diff';
const HEADERS = ['x-total', 'x-total-pages', 'x-next-page', 'x-prev-page', 'x-page', 'x-per-page', 'link'];

interface Answer {
  status: number;
  text: string;
  headers: Record<string, string | null>;
}

async function call(base: string, token: string, method: string, path: string, body?: unknown, host?: string): Promise<Answer> {
  // No token: anonymous.
  const headers: Record<string, string> = token ? { 'private-token': token } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (host !== undefined) return callWithHost(base, headers, path, host);
  const res = await fetch(`${base}/api/v4${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const out: Record<string, string | null> = {};
  for (const h of HEADERS) out[h] = res.headers.get(h);
  return { status: res.status, text, headers: out };
}

/** A GET through a Host header of our choosing (fetch cannot set one): links and web URLs name that host. */
function callWithHost(base: string, headers: Record<string, string>, path: string, host: string): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path: `/api/v4${path}`, headers: { ...headers, host }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        const out: Record<string, string | null> = {};
        for (const h of HEADERS) out[h] = (res.headers[h] as string | undefined) ?? null;
        resolve({ status: res.statusCode!, text, headers: out });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Shapes of a list's query the tally names (readKinds), by a test of its parameters. */
const SHAPES: [string, (q: URLSearchParams) => boolean][] = [
  ['keyset', (q) => q.get('pagination') === 'keyset'],
  ['with_labels_details', (q) => q.has('with_labels_details')],
  ['view=simple', (q) => q.get('view') === 'simple'],
  ['iids[]', (q) => q.has('iids[]')],
  ['not[]', (q) => [...q.keys()].some((k) => k.startsWith('not['))],
  ['search+order_by', (q) => q.has('search') && q.has('order_by')],
  ['scope', (q) => q.has('scope')],
  ['sudo', (q) => q.has('sudo')],
  ['per_page=100 deep', (q) => q.get('per_page') === '100' && Number(q.get('page')) >= 20],
  ['page past 1,000 rows', (q) => Number(q.get('per_page') ?? 20) * (Number(q.get('page') ?? 1) - 1) >= 1000],
];

/** What a read is, for the tally: its endpoint (numbers as :id), its caller, and each of its list's SHAPES. */
function readKinds(who: Actor, path: string): string[] {
  const [route, query = ''] = path.split('?');
  const q = new URLSearchParams(query);
  return [`GET ${route.replace(/\/\d+/g, '/:id').replace(/\/labels\/[^/]+$/, '/labels/:name')}`, `caller ${who}`, ...SHAPES.filter(([, test]) => test(q)).map(([name]) => `shape ${name}`)];
}

/** The SQL statements a service prepares (each use prepares its statement): `take()` gives those since the last take. */
function statementCounter(service: Service): { take(): number } {
  const db = service.context.db;
  const prepare = db.prepare;
  let count = 0;
  db.prepare = ((sql: string) => (count++, prepare.call(db, sql))) as typeof db.prepare;
  return {
    take: () => {
      const n = count;
      count = 0;
      return n;
    },
  };
}

/** The first place two JSON texts differ, as `path: kept | fresh`. */
function firstDifference(a: string, b: string): string {
  let x: unknown, y: unknown;
  try {
    x = JSON.parse(a);
    y = JSON.parse(b);
  } catch {
    return 'body text';
  }
  const walk = (p: string, u: unknown, v: unknown): string | null => {
    if (JSON.stringify(u) === JSON.stringify(v)) return null;
    if (u && v && typeof u === 'object' && typeof v === 'object') {
      if (Array.isArray(u) && Array.isArray(v) && u.length !== v.length) return `${p}.length ${u.length} | ${v.length}`;
      for (const k of new Set([...Object.keys(u), ...Object.keys(v)])) {
        const d = walk(`${p}.${k}`, (u as Record<string, unknown>)[k], (v as Record<string, unknown>)[k]);
        if (d) return d;
      }
    }
    return `${p}: ${JSON.stringify(u)?.slice(0, 200)} | ${JSON.stringify(v)?.slice(0, 200)}`;
  };
  return walk('body', x, y) ?? 'body text';
}

export async function runKeptDiff(o: KeptDiffOptions): Promise<KeptDiffResult> {
  const log = o.log ?? (() => {});
  o.secret?.(PASSWORD);
  const rnd = prng(o.seed);
  const int = (n: number): number => Math.floor(rnd() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  const chance = (p: number): boolean => rnd() < p;
  const poolSize = o.poolSize ?? 400;

  // One clock for both services, moved on between batches (minutes to days): what depends on the
  // date (overdue, upcoming milestones, expired, event dates) must follow it.
  let nowMs = Date.now();
  const clock = (): Date => new Date(nowMs);
  const kept: Service = await createService({ dataDir: o.dataDir, port: 0, rootToken: o.rootToken, clock });
  const keptUrl = await kept.listen();
  const sql = new Database(join(o.dataDir, 'sandlab.db'), { readonly: true });
  const all = <T>(q: string, ...args: unknown[]): T[] => sql.prepare(q).all(...args) as T[];
  const one = <T>(q: string, ...args: unknown[]): T | undefined => sql.prepare(q).get(...args) as T | undefined;
  const keptStatements = statementCounter(kept);
  const tokens: Record<Actor, string> = { admin: o.rootToken, member: '', reporter: '', guest: '', outsider: '', external: '', anonymous: '' };
  const writes: KeptDiffResult['writes'] = {};
  const kinds: KeptDiffResult['kinds'] = {};
  const divergences: Divergence[] = [];
  let reads = 0;
  let n = 0;
  /** The repository project's clone, for real pushes (made at the first). */
  let clone: string | undefined;
  const tag = `d${o.seed}`;

  const api = (who: Actor, method: string, path: string, body?: unknown) => call(keptUrl, tokens[who], method, path, body);
  const must = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await api('admin', method, path, body);
    if (res.status >= 300) throw new Error(`kept-diff set-up: ${method} ${path} -> ${res.status} ${res.text.slice(0, 300)}`);
    return res.text ? JSON.parse(res.text) : null;
  };

  try {
    // The records: the project with the most issues, its group, and a sample of the others.
    const bigProject = one<{ project_id: number }>('SELECT project_id FROM issues GROUP BY project_id ORDER BY MAX(iid) DESC LIMIT 1')?.project_id ?? 1;
    /** The project with the most merge requests (past 10,000 on the seeded dir and on mr17). */
    const mrProject = one<{ project_id: number }>('SELECT project_id FROM merge_requests GROUP BY project_id ORDER BY MAX(iid) DESC LIMIT 1')?.project_id ?? bigProject;
    const group = one<{ id: number }>(`SELECT n.id FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE p.id = ? AND n.kind = 'group'`, bigProject)?.id;
    if (group === undefined) throw new Error('kept-diff: the project with the most issues is not in a group');
    /** The callers an administrator's read acts as now and then (sudo): the same user through another token. */
    const sudoTargets: number[] = [];
    const actor = async (who: Actor, level: number | null, extra: Record<string, unknown> = {}): Promise<number> => {
      const user = await must('POST', '/users', { username: `${tag}-${who}-${Date.now() % 100000}`, name: `Diff ${who}`, email: `${tag}-${who}-${Date.now()}@example.com`, password: PASSWORD, ...extra });
      sudoTargets.push(user.id);
      tokens[who] = (await must('POST', `/users/${user.id}/personal_access_tokens`, { name: 'diff', scopes: ['api'] })).token;
      o.secret?.(tokens[who]);
      if (level !== null) await must('POST', `/groups/${group}/members`, { user_id: user.id, access_level: level });
      return user.id;
    };
    const memberId = await actor('member', 30);
    const reporterId = await actor('reporter', 20);
    const guestId = await actor('guest', 10);
    const outsiderId = await actor('outsider', null);
    const externalId = await actor('external', null, { external: true });
    await must('POST', `/projects/${bigProject}/members`, { user_id: externalId, access_level: 20 });
    // A group of the outsider's own, that projects and the group are shared with and unshared from
    // (star/share): what the outsider may see changes under its kept pages.
    const shareGroup = await must('POST', '/groups', { name: `${tag} share ${Date.now() % 100000}`, path: `${tag}-share-${Date.now() % 100000}`, visibility: 'private' });
    await must('POST', `/groups/${shareGroup.id}/members`, { user_id: outsiderId, access_level: 20 });
    const extras: number[] = [];
    for (let i = 0; i < 3; i++) extras.push((await must('POST', '/users', { username: `${tag}-extra${i}-${Date.now() % 100000}`, name: `Extra ${i}`, email: `${tag}-extra${i}-${Date.now()}@example.com`, password: PASSWORD })).id);
    const repo = await must('POST', '/projects', { name: `${tag}-repo-${Date.now() % 100000}`, namespace_id: group, initialize_with_readme: true });
    const spare = await must('POST', '/projects', { name: `${tag}-spare-${Date.now() % 100000}`, namespace_id: group, visibility: 'private' });
    // Issues of the repository project, that its merge requests close when merged.
    for (let i = 0; i < 4; i++) await must('POST', `/projects/${repo.id}/issues`, { title: `repo issue ${i}`, labels: i % 2 ? 'bug' : undefined });

    const projects = (): number[] => [bigProject, repo.id, spare.id, ...all<{ id: number }>('SELECT id FROM projects ORDER BY id LIMIT 6').map((r) => r.id)];
    const groups = (): number[] => [group, ...all<{ id: number }>(`SELECT id FROM namespaces WHERE kind = 'group' ORDER BY id LIMIT 5`).map((r) => r.id)];
    const users = (): number[] => [1, memberId, ...all<{ id: number }>('SELECT id FROM users ORDER BY id LIMIT 8').map((r) => r.id)];
    const maxIid = (table: string, project: number): number => one<{ m: number | null }>(`SELECT MAX(iid) AS m FROM ${table} WHERE project_id = ?`, project)?.m ?? 0;

    // Records the reads showed: writes pick among them more often than not, so they touch kept pages.
    const seen = { issues: [] as [number, number][], mrs: [] as [number, number][], notes: [] as [number, number, number][], users: [] as number[], epics: [] as [number, number][], snippets: [] as [number, number][] };
    const remember = <T>(xs: T[], x: T): void => {
      if (xs.length >= 300) xs.splice(int(xs.length), 1);
      xs.push(x);
    };
    const harvest = (path: string, text: string): void => {
      if (!text.startsWith('[')) return;
      let rows: any[];
      try {
        rows = JSON.parse(text);
      } catch {
        return;
      }
      for (const r of rows.slice(0, 20)) {
        if (!r || typeof r !== 'object') continue;
        if (/merge_requests/.test(path) && r.iid && r.project_id) remember(seen.mrs, [r.project_id, r.iid]);
        else if (/\/epics/.test(path) && r.iid && r.group_id) remember(seen.epics, [r.group_id, r.iid]);
        else if (/issues/.test(path) && r.iid && r.project_id) remember(seen.issues, [r.project_id, r.iid]);
        else if (/\/notes/.test(path) && r.noteable_iid && r.id) {
          const m = /projects\/(\d+)\/issues\/(\d+)/.exec(path);
          if (m) remember(seen.notes, [Number(m[1]), Number(m[2]), r.id]);
        } else if (/snippets/.test(path) && r.id) remember(seen.snippets, [r.project_id ?? 0, r.id]);
        if (r.author?.id) remember(seen.users, r.author.id);
      }
    };
    const issueOf = (): [number, number] => {
      if (seen.issues.length && chance(0.7)) {
        // One the reads showed, unless it is gone since (deleted, or its project): then one of the records'.
        const shown = pick(seen.issues);
        if (one('SELECT 1 FROM issues WHERE project_id = ? AND iid = ?', ...shown)) return shown;
      }
      const drawn = chance(0.6) ? bigProject : pick(projects());
      // A project without issues (the spare one, a new one): the big project.
      const p = maxIid('issues', drawn) ? drawn : bigProject;
      return [p, 1 + int(Math.max(1, maxIid('issues', p)))];
    };
    /**
     * One of the big project's ten newest issues: before every deep page in the default order (newest
     * first), so that a close or delete moves those pages' rows, and their kept anchors, back by one.
     */
    const newestIssue = (): [number, number] => [bigProject, pick(all<{ iid: number }>('SELECT iid FROM issues WHERE project_id = ? ORDER BY id DESC LIMIT 10', bigProject).map((r) => r.iid).concat(1))];
    const mrOf = (): [number, number] => {
      if (seen.mrs.length && chance(0.7)) return pick(seen.mrs);
      // Before the reads showed any: one of the records' newest (the repository's, or the seeded ones).
      const recent = all<{ project_id: number; iid: number }>('SELECT project_id, iid FROM merge_requests ORDER BY id DESC LIMIT 20');
      if (recent.length && chance(0.5)) {
        const r = pick(recent);
        return [r.project_id, r.iid];
      }
      const p = chance(0.5) ? repo.id : pick(projects());
      // A project without merge requests (the repository before any is made): one of the records'.
      if (!maxIid('merge_requests', p) && recent.length) return [recent[0].project_id, recent[0].iid];
      return [p, 1 + int(Math.max(1, maxIid('merge_requests', p)))];
    };
    /** One of the project's labels ('bug' when it has none: a group's label, or none). */
    const labelOf = (p: number): string => {
      const titles = all<{ title: string }>('SELECT title FROM labels WHERE project_id = ? ORDER BY id LIMIT 20', p).map((r) => r.title);
      return titles.length ? pick(titles) : 'bug';
    };
    const milestoneOf = (p: number): number | undefined => pick(all<{ id: number }>('SELECT id FROM milestones WHERE project_id = ? ORDER BY id LIMIT 20', p).map((r) => r.id).concat(0)) || undefined;
    const LABELS = ['bug', 'label-1', 'label-2', 'feature', 'doc'];
    const someLabels = (): string => Array.from({ length: 1 + int(2) }, () => pick(LABELS)).join(',');
    const epicIdOf = (): number => pick(all<{ id: number }>('SELECT id FROM epics WHERE group_id = ? ORDER BY id DESC LIMIT 10', group).map((r) => r.id).concat(0));
    /** A date near the clock's today (a day or two either side): what is due, overdue, upcoming or expired moves with the clock. */
    const nearDay = (): string => new Date(nowMs + (int(7) - 3) * 86_400_000).toISOString().slice(0, 10);
    const someDay = (): string => (chance(0.6) ? nearDay() : `2025-0${1 + int(9)}-1${int(10)}`);
    const userOf = (): number => (seen.users.length && chance(0.5) ? pick(seen.users) : pick(users()));

    let branches = 0;
    const isArchived = (p: number): boolean => one<{ archived: number }>('SELECT archived FROM projects WHERE id = ?', p)?.archived === 1;
    /** Set by a write meant to be refused ('archived write'): its tally counts the refusal as ok. */
    let meantRefused = false;
    /** Seven times in ten, a user who is blocked or deactivated unblocked or activated; otherwise nothing. */
    const letBackIn = (id: number): [string, string] | undefined => {
      const state = one<{ state: string }>('SELECT state FROM users WHERE id = ?', id)?.state;
      if (state === 'active' || !chance(0.7)) return undefined;
      return ['POST', `/users/${id}/${state === 'deactivated' ? 'activate' : 'unblock'}`];
    };
    /**
     * A merge request of the repository, ready to merge: a commit on a new branch, and its merge request
     * (by the administrator, before the write). Its iid, or the next one when the project refuses (archived).
     */
    const mergeRequestOfRepo = async (title: string): Promise<number> => {
      const branch = `${tag}-b${++branches}`;
      await api('admin', 'POST', `/projects/${repo.id}/repository/commits`, { branch, start_branch: 'main', commit_message: `change ${branch}`, actions: [{ action: 'create', file_path: `${branch}.txt`, content: `${branch}\n` }] });
      const made = await api('admin', 'POST', `/projects/${repo.id}/merge_requests`, { source_branch: branch, target_branch: 'main', title });
      return made.status === 201 ? (JSON.parse(made.text) as { iid: number }).iid : 1 + maxIid('merge_requests', repo.id);
    };
    /** Each write: its kind, method, path and body (as the administrator unless it names someone). */
    const WRITES: Record<string, () => Promise<[string, string, unknown?, Actor?]> | [string, string, unknown?, Actor?]> = {
      'issue create': () => [
        'POST',
        `/projects/${chance(0.5) ? bigProject : pick(projects())}/issues`,
        { title: `${pick(['Alpha', 'beta', 'crash', 'issue'])} ${tag} ${++n}`, labels: chance(0.6) ? someLabels() : undefined, confidential: chance(0.2) || undefined, description: `made by ${tag}`, due_date: chance(0.3) ? someDay() : undefined, weight: chance(0.3) ? int(5) : undefined },
        pick(['admin', 'admin', 'member'] as Actor[]),
      ],
      'issue edit': () => {
        const [p, iid] = issueOf();
        const edits = [
          { title: `edited ${tag} ${++n}` },
          { description: `described ${++n}` },
          { add_labels: someLabels() },
          { remove_labels: someLabels() },
          { labels: chance(0.3) ? '' : someLabels() },
          { milestone_id: chance(0.3) ? 0 : milestoneOf(p) ?? 0 },
          { assignee_ids: chance(0.3) ? [] : [userOf()] },
          { confidential: chance(0.5) },
          { due_date: chance(0.3) ? null : someDay() },
          { state_event: pick(['close', 'reopen']) },
          { discussion_locked: chance(0.5) },
          { weight: chance(0.3) ? null : int(9) },
          { epic_id: chance(0.3) ? 0 : epicIdOf() },
          { description: `- [ ] one ${++n}\n- [x] two` },
        ];
        return ['PUT', `/projects/${p}/issues/${iid}`, pick(edits), pick(['admin', 'admin', 'member'] as Actor[])];
      },
      'issue close/reopen': () => {
        const [p, iid] = chance(0.3) ? newestIssue() : issueOf();
        return ['PUT', `/projects/${p}/issues/${iid}`, { state_event: pick(['close', 'reopen']) }];
      },
      'issue delete': () => {
        const [p, iid] = chance(0.3) ? newestIssue() : issueOf();
        return ['DELETE', `/projects/${p}/issues/${iid}`];
      },
      'issue move/clone': () => {
        // An issue moved (closed where it was, with moved_to_id, and made anew in the other project with
        // its notes) or cloned to another project: two projects' lists in one write. A second move of
        // the same issue is can_move?'s 400.
        const [p, iid] = chance(0.3) ? newestIssue() : issueOf();
        const to = pick([bigProject, ...projects()].filter((x) => x !== p)) ?? bigProject;
        return ['POST', `/projects/${p}/issues/${iid}/${pick(['move', 'clone'])}`, { to_project_id: to }];
      },
      'issue award': () => {
        const [p, iid] = issueOf();
        return ['POST', `/projects/${p}/issues/${iid}/award_emoji`, { name: pick(['thumbsup', 'thumbsdown', 'smile']) }, pick(['admin', 'member'] as Actor[])];
      },
      'issue todo': () => {
        const [p, iid] = issueOf();
        return chance(0.7) ? ['POST', `/projects/${p}/issues/${iid}/todo`, undefined, pick(['admin', 'member'] as Actor[])] : ['POST', '/todos/mark_as_done', undefined, pick(['admin', 'member'] as Actor[])];
      },
      'issue subscribe': async () => {
        // The other way from what the caller is now (the issue's `subscribed` as they see it): a write that lands.
        const [p, iid] = issueOf();
        const who = pick(['admin', 'member', 'reporter'] as Actor[]);
        const shown = await api(who, 'GET', `/projects/${p}/issues/${iid}`);
        const subscribed = shown.status === 200 && (JSON.parse(shown.text) as { subscribed?: boolean }).subscribed === true;
        return ['POST', `/projects/${p}/issues/${iid}/${subscribed ? 'unsubscribe' : 'subscribe'}`, undefined, who];
      },
      'note create': () => {
        const [p, iid] = issueOf();
        return chance(0.5) ? ['POST', `/projects/${p}/issues/${iid}/notes`, { body: `note ${tag} ${++n}`, internal: chance(0.2) || undefined }, pick(['admin', 'member'] as Actor[])] : ['POST', `/projects/${p}/issues/${iid}/discussions`, { body: `thread ${tag} ${++n}` }];
      },
      'note edit/delete': () => {
        if (!seen.notes.length) return ['POST', `/projects/${bigProject}/issues/2/notes`, { body: `note ${tag} ${++n}` }];
        const [p, iid, id] = pick(seen.notes);
        return chance(0.6) ? ['PUT', `/projects/${p}/issues/${iid}/notes/${id}`, { body: `edited note ${++n}` }] : ['DELETE', `/projects/${p}/issues/${iid}/notes/${id}`];
      },
      'issue link': () => {
        const [p, iid] = issueOf();
        const [tp, tiid] = issueOf();
        return ['POST', `/projects/${p}/issues/${iid}/links`, { target_project_id: tp, target_issue_iid: tiid, link_type: pick(['relates_to', 'blocks', 'is_blocked_by']) }];
      },
      'star/share': () => {
        // The other way from what the records say, so that it lands: a star taken back, a share undone.
        const p = pick([bigProject, repo.id, spare.id]);
        const who = pick(['admin', 'member', 'reporter', 'outsider'] as Actor[]);
        const userId = { admin: 1, member: memberId, reporter: reporterId, outsider: outsiderId }[who as 'admin'];
        const starred = one('SELECT 1 FROM project_stars WHERE project_id = ? AND user_id = ?', p, userId) !== undefined;
        const shared = one('SELECT 1 FROM project_group_links WHERE project_id = ? AND group_id = ?', p, shareGroup.id) !== undefined;
        const groupShared = one('SELECT 1 FROM group_group_links WHERE shared_group_id = ? AND shared_with_group_id = ?', group, shareGroup.id) !== undefined;
        const kinds: [string, string, unknown?, Actor?][] = [
          ['POST', `/projects/${p}/${starred ? 'unstar' : 'star'}`, undefined, who],
          shared ? ['DELETE', `/projects/${p}/share/${shareGroup.id}`] : ['POST', `/projects/${p}/share`, { group_id: shareGroup.id, group_access: pick([10, 20, 30]) }],
          groupShared ? ['DELETE', `/groups/${group}/share/${shareGroup.id}`] : ['POST', `/groups/${group}/share`, { group_id: shareGroup.id, group_access: pick([10, 20, 30]) }],
        ];
        return pick(kinds);
      },
      'draft notes': async () => {
        // A reviewer's draft notes, published together: they reach the notes and discussions at once.
        const [p, iid] = mrOf();
        await api('admin', 'POST', `/projects/${p}/merge_requests/${iid}/draft_notes`, { note: `draft ${tag} ${++n}` });
        return ['POST', `/projects/${p}/merge_requests/${iid}/draft_notes/bulk_publish`];
      },
      'epic note/award': () => {
        const [g, iid] = seen.epics.length ? pick(seen.epics) : [group, 1];
        return chance(0.5) ? ['POST', `/groups/${g}/epics/${iid}/notes`, { body: `epic note ${++n}` }] : ['POST', `/groups/${g}/epics/${iid}/award_emoji`, { name: pick(['thumbsup', 'thumbsdown']) }, pick(['admin', 'member'] as Actor[])];
      },
      'user status': () => ['PUT', '/user/status', { emoji: pick(['coffee', 'tada']), message: `busy ${++n}`, availability: pick(['busy', 'not_set']) }, pick(['admin', 'member'] as Actor[])],
      'mr note/award': () => {
        const [p, iid] = mrOf();
        return chance(0.5) ? ['POST', `/projects/${p}/merge_requests/${iid}/notes`, { body: `mr note ${++n}` }] : ['POST', `/projects/${p}/merge_requests/${iid}/award_emoji`, { name: pick(['thumbsup', 'thumbsdown']) }];
      },
      'label': () => {
        const p = chance(0.7) ? pick([bigProject, repo.id]) : pick(projects());
        const title = labelOf(p);
        const groupLabel = pick(all<{ title: string }>('SELECT title FROM labels WHERE group_id = ? ORDER BY id DESC LIMIT 10', group).map((r) => r.title).concat('bug'));
        const kinds: [string, string, unknown?][] = [
          ['POST', `/projects/${p}/labels`, { name: `${pick(LABELS)}-${tag}-${++n}`, color: '#aa0000' }],
          ['PUT', `/projects/${p}/labels/${encodeURIComponent(title)}`, { new_name: `${title}-r${++n}` }],
          ['PUT', `/projects/${p}/labels/${encodeURIComponent(title)}`, { priority: chance(0.3) ? null : int(5), description: `d${n}` }],
          ['PUT', `/projects/${p}/labels/${encodeURIComponent(title)}`, { color: pick(['#00ff00', '#123456']) }],
          ['DELETE', `/projects/${p}/labels/${encodeURIComponent(title)}`],
          ['POST', `/groups/${group}/labels`, { name: `g-${tag}-${++n}`, color: '#0000aa' }],
          ['PUT', `/projects/${p}/labels/${encodeURIComponent(title)}/promote`],
          ['PUT', `/groups/${group}/labels/${encodeURIComponent(groupLabel)}`, { new_name: `${groupLabel}-g${++n}` }],
          ['DELETE', `/groups/${group}/labels/${encodeURIComponent(groupLabel)}`],
        ];
        return pick(kinds);
      },
      'milestone': () => {
        const p = chance(0.7) ? bigProject : pick(projects());
        // One of the project's milestones (with its state, closed and activated the other way), or of the group's.
        const ms = all<{ id: number; state: string; project_id: number | null }>('SELECT id, state, project_id FROM milestones WHERE project_id = ? OR group_id = ? ORDER BY id DESC LIMIT 20', p, group);
        if (!ms.length || chance(0.15)) {
          // Its start no later than its due date (GitLab refuses one after: 400).
          const [due, start] = [chance(0.7) ? someDay() : undefined, chance(0.3) ? nearDay() : undefined];
          return ['POST', `/projects/${p}/milestones`, { title: `m-${tag}-${++n}`, due_date: due, start_date: due && start && start > due ? due : start }];
        }
        const m = pick(ms);
        const at = m.project_id === null ? `/groups/${group}/milestones/${m.id}` : `/projects/${m.project_id}/milestones/${m.id}`;
        const kinds: [string, string, unknown?][] = [
          ['PUT', at, { title: `m-${tag}-${++n}` }],
          ['PUT', at, { state_event: m.state === 'closed' ? 'activate' : 'close' }],
          ['PUT', at, { state_event: m.state === 'closed' ? 'activate' : 'close' }],
          ['PUT', at, { due_date: someDay() }],
          ['DELETE', at],
          ['POST', `/groups/${group}/milestones`, { title: `gm-${tag}-${++n}`, due_date: someDay() }],
        ];
        return pick(kinds);
      },
      'mr create': async () => {
        const branch = `${tag}-b${++branches}`;
        await api('admin', 'POST', `/projects/${repo.id}/repository/commits`, { branch, start_branch: 'main', commit_message: `change ${branch}`, actions: [{ action: 'create', file_path: `${branch}.txt`, content: `${branch}\n` }] });
        return ['POST', `/projects/${repo.id}/merge_requests`, { source_branch: branch, target_branch: 'main', title: `${pick(['Draft: ', ''])}change ${branch}`, description: chance(0.5) ? `Closes #${1 + int(Math.max(1, maxIid('issues', repo.id)))}` : undefined, labels: chance(0.5) ? someLabels() : undefined, assignee_id: chance(0.5) ? memberId : undefined }, pick(['admin', 'member'] as Actor[])];
      },
      'mr edit': () => {
        const [p, iid] = mrOf();
        const edits = [{ title: `mr edited ${++n}` }, { add_labels: someLabels() }, { remove_labels: someLabels() }, { state_event: pick(['close', 'reopen']) }, { assignee_ids: [userOf()] }, { reviewer_ids: [userOf()] }, { milestone_id: milestoneOf(p) ?? 0 }, { description: `mr body ${++n}` }];
        return ['PUT', `/projects/${p}/merge_requests/${iid}`, pick(edits)];
      },
      'mr merge': async () => {
        // An opened merge request of the repository that is not a draft and is ready (its status checked
        // by a read first), merged. When none is (all merged, drafts, or none made yet: 405 or 404 in
        // GitLab too), one is made first on a branch of its own.
        // The repository archived (project, archived write): unarchived first seven times in ten, else the
        // merge is refused as GitLab refuses it (401: can_be_merged_by?), as round 24's admin 401 was.
        if (isArchived(repo.id) && chance(0.7)) return ['POST', `/projects/${repo.id}/unarchive`];
        const ready = all<{ iid: number }>(`SELECT iid FROM merge_requests WHERE project_id = ? AND state = 'opened' AND title NOT LIKE 'Draft:%' AND merge_status = 'can_be_merged' ORDER BY iid DESC LIMIT 5`, repo.id);
        const iid = ready.length ? pick(ready).iid : await mergeRequestOfRepo(`to merge ${++n}`);
        await api('admin', 'GET', `/projects/${repo.id}/merge_requests/${iid}`);
        return ['PUT', `/projects/${repo.id}/merge_requests/${iid}/merge`, chance(0.3) ? { squash: true } : {}, pick(['admin', 'member'] as Actor[])];
      },
      'mr close/reopen': async () => {
        // A merge request the reads showed or one of the records' newest, closed when opened and reopened
        // when closed; a merged one is left (GitLab answers 200 and changes nothing). When there is none,
        // one of the repository's, made first.
        const shown = seen.mrs.filter(([p, iid]) => one<{ state: string }>('SELECT state FROM merge_requests WHERE project_id = ? AND iid = ?', p, iid)?.state !== 'merged');
        const recent = all<{ project_id: number; iid: number }>(`SELECT project_id, iid FROM merge_requests WHERE state IN ('opened', 'closed') ORDER BY id DESC LIMIT 20`).map((r): [number, number] => [r.project_id, r.iid]);
        const [p, iid] = shown.length && chance(0.6) ? pick(shown) : recent.length ? pick(recent) : [repo.id, await mergeRequestOfRepo(`to close ${++n}`)];
        const state = one<{ state: string }>('SELECT state FROM merge_requests WHERE project_id = ? AND iid = ?', p, iid)?.state;
        return ['PUT', `/projects/${p}/merge_requests/${iid}`, { state_event: state === 'closed' ? 'reopen' : 'close' }, pick(['admin', 'member'] as Actor[])];
      },
      'git push': async () => {
        // A real push over HTTP: a commit on main or on a merge request's source branch.
        if (!clone) {
          clone = scratchDir('sandlab-kept-diff-');
          const project = JSON.parse((await api('admin', 'GET', `/projects/${repo.id}`)).text);
          await git(clone, ['clone', '-q', withCredentials(project.http_url_to_repo, 'oauth2', o.rootToken), '.']);
        }
        const branch = pick(['main', `${tag}-b${1 + int(Math.max(1, branches))}`]);
        // The project's path may have been written since (project): its clone URL as it is now.
        const now = JSON.parse((await api('admin', 'GET', `/projects/${repo.id}`)).text);
        await git(clone, ['remote', 'set-url', 'origin', withCredentials(now.http_url_to_repo, 'oauth2', o.rootToken)]);
        await git(clone, ['fetch', '-q', 'origin']);
        await git(clone, ['checkout', '-q', '-B', branch, `origin/${branch}`]);
        await git(clone, ['commit', '-q', '--allow-empty', '-m', `pushed ${++n}`]);
        const pushed = await git(clone, ['push', '-q', 'origin', `HEAD:refs/heads/${branch}`]);
        // Told as a write of its own: the push's outcome, then a read of the branch.
        return ['GET', `/projects/${repo.id}/repository/branches/${branch}${pushed.code ? '/push-failed' : ''}`];
      },
      'push': () => ['POST', `/projects/${repo.id}/repository/commits`, { branch: pick(['main', `${tag}-b${1 + int(Math.max(1, branches))}`]), commit_message: `push ${++n}`, actions: [{ action: 'create', file_path: `p-${n}.txt`, content: `${n}\n` }] }],
      'user': () => {
        // A caller blocked or deactivated is let back in most times (their writes are refused while they
        // are: before, the member stayed blocked for all 8 batches of seed 2427, 16 writes refused).
        const back = letBackIn(memberId);
        if (back) return back;
        const u = chance(0.5) ? memberId : userOf();
        const kinds: [string, string, unknown?][] = [
          ['PUT', `/users/${u}`, { name: `Renamed ${++n}` }],
          ['PUT', `/users/${u}`, { username: `renamed-${tag}-${++n}` }],
          ['POST', `/users/${u}/block`],
          ['POST', `/users/${u}/unblock`],
          ['POST', `/users/${u}/deactivate`],
          ['POST', `/users/${u}/activate`],
        ];
        return pick(kinds);
      },
      'user delete': async () => {
        // A user who wrote something first: their records go to the ghost user.
        const user = await must('POST', '/users', { username: `${tag}-gone-${++n}`, name: `Gone ${n}`, email: `${tag}-gone-${n}@example.com`, password: PASSWORD });
        await must('POST', `/groups/${group}/members`, { user_id: user.id, access_level: 30 });
        await api('admin', 'POST', `/projects/${bigProject}/issues`, { title: `by gone ${n}`, assignee_ids: [user.id] });
        await api('admin', 'POST', `/projects/${bigProject}/issues/2/notes`, { body: `@${user.username} hello` });
        return ['DELETE', `/users/${user.id}`];
      },
      'member': () => {
        // Added when not a member of the scope, else their role changed or they removed.
        const project = chance(0.5) ? undefined : pick([bigProject, repo.id, spare.id]);
        const scope = project === undefined ? `/groups/${group}` : `/projects/${project}`;
        const u = pick(extras);
        const member = one('SELECT 1 FROM members WHERE source_type = ? AND source_id = ? AND user_id = ? AND requested_at IS NULL', project === undefined ? 'Namespace' : 'Project', project ?? group, u) !== undefined;
        if (!member) return ['POST', `${scope}/members`, { user_id: u, access_level: pick([10, 20, 30, 40]) }];
        return chance(0.6) ? ['PUT', `${scope}/members/${u}`, { access_level: pick([10, 20, 30, 40]) }] : ['DELETE', `${scope}/members/${u}`];
      },
      'actor access': () => {
        // The callers of the reads themselves: what they may see changes under their kept pages.
        const id = pick([memberId, reporterId, guestId, outsiderId, externalId]);
        const back = letBackIn(id);
        if (back) return back;
        const project = chance(0.4) ? undefined : pick([bigProject, repo.id]);
        const scope = project === undefined ? `/groups/${group}` : `/projects/${project}`;
        const member = one('SELECT 1 FROM members WHERE source_type = ? AND source_id = ? AND user_id = ? AND requested_at IS NULL', project === undefined ? 'Namespace' : 'Project', project ?? group, id) !== undefined;
        // Now and then until a day soon after the clock's (GitLab refuses a day past): the membership lapses as the clock moves on.
        const expires = (): string | undefined => (chance(0.3) ? new Date(nowMs + (1 + int(3)) * 86_400_000).toISOString().slice(0, 10) : undefined);
        const kinds: [string, string, unknown?][] = [
          member ? ['PUT', `${scope}/members/${id}`, { access_level: pick([10, 20, 30, 40]), expires_at: expires() }] : ['POST', `${scope}/members`, { user_id: id, access_level: pick([10, 20, 30]), expires_at: expires() }],
          member ? ['DELETE', `${scope}/members/${id}`] : ['POST', `${scope}/members`, { user_id: id, access_level: pick([10, 20, 30]) }],
          ['PUT', `/users/${id}`, { external: chance(0.5) }],
          ['PUT', `/users/${id}`, { admin: chance(0.25) }],
          ['PUT', `/projects/${pick([bigProject, repo.id])}`, { visibility: pick(['private', 'internal', 'public']) }],
          ['PUT', `/projects/${pick([bigProject, repo.id])}`, { issues_access_level: pick(['enabled', 'private', 'disabled']), merge_requests_access_level: pick(['enabled', 'private']) }],
          ['PUT', `/groups/${group}`, { visibility: pick(['private', 'internal', 'public']) }],
          [pick(['POST', 'POST']), `/users/${id}/${pick(['block', 'unblock', 'unblock'])}`],
        ];
        return pick(kinds);
      },
      'project': () => {
        const p = chance(0.4) ? spare.id : pick([repo.id, bigProject, ...projects()]);
        const kinds: [string, string, unknown?][] = [
          ['PUT', `/projects/${p}`, { name: `renamed ${tag} ${++n}` }],
          ['PUT', `/projects/${p}`, { path: `path-${tag}-${++n}` }],
          ['PUT', `/projects/${p}`, { visibility: pick(['private', 'internal', 'public']) }],
          ['PUT', `/projects/${p}`, { description: `about ${++n}`, issues_access_level: pick(['enabled', 'private']) }],
          // The other way from what the records say (a project archived stays so until a write undoes it).
          ['POST', `/projects/${p}/${isArchived(p) ? 'unarchive' : 'archive'}`],
          ['POST', `/projects/${p}/${isArchived(p) ? 'unarchive' : 'archive'}`],
          ['PUT', `/projects/${spare.id}/transfer`, { namespace: pick(groups()) }],
          ['POST', '/projects', { name: `new ${tag} ${++n}`, namespace_id: pick(groups()), visibility: pick(['private', 'public']) }],
        ];
        return pick(kinds);
      },
      'project delete': async () => {
        const made = await must('POST', '/projects', { name: `doomed ${tag} ${++n}`, namespace_id: group });
        await api('admin', 'POST', `/projects/${made.id}/issues`, { title: `doomed issue ${n}`, labels: 'bug' });
        await api('admin', 'POST', `/projects/${made.id}/snippets`, { title: `doomed snippet ${n}`, file_name: 'a.txt', content: 'x', visibility: 'public' });
        return ['DELETE', `/projects/${made.id}`];
      },
      'group': () => {
        const g = pick(groups());
        const kinds: [string, string, unknown?][] = [
          ['PUT', `/groups/${g}`, { name: `Group ${tag} ${++n}` }],
          ['PUT', `/groups/${g}`, { path: `group-${tag}-${++n}` }],
          ['PUT', `/groups/${g}`, { description: `group about ${++n}` }],
          ['POST', '/groups', { name: `sub ${tag} ${++n}`, path: `sub-${tag}-${n}`, parent_id: group }],
        ];
        return pick(kinds);
      },
      'epic': () => {
        const [g, iid] = seen.epics.length && chance(0.7) ? pick(seen.epics) : [group, 1 + int(Math.max(1, one<{ m: number | null }>('SELECT MAX(iid) AS m FROM epics WHERE group_id = ?', group)?.m ?? 1))];
        const kinds: [string, string, unknown?][] = [
          ['POST', `/groups/${group}/epics`, { title: `epic ${tag} ${++n}`, labels: chance(0.5) ? someLabels() : undefined }],
          ['PUT', `/groups/${g}/epics/${iid}`, { title: `epic edited ${++n}` }],
          ['PUT', `/groups/${g}/epics/${iid}`, { state_event: pick(['close', 'reopen']) }],
          ['PUT', `/groups/${g}/epics/${iid}`, { add_labels: someLabels() }],
          ['PUT', `/groups/${g}/epics/${iid}`, pick([{ remove_labels: someLabels() }, { labels: chance(0.3) ? '' : someLabels() }, { confidential: chance(0.5) }, { title: `${pick(['roadmap', 'billing'])} ${int(97)}` }])],
          ['DELETE', `/groups/${g}/epics/${iid}`],
        ];
        return pick(kinds);
      },
      'archived write': async () => {
        // A write an archived project refuses, with nothing written (403; a merge 401, as GitLab): to
        // the issues, merge requests, notes, labels, milestones and snippets of one of the three
        // projects the reads show most that is archived (when none is, one archived first). Records
        // that exist: a refusal must not be a 404.
        let shut = [bigProject, repo.id, spare.id].filter(isArchived);
        // Three times in ten, one let back in (unarchived: a write that lands), so that other writes land too.
        if (shut.length && chance(0.3)) return ['POST', `/projects/${pick(shut)}/unarchive`];
        if (!shut.length) {
          shut = [pick([bigProject, repo.id, spare.id])];
          await must('POST', `/projects/${shut[0]}/archive`);
        }
        const p = pick(shut);
        const iid = one<{ iid: number }>('SELECT iid FROM issues WHERE project_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?', p, int(50))?.iid;
        const mr = one<{ iid: number }>(`SELECT iid FROM merge_requests WHERE project_id = ? AND state = 'opened' ORDER BY iid DESC LIMIT 1`, p)?.iid;
        const milestone = milestoneOf(p);
        const label = one<{ title: string }>('SELECT title FROM labels WHERE project_id = ? LIMIT 1', p)?.title;
        const kinds: [string, string, unknown?, Actor?][] = [
          ['POST', `/projects/${p}/issues`, { title: `archived ${tag} ${++n}`, labels: someLabels() }, pick(['admin', 'member'] as Actor[])],
          ['POST', `/projects/${p}/labels`, { name: `archived-${tag}-${++n}`, color: '#aa0000' }],
          ['POST', `/projects/${p}/snippets`, { title: `archived ${++n}`, file_name: 'a.txt', content: 'x', visibility: 'public' }],
          ['POST', `/projects/${p}/milestones`, { title: `archived m ${++n}` }],
        ];
        if (iid !== undefined)
          kinds.push(
            ['PUT', `/projects/${p}/issues/${iid}`, pick([{ title: `archived edit ${++n}` }, { state_event: 'close' }, { add_labels: 'bug' }, { confidential: true }])],
            ['DELETE', `/projects/${p}/issues/${iid}`],
            ['POST', `/projects/${p}/issues/${iid}/notes`, { body: `archived note ${++n}` }],
          );
        if (mr !== undefined) kinds.push(['PUT', `/projects/${p}/merge_requests/${mr}`, { title: `archived mr ${++n}` }], ['PUT', `/projects/${p}/merge_requests/${mr}/merge`, {}]);
        if (milestone !== undefined) kinds.push(['PUT', `/projects/${p}/milestones/${milestone}`, { title: `archived m ${++n}` }]);
        if (label !== undefined) kinds.push(['PUT', `/projects/${p}/labels/${encodeURIComponent(label)}`, { new_name: `archived-${++n}` }]);
        meantRefused = true;
        return pick(kinds);
      },
      'snippet': () => {
        // One of the snippets the reads showed, or one of the records' (a project's or a personal one).
        const known = all<{ project_id: number | null; id: number }>('SELECT project_id, id FROM snippets ORDER BY id DESC LIMIT 30').map((r): [number, number] => [r.project_id ?? 0, r.id]);
        const [p, id] = seen.snippets.length && chance(0.4) ? pick(seen.snippets) : known.length ? pick(known) : [repo.id, 0];
        const base = p ? `/projects/${p}/snippets` : '/snippets';
        const kinds: [string, string, unknown?][] = [
          ['POST', `/projects/${pick([repo.id, bigProject])}/snippets`, { title: `snippet ${tag} ${++n}`, file_name: 'a.txt', content: `x${n}`, visibility: pick(['private', 'internal', 'public']) }],
          ['POST', '/snippets', { title: `personal ${tag} ${++n}`, file_name: 'b.txt', content: `y${n}`, visibility: pick(['private', 'public']) }],
          ['PUT', `${base}/${id}`, { title: `snippet edited ${++n}` }],
          ['PUT', `${base}/${id}`, { visibility: pick(['private', 'internal', 'public']) }],
          ['DELETE', `${base}/${id}`],
        ];
        return pick(kinds);
      },
    };
    const KINDS = Object.keys(WRITES);

    const page = (): string => {
      const pp = pick([20, 20, 100, 5]);
      // First pages, pages past offset 1,000 (anchored), and deep ones (past a small list's end, 2,500 on a scale dir);
      // 100 a page: near the end of the seeded big project's 10,500 issues too.
      const pg = pp === 100 && chance(0.3) ? 90 + int(20) : pick([1, 1, 2, 3, 1 + int(60), 51 + int(10), 1 + int(12), pick([500, 2481 + int(20), 2500, 100 + int(400)])]);
      return `per_page=${pp}&page=${pg}`;
    };
    const dates = (): string => pick(['', '', `&created_after=2024-0${1 + int(9)}-01T00:00:00Z`, `&updated_before=2030-01-01`, `&created_before=2025-06-01`, `&updated_after=2024-06-01`]);
    const issuableQuery = (mr: boolean): string => {
      const parts = [
        pick(['', 'state=opened', 'state=closed', mr ? 'state=merged' : 'state=all']),
        pick(['', '', 'labels=bug', 'labels=bug,label-1', 'labels=None', 'labels=Any', 'not[labels]=bug', 'label_name=label-2']),
        pick(['', '', '', 'milestone=None', 'milestone=Any', 'milestone=v1', 'milestone=Upcoming', 'milestone=Started']),
        pick(['', '', '', `author_id=${userOf()}`, 'assignee_id=None', 'assignee_id=Any', `assignee_id=${memberId}`, 'my_reaction_emoji=Any']),
        pick(['', '', '', '', 'search=issue', 'search=crash', 'search=edited', `search=${tag}`]),
        mr ? pick(['', '', 'wip=yes', 'wip=no', 'reviewer_id=None']) : pick(['', '', 'confidential=true', 'confidential=false', 'weight=None', 'due_date=overdue', 'due_date=week', 'due_date=month', 'due_date=next_month_and_previous_two_weeks', 'due_date=0', 'issue_type=issue']),
        pick(['', `order_by=${pick(['created_at', 'updated_at', 'title', 'priority', 'label_priority', 'popularity', 'milestone_due', mr ? 'merged_at' : 'due_date', mr ? 'created_at' : 'relative_position', mr ? 'created_at' : 'weight'])}`]),
        pick(['', 'sort=asc', 'sort=desc']),
        // Shapes beside the filters: iids, the other negations, names for ids, the title alone searched,
        // label details, the simple view, keyset asked of a list that pages by offset.
        pick([
          ...['', '', '', '', '', ''],
          `iids[]=${2 + int(3)}&iids[]=${1 + int(Math.max(1, maxIid(mr ? 'merge_requests' : 'issues', mr ? repo.id : bigProject)))}`,
          `not[iids]=${2 + int(10)}`,
          'not[milestone]=v1',
          'not[milestone]=Upcoming',
          `not[author_id]=${userOf()}`,
          `not[assignee_id]=${memberId}`,
          'not[labels]=bug,label-1',
          'not[my_reaction_emoji]=thumbsup',
          'in=title',
          'author_username=root',
          'milestone_id=None',
          'with_labels_details=true',
          'with_labels_details=true',
          'pagination=keyset',
          mr ? 'view=simple' : 'issue_type=incident',
          mr ? 'view=simple' : 'epic_id=None',
          mr ? pick(['target_branch=main', `source_branch=${tag}-b1`]) : 'weight=Any',
        ]),
      ].filter(Boolean);
      return parts.join('&') + dates();
    };
    /** The seeded epics' other author (the administrator wrote the rest). */
    const epicAuthor = one<{ author_id: number }>('SELECT author_id FROM epics WHERE group_id = ? AND author_id != 1 LIMIT 1', group)?.author_id ?? memberId;
    /** A group's epics list: states, labels (and their negations), authors, a common and a rare term, each order, ties in title. */
    const epicQuery = (): string =>
      [
        pick(['', 'state=opened', 'state=closed', 'state=all']),
        pick(['', '', 'labels=bug', 'labels=Any', 'labels=None', 'labels=bug,label-1', 'labels=Any&not[labels]=bug', 'not[labels]=label-1']),
        pick(['', '', `author_id=${epicAuthor}`, 'author_id=1', `author_id=${userOf()}`, 'author_username=root']),
        pick(['', '', '', 'search=roadmap', 'search=epic', `search=${tag}`, 'search=edited']),
        pick(['', 'order_by=updated_at', 'order_by=title', 'order_by=created_at']),
        pick(['', 'sort=asc', 'sort=desc']),
        pick(['', '', '', 'confidential=false', 'with_labels_details=true', 'my_reaction_emoji=Any', `iids[]=${1 + int(8)}&iids[]=${1 + int(1100)}`, 'include_descendant_groups=false']),
      ]
        .filter(Boolean)
        .join('&') + dates();
    const drawRead = (): Read => {
      const who: Actor = pick(['admin', 'admin', 'member', 'reporter', 'guest', 'outsider', 'external', 'anonymous']);
      const p = chance(0.6) ? bigProject : pick(projects());
      const [ip, iid] = issueOf();
      const g = chance(0.6) ? group : pick(groups());
      const u = userOf();
      const q = (s: string): string => (s ? `?${s}&${page()}` : `?${page()}`);
      const kinds: (() => Read)[] = [
        () => ({ who, path: `/projects/${p}/issues${q(issuableQuery(false))}` }),
        () => ({ who, path: `/projects/${p}/issues${q(issuableQuery(false))}` }),
        () => ({ who, path: `/groups/${g}/issues${q(issuableQuery(false))}` }),
        () => ({ who, path: `/issues${q(`scope=${pick(['all', 'all', 'created_by_me', 'assigned_to_me'])}&${issuableQuery(false)}`)}` }),
        () => ({ who, path: `/projects/${chance(0.5) ? repo.id : p}/merge_requests${q(issuableQuery(true))}` }),
        () => ({ who, path: `/groups/${g}/merge_requests${q(issuableQuery(true))}` }),
        () => ({ who, path: `/merge_requests${q(`scope=${pick(['all', 'all', 'created_by_me', 'assigned_to_me', 'reviews_for_me'])}&${issuableQuery(true)}`)}` }),
        () => ({ who, path: `/projects/${ip}/issues/${iid}/notes${q(pick(['', 'sort=asc', 'order_by=updated_at', 'sort=asc&order_by=updated_at']))}` }),
        () => ({ who, path: `/projects/${chance(0.7) ? bigProject : ip}/issues/${chance(0.7) ? 2 : iid}/notes${q(pick(['', 'sort=asc']))}` }),
        () => ({ who, path: `/projects/${ip}/issues/${iid}/discussions${q('')}` }),
        () => ({ who, path: `/projects/${p}/events${q(pick(['', 'action=created', 'target_type=issue', 'sort=asc', 'after=2024-01-01']))}` }),
        () => ({ who, path: `/users/${u}/events${q(pick(['', 'action=commented', 'target_type=note']))}` }),
        () => ({ who, path: `/events${q(pick(['', 'scope=all', 'action=closed']))}` }),
        () => ({ who, path: `/projects/${chance(0.5) ? repo.id : p}/snippets${q('')}` }),
        () => ({ who, path: `${pick(['/snippets', '/snippets/public', '/snippets/all'])}${q('')}` }),
        () => ({ who, path: `/projects/${p}/labels${q(pick(['', 'with_counts=true', 'search=label', 'include_ancestor_groups=false']))}` }),
        () => ({ who, path: `/groups/${g}/labels${q(pick(['', 'with_counts=true', 'search=bug', 'only_group_labels=false']))}` }),
        () => ({ who, path: `/groups/${chance(0.8) ? group : g}/epics${q(epicQuery())}` }),
        () => ({ who, path: `/projects/${p}/members${q(pick(['', 'query=diff']))}` }),
        () => ({ who, path: `/projects/${p}/members/all${q('')}` }),
        () => ({ who, path: `/groups/${g}/members${q(pick(['', 'query=user']))}` }),
        () => ({ who, path: `/groups/${g}/members/all${q('')}` }),
        () => ({ who, path: `/projects${q(pick(['', 'search=project', `search=${tag}`, 'order_by=name', 'order_by=last_activity_at', 'membership=true', 'visibility=public', 'archived=true', 'owned=true', 'simple=true', 'with_issues_enabled=true', 'with_merge_requests_enabled=true&order_by=name']))}` }),
        () => ({ who, path: `/groups/${g}/projects${q(pick(['', 'order_by=name', 'include_subgroups=true', 'archived=false', 'with_issues_enabled=true']))}` }),
        () => ({ who, path: `/groups${q(pick(['', 'search=group', 'all_available=true', 'order_by=path', 'min_access_level=10']))}` }),
        () => ({ who, path: `/groups/${g}/subgroups${q('')}` }),
        () => ({ who, path: `/users${q(pick(['', 'search=user', 'active=true', 'blocked=true', 'order_by=name', `search=${tag}`]))}` }),
        () => ({ who, path: `/projects/${p}/milestones${q(pick(['', 'state=active', 'state=closed', 'search=m-']))}` }),
        () => ({ who, path: `/groups/${g}/milestones${q(pick(['', 'include_ancestors=true']))}` }),
        () => {
          const m = milestoneOf(p);
          return { who, path: `/projects/${p}/milestones/${m ?? 1}/${pick(['issues', 'merge_requests'])}${q('')}` };
        },
        () => ({ who, path: `/search${q(`scope=${pick(['issues', 'merge_requests', 'projects', 'milestones', 'users', 'snippet_titles'])}&search=${pick(['issue', 'crash', 'edited', tag, 'change'])}`)}` }),
        () => ({ who, path: `/projects/${p}/search${q(`scope=${pick(['issues', 'merge_requests', 'notes', 'milestones', 'users'])}&search=${pick(['issue', 'note', 'edited', tag])}`)}` }),
        () => ({ who, path: `/groups/${g}/search${q(`scope=${pick(['issues', 'merge_requests', 'projects', 'milestones'])}&search=${pick(['issue', 'edited', tag])}`)}` }),
        () => ({ who, path: `/projects/${ip}/issues/${iid}` }),
        () => {
          const [mp, miid] = mrOf();
          return { who, path: `/projects/${mp}/merge_requests/${miid}${pick(['', '/participants', '/notes?per_page=20'])}` };
        },
        () => ({ who, path: pick([`/projects/${p}`, `/groups/${g}`, `/users/${u}`, `/projects/${p}?statistics=false&license=false`, `/groups/${g}?with_projects=false`]) }),
        () => ({ who, path: `/projects/${ip}/issues/${iid}/${pick(['participants', 'award_emoji', 'related_merge_requests', 'closed_by'])}` }),
        () => ({ who, path: `/projects/${p}/users${q(pick(['', 'search=diff']))}` }),
        () => {
          const [mp, miid] = mrOf();
          return { who, path: `/projects/${mp}/merge_requests/${miid}/discussions${q('')}` };
        },
        () => ({ who, path: `/projects/${ip}/issues/${iid}/${pick(['resource_label_events', 'resource_state_events', 'resource_milestone_events', 'links'])}` }),
        () => ({ who, path: pick([`/users/${u}/memberships`, `/namespaces?search=diff&${page()}`, '/user', `/projects/${p}/starrers`, `/projects/${p}/invited_groups`, `/groups/${g}/invited_groups`, `/groups/${g}/descendant_groups?${page()}`]) }),
        () => ({ who, path: pick([`/projects/${p}/labels/${encodeURIComponent(labelOf(p))}`, `/projects/${p}/milestones/${milestoneOf(p) ?? 1}`]) }),
        () => {
          const epic = pick(seen.epics.length ? seen.epics : [[group, 1] as [number, number]]);
          return { who, path: `/groups/${epic[0]}/epics/${epic[1]}${pick(['', `/notes?${page()}`, '/award_emoji'])}` };
        },
        () => ({ who, path: `/todos${q(pick(['', 'state=done', 'type=Issue']))}` }),
        // The lists at and past COUNT_LIMIT (10,000) on the seeded dir: the big project's opened issues
        // (10,000 at the start; an issue made or reopened takes them past), the group's, and the merge
        // requests of the project with the most. Their last pages, and the first page past the end.
        () => {
          const list = pick([`/projects/${bigProject}/issues?state=opened`, `/groups/${group}/issues?state=opened`, `/projects/${mrProject}/merge_requests?state=all`, `/groups/${group}/merge_requests?state=all`]);
          const at = pick(['per_page=20&page=500', 'per_page=20&page=501', 'per_page=100&page=100', 'per_page=100&page=101', 'per_page=100&page=102', 'per_page=5&page=2000', page()]);
          return { who, path: `${list}${pick(['', '&order_by=updated_at', '&sort=asc', '&labels=bug', '&search=issue'])}&${at}` };
        },
        () => ({ who, keyset: true, path: `${pick(['/projects', '/users', `/groups/${g}/projects`, '/groups'])}?pagination=keyset&order_by=id&sort=${pick(['asc', 'desc'])}&per_page=${pick([5, 20])}` }),
      ];
      const read = pick(kinds)();
      // The administrator acting as one of the callers (sudo): its answer is that caller's.
      if (read.who === 'admin' && chance(0.15)) read.path += `${read.path.includes('?') ? '&' : '?'}sudo=${pick(sudoTargets)}`;
      return read;
    };
    /** Another host name now and then (the same on both services): kept pages are keyed by the base URL they name. */
    const otherHost = (): string | undefined => (chance(0.2) ? pick(['gitlab.example.com', 'sandlab.test:8080']) : undefined);

    const pool: Read[] = [];
    const addReads = (count: number): void => {
      for (let i = 0; i < count; i++) {
        if (pool.length >= poolSize) pool.splice(int(pool.length), 1);
        pool.push(drawRead());
      }
    };
    /** Every read of the pool on both services: what differs is a divergence. */
    const compare = async (batch: number, batchWrites: string[]): Promise<void> => {
      const fresh = await createService({ dataDir: o.dataDir, port: 0, rootToken: o.rootToken, clock });
      const freshUrl = await fresh.listen();
      const freshStatements = statementCounter(fresh);
      // The fresh service's own host and port, where an answer names them, read as the kept one's.
      const freshHost = new URL(freshUrl).host;
      const keptHost = new URL(keptUrl).host;
      const same = (text: string): string => text.split(freshHost).join(keptHost);
      try {
        // The pool's reads, and now and then the same through another host name, asked of the kept
        // service in the pool's order and of the fresh one in the reverse order: a key that leaves
        // out a part of the request (the host, the caller, a filter) serves each side another
        // request's answer, and they differ.
        const asked: { r: Read; path: string; statements: number }[] = [];
        const kept: Answer[] = [];
        for (const pooled of pool) {
          const host = otherHost();
          for (const r of host ? [pooled, { ...pooled, host }] : [pooled]) {
            keptStatements.take();
            const a = await call(keptUrl, tokens[r.who], 'GET', r.path, undefined, r.host);
            asked.push({ r, path: r.path, statements: keptStatements.take() });
            kept.push(a);
            harvest(r.path, a.text);
            const next = r.keyset && !r.host && a.headers.link ? /<([^>]+)>; rel="next"/.exec(a.headers.link)?.[1] : undefined;
            if (next) {
              const path = next.slice(`${keptUrl}/api/v4`.length);
              kept.push(await call(keptUrl, tokens[r.who], 'GET', path));
              asked.push({ r, path, statements: keptStatements.take() });
            }
          }
        }
        const fresh: Answer[] = [];
        const freshCounts: number[] = [];
        for (let i = asked.length - 1; i >= 0; i--) {
          freshStatements.take();
          fresh[i] = await call(freshUrl, tokens[asked[i].r.who], 'GET', asked[i].path, undefined, asked[i].r.host);
          freshCounts[i] = freshStatements.take();
        }
        for (let i = 0; i < asked.length; i++) {
          const { r, path, statements } = asked[i];
          const [a, b] = [kept[i], fresh[i]];
          reads++;
          // A page of a list past COUNT_LIMIT (rows, X-Page, and no X-Total; a page past the end has none
          // either): counted on its own too, and by endpoint.
          const past = a.status === 200 && a.headers['x-page'] !== null && a.headers['x-total'] === null && a.text.startsWith('[{') ? ['list past 10,000 rows', `list past 10,000 rows: ${readKinds(r.who, path)[0]}`] : [];
          for (const k of [...readKinds(r.who, path), ...past]) {
            const t = (kinds[k] ??= { reads: 0, reached: 0, keptStatements: 0, freshStatements: 0 });
            t.reads++;
            if (statements < freshCounts[i]) t.reached++;
            t.keptStatements += statements;
            t.freshStatements += freshCounts[i];
          }
          const found = (what: string, x: string, y: string): void => {
            divergences.push({ batch, who: r.who, path, what, kept: x.slice(0, 300), fresh: y.slice(0, 300), writes: batchWrites });
            log(`DIVERGENCE batch ${batch} ${r.who}${r.host ? ` (Host ${r.host})` : ''} GET ${path}: ${what}\n  kept:  ${x.slice(0, 300)}\n  fresh: ${y.slice(0, 300)}`);
          };
          if (a.status !== b.status) found('status', String(a.status), String(b.status));
          else if (a.text !== same(b.text)) found(firstDifference(a.text, same(b.text)), a.text, same(b.text));
          else
            for (const h of HEADERS) {
              const y = b.headers[h] === null ? null : same(b.headers[h]!);
              if (a.headers[h] !== y) found(`header ${h}`, String(a.headers[h]), String(y));
            }
        }
      } finally {
        await fresh.close();
      }
    };

    addReads(o.readsPerBatch * 2);
    // The pool read once before any write, so that the kept service keeps what it reads.
    await compare(0, []);
    for (let batch = 1; batch <= o.batches; batch++) {
      const batchWrites: string[] = [];
      const moved = pick([0, 0, 1000, 60_000, 2 * 3_600_000, 86_400_000, 3 * 86_400_000]);
      nowMs += moved;
      if (moved) batchWrites.push(`clock: +${moved / 1000} s`);
      for (let w = 0; w < o.writesPerBatch; w++) {
        nowMs += 1000;
        const kind = pick(KINDS);
        const [method, path, body, who] = await WRITES[kind]();
        const res = await api(who ?? 'admin', method, path, body);
        const tally = (writes[kind] ??= { ok: 0, failed: 0 });
        // A write meant to be refused is ok when refused as GitLab refuses it (401 or 403).
        const ok = meantRefused ? [401, 403].includes(res.status) : res.status < 300;
        if (ok) tally.ok++;
        else {
          tally.failed++;
          log(`write ${meantRefused ? 'not refused' : 'refused'}: ${kind}: ${who ?? 'admin'} ${method} ${path} ${body === undefined ? '' : JSON.stringify(body)} -> ${res.status} ${res.text.slice(0, 160)}`);
        }
        meantRefused = false;
        batchWrites.push(`${kind}: ${method} ${path} ${body === undefined ? '' : JSON.stringify(body)} -> ${res.status}`);
        // Reads between writes: the kept service keeps things at every point of the batch, not only after it.
        for (let i = 0; i < 3 && pool.length; i++) {
          const r = pick(pool);
          harvest(r.path, (await call(keptUrl, tokens[r.who], 'GET', r.path, undefined, otherHost())).text);
        }
      }
      addReads(o.readsPerBatch);
      await compare(batch, batchWrites);
      log(`batch ${batch}: ${batchWrites.length} writes, ${pool.length} reads in the pool, ${divergences.length} divergences so far`);
    }
  } finally {
    if (clone) rmSync(clone, { recursive: true, force: true });
    sql.close();
    await kept.close();
  }
  return { divergences, reads, writes, kinds };
}

/**
 * A data dir big enough that the kept and anchored paths run (a project of ISSUES issues: counts past
 * COUNT_LIMIT, pages past ANCHORED_FROM_OFFSET; an issue with NOTES notes; MERGE_REQUESTS merge
 * requests), built through the importers' bulk writers; labels, milestones, epics, snippets and a
 * second project through the API. By default the big project's opened issues are COUNT_LIMIT exactly
 * (3 made through the API, and 9,997 of the 11,108 imported: every tenth is closed), so that a write
 * takes them past it and back; the second project's 10,200 merge requests are past it.
 */
export async function seedKeptDiffData(dataDir: string, rootToken: string, sizes = { issues: 11_108, notes: 1_100, mergeRequests: 10_200, epics: 1_100 }): Promise<void> {
  const svc = await createService({ dataDir, port: 0, rootToken });
  const url = await svc.listen();
  const must = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await call(url, rootToken, method, path, body);
    if (res.status >= 300) throw new Error(`kept-diff seed: ${method} ${path} -> ${res.status} ${res.text.slice(0, 300)}`);
    return res.text ? JSON.parse(res.text) : null;
  };
  try {
    const group = await must('POST', '/groups', { name: 'diff', path: 'diff', visibility: 'public' });
    await must('POST', '/groups', { name: 'diff sub', path: 'diff-sub', parent_id: group.id, visibility: 'private' });
    const big = await must('POST', '/projects', { name: 'big', namespace_id: group.id, visibility: 'private' });
    const small = await must('POST', '/projects', { name: 'small', namespace_id: group.id, visibility: 'public' });
    const author = await must('POST', '/users', { username: 'diff-author', name: 'Diff Author', email: 'diff-author@example.com', password: PASSWORD });
    await must('POST', `/groups/${group.id}/members`, { user_id: author.id, access_level: 30 });
    for (const p of [big.id, small.id]) {
      for (const [i, name] of ['bug', 'label-1', 'label-2', 'feature', 'doc'].entries()) await must('POST', `/projects/${p}/labels`, { name, color: '#336699', priority: i < 2 ? i : undefined });
      await must('POST', `/projects/${p}/milestones`, { title: 'v1', due_date: '2025-03-01' });
      await must('POST', `/projects/${p}/milestones`, { title: 'v2' });
      for (let i = 0; i < 3; i++) await must('POST', `/projects/${p}/issues`, { title: `small issue ${i}`, labels: 'bug' });
      await must('POST', `/projects/${p}/snippets`, { title: `snippet of ${p}`, file_name: 'a.txt', content: 'x', visibility: 'private' });
    }
    for (let i = 0; i < 4; i++) await must('POST', `/groups/${group.id}/epics`, { title: `epic ${i}`, labels: i % 2 ? 'bug' : undefined });
    await must('POST', `/groups/${group.id}/labels`, { name: 'label-1', color: '#336699' });
    const v1 = (await must('GET', `/projects/${big.id}/milestones?title=v1`))[0].id;
    const ctx = svc.context;
    const at = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString();
    const LABELS = [['bug'], ['label-1'], ['bug', 'label-1'], [], ['label-2'], [], ['feature'], []];
    ctx.db.transaction(() => {
      for (let i = 4; i < sizes.issues + 4; i++)
        insertImportedIssue(ctx, big.id, {
          iid: i,
          title: `${['Alpha', 'beta', 'crash', 'issue'][i % 4]} ${i % 101}`,
          description: i % 3 ? `about issue ${i}` : null,
          state: i % 10 === 0 ? 'closed' : 'opened',
          closedAt: i % 10 === 0 ? at(i + 5) : null,
          authorId: i % 20 === 0 ? author.id : 1,
          assigneeIds: i % 7 === 0 ? [author.id] : [],
          labels: LABELS[i % LABELS.length],
          confidential: i % 50 === 0,
          dueDate: i % 9 === 0 ? `2025-0${1 + (i % 9)}-1${i % 10}` : null,
          weight: i % 6 === 0 ? i % 5 : null,
          milestoneId: i % 5 === 0 ? v1 : null,
          createdAt: at(i),
          updatedAt: at(i + (i % 13)),
          importedFrom: 'none',
        });
      const busy = ctx.db.prepare('SELECT id FROM issues WHERE project_id = ? AND iid = 2').get(big.id) as { id: number };
      for (let i = 0; i < sizes.notes; i++) insertImportedNote(ctx, big.id, { noteableType: 'Issue', noteableId: busy.id, authorId: i % 3 ? 1 : author.id, body: `note ${i} on the busy issue`, createdAt: at(i), updatedAt: at(i), importedFrom: 'none' });
      // The group's epics past ANCHORED_FROM_OFFSET: a common term (roadmap, every fourth), titles that
      // tie (97 numbers), labels, two authors, every tenth closed.
      for (let i = 5; i < sizes.epics + 5; i++)
        insertImportedEpic(ctx, {
          groupId: group.id,
          iid: i,
          title: `${['roadmap', 'performance', 'onboarding', 'billing'][i % 4]} ${i % 97}`,
          description: i % 3 ? `goals of epic ${i}` : null,
          state: i % 10 === 0 ? 'closed' : 'opened',
          confidential: i % 40 === 0,
          authorId: i % 20 === 1 ? author.id : 1,
          labels: LABELS[i % LABELS.length].filter((l) => l !== 'label-2' && l !== 'feature'),
          color: null,
          startDateFixed: null,
          startDateIsFixed: false,
          dueDateFixed: null,
          dueDateIsFixed: false,
          closedAt: i % 10 === 0 ? at(i + 3) : null,
          createdAt: at(i),
          updatedAt: at(i + (i % 11)),
        });
      for (let i = 1; i <= sizes.mergeRequests; i++)
        insertImportedMergeRequest(ctx, small.id, {
          iid: i,
          title: `${['Change', 'crash fix', 'Draft: wip'][i % 3]} ${i}`,
          description: `mr ${i}`,
          state: (['opened', 'opened', 'closed', 'merged'] as const)[i % 4],
          authorId: i % 5 === 0 ? author.id : 1,
          labels: LABELS[i % LABELS.length],
          sourceBranch: `feature-${i}`,
          targetBranch: 'main',
          baseSha: '0'.repeat(40),
          headSha: '1'.repeat(40),
          mergedAt: i % 4 === 3 ? at(i + 2) : null,
          createdAt: at(i),
          updatedAt: at(i + 1),
          importedFrom: 'none',
        });
    })();
  } finally {
    await svc.close();
  }
}
