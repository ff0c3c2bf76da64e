/**
 * Lists at scale with filters combined at random: bench/scale.ts times the shapes someone chose;
 * this draws issue and merge request lists (project, group, instance) with 1-6 of their filters and
 * orders together from a seeded generator, and times each on the big project against the same
 * request on the small project (the small instance for group and instance lists), as a client
 * meets a combination: the first time (nothing remembered for it), then the median of `--runs`
 * after a write each. Prints the counts over 2x and over 10 ms, any 5xx, and the slowest requests.
 *
 * `--others N` then draws N requests of the other lists with the filters GitLab offers each (group
 * epics, the busy issue's notes, snippets, members, events, labels, projects, groups, users) from
 * a generator of their own, so a seed draws the same issue and merge request lists as before.
 *
 * Run: npx tsx bench/scale-fuzz.ts --dir <scale data dir> [--count 200] [--others 60] [--seed 1] [--runs 3] [--top 25] [--cli old/out/main/cli.js]
 *   [--lists labels,epics] (the other lists drawn only among these, say on le17's million labels and epics;
 *   without it the draw is as before for every seed)
 *   [--caller guest|reporter|developer|anonymous] (who reads, as bench/scale.ts's; the writes stay the administrator's)
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type ScaleManifest, readScaleDirs } from './build-scale';
import { ROOT, callerReads, ensureBuilt, machineLine, mainThreadCpuMs, median, spawnSandlab, stop } from './lib';

const { values: opts } = parseArgs({
  options: {
    dir: { type: 'string', default: join(ROOT, 'bench/.data') },
    count: { type: 'string', default: '200' },
    others: { type: 'string', default: '60' },
    seed: { type: 'string', default: '1' },
    runs: { type: 'string', default: '3' },
    top: { type: 'string', default: '25' },
    cli: { type: 'string' },
    lists: { type: 'string' },
    caller: { type: 'string', default: 'admin' },
  },
});

const reader = callerReads(opts.caller!);

/** A small linear congruential generator: the same seed draws the same requests on every build. */
function generator(seed: number) {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  return { pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)], maybe: (p: number) => next() < p };
}

/** One random list request: `scope` is project, group or instance; the path takes the project or group id. */
function draw(g: ReturnType<typeof generator>): { scope: 'project' | 'group' | 'instance'; path: (id: number) => string } {
  const { pick, maybe } = g;
  const type = pick(['issues', 'merge_requests'] as const);
  const issues = type === 'issues';
  const scope = pick(['project', 'project', 'group', 'instance'] as const);
  const q: Record<string, string> = {};
  if (maybe(0.5)) q.state = pick(issues ? ['opened', 'closed', 'all'] : ['opened', 'closed', 'merged', 'all']);
  if (maybe(0.4)) q.labels = pick(['bug', 'label-1', 'label-2', 'bug,label-1', 'label-1,label-2,label-3', 'None', 'Any', 'bug,label-4']);
  if (maybe(0.15)) q['not[labels]'] = pick(['bug', 'label-1', 'label-3']);
  if (maybe(0.2)) q.author_id = pick(['3', '4', '17']);
  if (maybe(0.15)) q.assignee_id = pick(['None', 'Any', '3', '5']);
  if (maybe(0.2)) q.milestone = pick(['v1', 'None', 'Any']);
  if (maybe(0.15)) q.search = pick(['issue', 'merge', '12345', 'title 77', 'zzz']);
  if (maybe(0.5)) {
    q.order_by = pick(
      issues
        ? ['created_at', 'updated_at', 'title', 'label_priority', 'priority', 'due_date', 'popularity', 'relative_position', 'milestone_due']
        : ['created_at', 'updated_at', 'title', 'label_priority', 'priority', 'popularity', 'merged_at', 'milestone_due'],
    );
  }
  if (maybe(0.4)) q.sort = pick(['asc', 'desc']);
  if (maybe(0.15)) q.created_after = pick(['2020-01-01T00:00:00Z', '2024-06-01T00:00:00Z', '2030-01-01T00:00:00Z']);
  if (maybe(0.15)) q.updated_before = pick(['2020-01-01T00:00:00Z', '2024-06-01T00:00:00Z', '2030-01-01T00:00:00Z']);
  if (maybe(0.1)) q.confidential = pick(['true', 'false']);
  if (issues && maybe(0.1)) q.issue_type = pick(['issue', 'incident']);
  if (issues && maybe(0.1)) q.due_date = pick(['0', 'overdue', 'week', 'any']);
  if (!issues && maybe(0.1)) q.wip = pick(['yes', 'no']);
  if (maybe(0.1)) q.my_reaction_emoji = pick(['None', 'Any', 'thumbsup']);
  if (scope !== 'project' && maybe(0.3)) q.scope = 'all';
  q.per_page = pick(['20', '20', '100']);
  q.page = pick(['1', '1', '2', '50', '500']);
  const query = new URLSearchParams(q).toString();
  return {
    scope,
    path: (id) => (scope === 'project' ? `/projects/${id}/${type}?${query}` : scope === 'group' ? `/groups/${id}/${type}?${query}` : `/${type}?${query}`),
  };
}

/** One request of the other lists: its path on the big instance, and the path it is compared with on the small project (big instance) or the small instance. */
interface OtherRequest {
  big: string;
  small: string;
  smallOn: 'big' | 'small';
}

const OTHER_LISTS = ['epics', 'epics', 'epics', 'notes', 'snippets', 'members', 'events', 'events', 'labels', 'projects', 'projects', 'groups', 'users'] as const;
type OtherList = (typeof OTHER_LISTS)[number];
const onlyLists = opts.lists?.split(',').map((name) => {
  if (!(OTHER_LISTS as readonly string[]).includes(name)) throw new Error(`--lists: no list ${name} (${[...new Set(OTHER_LISTS)].join(', ')})`);
  return name as OtherList;
});

/**
 * One random request of a list the issue and merge request draw leaves out, with 0-5 of the filters
 * GitLab's API offers it (doc/api: epics, notes, project snippets, members, events, labels, projects,
 * groups, users) and a page. Project lists compare the big project with the small one on the big
 * instance; group and instance lists the big instance with the small one, as bench/scale.ts does.
 */
function drawOther(g: ReturnType<typeof generator>, big: ScaleManifest, small: ScaleManifest, only?: readonly OtherList[]): OtherRequest {
  const { pick, maybe } = g;
  const q: Record<string, string> = {};
  const page = (deep: readonly string[] = ['50', '500', '2500']) => {
    q.per_page = pick(['20', '20', '100']);
    q.page = pick(['1', '1', '2', ...deep]);
  };
  const query = () => new URLSearchParams(q).toString();
  const project = (list: string): OtherRequest => ({ big: `/projects/${big.bigProjectId}/${list}?${query()}`, small: `/projects/${big.smallProjectId}/${list}?${query()}`, smallOn: 'big' });
  const group = (list: string): OtherRequest => ({ big: `/groups/${big.groupId}/${list}?${query()}`, small: `/groups/${small.groupId}/${list}?${query()}`, smallOn: 'small' });
  const instance = (list: string): OtherRequest => ({ big: `/${list}?${query()}`, small: `/${list}?${query()}`, smallOn: 'small' });
  const dates = ['2020-01-01T00:00:00Z', '2024-06-01T00:00:00Z', '2025-06-01T00:00:00Z', '2030-01-01T00:00:00Z'];
  const list = only?.length ? pick(only) : pick(OTHER_LISTS);
  switch (list) {
    case 'epics': {
      if (maybe(0.4)) q.state = pick(['opened', 'closed', 'all']);
      if (maybe(0.3)) q.labels = pick(['bug', 'label-1', 'bug,label-1', 'None', 'Any']);
      if (maybe(0.1)) q['not[labels]'] = 'bug';
      if (maybe(0.2)) q.author_id = pick(['3', '4', '17']);
      if (maybe(0.15)) q.search = pick(['performance', 'Epic 12345', 'roadmap', 'zzz']);
      if (maybe(0.4)) q.order_by = pick(['created_at', 'updated_at', 'title']);
      if (maybe(0.4)) q.sort = pick(['asc', 'desc']);
      for (const bound of ['created_after', 'created_before', 'updated_after', 'updated_before']) if (maybe(0.1)) q[bound] = pick(dates);
      if (maybe(0.08)) q.confidential = pick(['true', 'false']);
      if (maybe(0.08)) q.my_reaction_emoji = pick(['None', 'Any', 'thumbsup']);
      page();
      return group('epics');
    }
    case 'notes': {
      // The busy issue's notes (bench/scale-busy.ts) against the small project's issue #1.
      if (maybe(0.5)) q.order_by = pick(['created_at', 'updated_at']);
      if (maybe(0.5)) q.sort = pick(['asc', 'desc']);
      page(['50', '500', '2000', '9999']);
      return { big: `/projects/${big.bigProjectId}/issues/${big.busyIssueIid ?? 2}/notes?${query()}`, small: `/projects/${big.smallProjectId}/issues/1/notes?${query()}`, smallOn: 'big' };
    }
    case 'snippets': {
      // A project's snippets take no filters; the caller's own (GET /snippets) its creation dates.
      if (maybe(0.5)) {
        page();
        return project('snippets');
      }
      if (maybe(0.4)) q.created_after = pick(dates);
      if (maybe(0.4)) q.created_before = pick(dates);
      page();
      return instance('snippets');
    }
    case 'members': {
      if (maybe(0.5)) q.query = pick(['user1', 'user12', 'user123', 'User 4', 'root', 'zzz']);
      if (maybe(0.1)) q.state = pick(['active', 'awaiting']);
      page(['5', '50', '100']);
      const all = maybe(0.5) ? 'members/all' : 'members';
      return maybe(0.5) ? project(all) : group(all);
    }
    case 'events': {
      if (maybe(0.3)) q.action = pick(['created', 'updated', 'closed', 'reopened', 'commented', 'merged', 'joined', 'pushed']);
      if (maybe(0.3)) q.target_type = pick(['issue', 'merge_request', 'note', 'milestone', 'project', 'snippet', 'user']);
      if (maybe(0.2)) q.before = pick(['2020-01-01', '2024-01-03', '2024-01-06', '2024-01-11', '2030-01-01']);
      if (maybe(0.2)) q.after = pick(['2020-01-01', '2024-01-03', '2024-01-06', '2024-01-11', '2030-01-01']);
      if (maybe(0.4)) q.sort = pick(['asc', 'desc']);
      page();
      const source = pick(['project', 'project', 'all', 'user'] as const);
      if (source === 'project') return project('events');
      if (source === 'user') return { big: `/users/${big.authorId}/events?${query()}`, small: `/users/${small.authorId}/events?${query()}`, smallOn: 'small' };
      q.scope = 'all';
      return instance('events');
    }
    case 'labels': {
      if (maybe(0.4)) q.search = pick(['bug', 'label-1', 'scale', 'scale-0123', 'scale-0999999', 'zzz']);
      if (maybe(0.2)) q.with_counts = 'true';
      if (maybe(0.2)) q.include_ancestor_groups = pick(['true', 'false']);
      page();
      if (maybe(0.7)) return project('labels');
      if (maybe(0.5)) q.only_group_labels = pick(['true', 'false']);
      return group('labels');
    }
    case 'projects': {
      if (maybe(0.2)) q.search = pick(['project-1', 'project-12', 'project-123', 'big', 'scale', 'zzz']);
      if (maybe(0.5)) q.order_by = pick(['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'star_count']);
      if (maybe(0.4)) q.sort = pick(['asc', 'desc']);
      if (maybe(0.2)) q.visibility = pick(['public', 'internal', 'private']);
      if (maybe(0.15)) q.with_issues_enabled = pick(['true', 'false']);
      if (maybe(0.15)) q.with_merge_requests_enabled = pick(['true', 'false']);
      if (maybe(0.1)) q.archived = pick(['true', 'false']);
      if (maybe(0.1)) q.membership = 'true';
      if (maybe(0.1)) q.owned = 'true';
      if (maybe(0.1)) q.starred = 'true';
      if (maybe(0.1)) q.min_access_level = pick(['10', '30', '50']);
      if (maybe(0.1)) q.last_activity_after = pick(dates);
      // GitLab answers 400 to updated_after/before without order_by=updated_at.
      if (q.order_by === 'updated_at' && maybe(0.3)) q.updated_after = pick(dates);
      if (maybe(0.2)) q.simple = 'true';
      page(['50', '400']);
      return maybe(0.7) ? instance('projects') : group('projects');
    }
    case 'groups': {
      if (maybe(0.3)) q.search = pick(['group-1', 'group-12', 'group-123', 'scale', 'zzz']);
      if (maybe(0.5)) q.order_by = pick(['name', 'path', 'id']);
      if (maybe(0.4)) q.sort = pick(['asc', 'desc']);
      if (maybe(0.2)) q.visibility = pick(['public', 'internal', 'private']);
      if (maybe(0.2)) q.all_available = pick(['true', 'false']);
      if (maybe(0.2)) q.top_level_only = 'true';
      if (maybe(0.1)) q.owned = 'true';
      if (maybe(0.1)) q.min_access_level = pick(['10', '30', '50']);
      page(['50', '90']);
      return instance('groups');
    }
    case 'users': {
      if (maybe(0.3)) q.search = pick(['user1', 'user12', 'user123', 'User 4', 'example.com', 'zzz']);
      if (maybe(0.2)) q.active = pick(['true', 'false']);
      if (maybe(0.1)) q.blocked = pick(['true', 'false']);
      if (maybe(0.1)) q.external = pick(['true', 'false']);
      if (maybe(0.1)) q.exclude_external = 'true';
      if (maybe(0.1)) q.humans = 'true';
      if (maybe(0.1)) q.without_projects = 'true';
      if (maybe(0.1)) q.created_after = pick(dates);
      if (maybe(0.4)) q.order_by = pick(['id', 'name', 'username', 'created_at', 'updated_at']);
      if (maybe(0.4)) q.sort = pick(['asc', 'desc']);
      page(['50', '240']);
      return instance('users');
    }
  }
}

interface Sample {
  cpu: number;
  status: number;
  rows: number;
}

async function get(url: string, token: string, pid: number): Promise<Sample> {
  const c0 = mainThreadCpuMs(pid);
  const res = await fetch(url, { headers: reader.headers(url, token) });
  const body = await res.text();
  const cpu = mainThreadCpuMs(pid) - c0;
  let rows = -1;
  try {
    const json = JSON.parse(body) as unknown;
    rows = Array.isArray(json) ? json.length : -1;
  } catch {
    /* not JSON */
  }
  return { cpu, status: res.status, rows };
}

interface Line {
  path: string;
  firstBig: number;
  big: number;
  small: number;
  status: number;
  rows: number;
  smallRows: number;
}

/** The summary line and the slowest requests of one draw. */
function report(what: string, lines: Line[], runs: number): void {
  const count = (f: (l: Line) => boolean) => lines.filter(f).length;
  console.log(
    `${lines.length} ${what} (seed ${opts.seed}, ${opts.caller}), server CPU ms: first time on big median ${median(lines.map((l) => l.firstBig)).toFixed(2)}, ` +
      `over 10 ms ${count((l) => l.firstBig > 10)}, over 100 ms ${count((l) => l.firstBig > 100)}; ` +
      `after a write (median of ${runs}) over 10 ms ${count((l) => l.big > 10)}, within 2x of small ${count((l) => l.big <= 2 * l.small)}; 5xx ${count((l) => l.status >= 500)}`,
  );
  console.log(`${'first big'.padStart(10)} ${'big'.padStart(8)} ${'small'.padStart(7)} ${'ratio'.padStart(6)}  rows (small)  request`);
  for (const l of [...lines].sort((a, b) => b.firstBig - a.firstBig).slice(0, Number(opts.top))) {
    console.log(
      `${l.firstBig.toFixed(2).padStart(10)} ${l.big.toFixed(2).padStart(8)} ${l.small.toFixed(2).padStart(7)} ${(l.big / l.small).toFixed(1).padStart(5)}x  ${String(l.rows).padStart(4)} (${l.smallRows})  ${l.status} ${l.path}`,
    );
  }
  const shown = new Set([...lines].sort((a, b) => b.firstBig - a.firstBig).slice(0, Number(opts.top)));
  for (const l of lines.filter((x) => !shown.has(x) && x.big > 2 * x.small)) {
    console.log(
      `${l.firstBig.toFixed(2).padStart(10)} ${l.big.toFixed(2).padStart(8)} ${l.small.toFixed(2).padStart(7)} ${(l.big / l.small).toFixed(1).padStart(5)}x  ${String(l.rows).padStart(4)} (${l.smallRows})  ${l.status} ${l.path}  (over 2x)`,
    );
  }
  for (const l of lines.filter((x) => x.status >= 500)) console.log(`5xx ${l.path}`);
}

async function main(): Promise<void> {
  ensureBuilt();
  const { dir, big, small } = readScaleDirs(opts.dir);
  const cli = opts.cli ? resolve(opts.cli) : undefined;
  const runs = Number(opts.runs);
  const bigServer = await spawnSandlab(join(dir, 'big'), big.token, { cli });
  const smallServer = await spawnSandlab(join(dir, 'small'), small.token, { cli });
  let touches = 0;
  // A write before each sample, so nothing remembered between writes flatters a figure (as bench/scale.ts).
  const touch = async (url: string, token: string, projectId: number) => {
    const res = await fetch(`${url}/api/v4/projects/${projectId}`, {
      method: 'PUT',
      headers: { 'private-token': token, 'content-type': 'application/json' },
      body: JSON.stringify({ description: `fuzz ${++touches}` }),
    });
    if (!res.ok) throw new Error(`touch: ${res.status}`);
  };
  const time = async (url: string, token: string, pid: number, touchIt: () => Promise<void>) => {
    const first = await get(url, token, pid);
    const later: Sample[] = [];
    for (let i = 0; i < runs; i++) {
      await touchIt();
      later.push(await get(url, token, pid));
    }
    return { first, cpu: median(later.map((s) => s.cpu)) };
  };
  const onBig = (path: string) => time(`${bigServer.url}/api/v4${path}`, big.token, bigServer.child.pid!, () => touch(bigServer.url, big.token, big.smallProjectId));
  const onSmall = (path: string) => time(`${smallServer.url}/api/v4${path}`, small.token, smallServer.child.pid!, () => touch(smallServer.url, small.token, small.smallProjectId));
  const line = (path: string, b: Awaited<ReturnType<typeof time>>, s: Awaited<ReturnType<typeof time>>): Line => ({
    path,
    firstBig: b.first.cpu,
    big: b.cpu,
    small: s.cpu,
    status: b.first.status,
    rows: b.first.rows,
    smallRows: s.first.rows,
  });
  console.log(machineLine());
  const g = generator(Number(opts.seed));
  const lines: Line[] = [];
  const others: Line[] = [];
  try {
    await reader.resolve(bigServer.url, big);
    await reader.resolve(smallServer.url, small);
    for (let i = 0; i < Number(opts.count); i++) {
      const req = draw(g);
      const path = req.path(req.scope === 'project' ? big.bigProjectId : big.groupId);
      const b = await onBig(path);
      const s = req.scope === 'project' ? await onBig(req.path(big.smallProjectId)) : await onSmall(req.path(small.groupId));
      lines.push(line(path, b, s));
    }
    // Their own generator: adding them left the draw above as it was for every seed.
    const o = generator(Number(opts.seed) + 1_000_003);
    for (let i = 0; i < Number(opts.others); i++) {
      const req = drawOther(o, big, small, onlyLists);
      const b = await onBig(req.big);
      const s = req.smallOn === 'big' ? await onBig(req.small) : await onSmall(req.small);
      others.push(line(req.big, b, s));
    }
  } finally {
    await stop(bigServer.child);
    await stop(smallServer.child);
  }
  report('requests', lines, runs);
  if (others.length) report('requests of the other lists', others, runs);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
