/**
 * Lists at scale. Reads the data dirs `bench/build-scale.ts` built, runs each on the built server
 * in its own process, and times every list request on the big project against the same request on
 * the small project of the same instance (3 issues), and the instance-wide lists (projects, groups,
 * users) of the big instance against the small instance. Prints, for the median of several
 * sequential runs after a warm-up, the server's main-thread CPU time (steady when other processes
 * load the machine) and the wall time the client saw, the CPU ratio, and the answer's headers.
 *
 * With bench/scale-more.ts's additions (a million merge requests, snippets, labels, epics) it times
 * their lists too; with bench/scale-busy.ts's, the busy issue's notes.
 *
 * Run: npx tsx bench/build-scale.ts && npx tsx bench/scale.ts [--dir bench/.data] [--runs 7] [--cli old/out/main/cli.js] [--only search] [--warm] [--cpu-prof DIR]
 * (`--cpu-prof DIR`: the big instance's server writes a V8 CPU profile there; summarize it with bench/cpuprofile-summary.ts.)
 * (`--caller guest|reporter|developer|anonymous`: the timed reads are the answers a member of the manifest's group with that
 * role gets (Sudo on the administrator's token, the first such member of each instance), or an anonymous caller's; the
 * writes between them stay the administrator's. The default, `admin`, reads as the administrator.)
 */
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readScaleDirs, type ScaleManifest } from './build-scale';
import { ROOT, callerReads, cpuMs, ensureBuilt, fmt, machineLine, mainThreadCpuMs, median, memoryProbeArgs, memorySplit, rssMb, spawnSandlab, stop } from './lib';

const { values: opts } = parseArgs({
  options: {
    dir: { type: 'string', default: join(ROOT, 'bench/.data') },
    runs: { type: 'string', default: '7' },
    /** An older build's out/main/cli.js, to time the same lists before a change. */
    cli: { type: 'string' },
    /** Time only the requests whose name contains this (or one of these, separated by `|`). */
    only: { type: 'string' },
    /** Repeat each request without a write between samples (answers remembered between writes). */
    warm: { type: 'boolean', default: false },
    /** The big instance's server writes its CPU profile (node --cpu-prof) into this directory. */
    'cpu-prof': { type: 'string' },
    /** Who reads: admin (the default), a member of the group (guest, reporter, developer) through Sudo, or anonymous. */
    caller: { type: 'string', default: 'admin' },
  },
});
const reader = callerReads(opts.caller!);
const runs = Number(opts.runs);
const cli = opts.cli ? resolve(opts.cli) : undefined;

interface Timed {
  /** Wall time the client saw. */
  ms: number;
  /** The server's main-thread CPU time for the request. */
  cpu: number;
  status: number;
  total: string | null;
  count: number;
}

async function timeGet(url: string, token: string, pid: number): Promise<Timed> {
  const c0 = mainThreadCpuMs(pid);
  const t0 = performance.now();
  const res = await fetch(url, { headers: reader.headers(url, token) });
  const body = await res.text();
  const ms = performance.now() - t0;
  const cpu = mainThreadCpuMs(pid) - c0;
  let count = -1;
  try {
    const json = JSON.parse(body) as unknown;
    count = Array.isArray(json) ? json.length : 1;
  } catch {
    /* not JSON */
  }
  return { ms, cpu, status: res.status, total: res.headers.get('x-total'), count };
}

/** The server processes that have served a line (measure's first read-through). */
const startedProcesses = new Set<number>();

/**
 * The service remembers read answers until the next write, so a repeated request would time a
 * cache hit: unless `--warm`, every sample (and the warm-up) follows a write (`touch`, a project
 * description on the same instance), and pays for its queries as the first read after a write does.
 */
async function measure(url: string, token: string, pid: number, touch: () => Promise<void>): Promise<Timed> {
  const sample = async (): Promise<Timed> => {
    if (!opts.warm) await touch();
    return timeGet(url, token, pid);
  };
  // A fresh process runs its first requests before V8 has compiled the code every list shares: the
  // first line a server timed read 1.6-2.0 ms on the big side where the same request read 0.4-0.7
  // a dozen requests later (its small side, read after it in the same process, did not pay it).
  // So the first line a process serves is read through once untimed: it times the list, not the start.
  if (!startedProcesses.has(pid)) {
    startedProcesses.add(pid);
    for (let i = 0; i <= runs; i++) await sample();
  }
  await sample(); // warm-up: statement cache, page cache
  const samples: Timed[] = [];
  for (let i = 0; i < runs; i++) samples.push(await sample());
  return { ...samples[0], ms: median(samples.map((s) => s.ms)), cpu: median(samples.map((s) => s.cpu)) };
}

let touches = 0;
/** A write on the instance at `url`: the description of one of its projects. */
const touchOf = (url: string, m: ScaleManifest) => async (): Promise<void> => {
  const res = await fetch(`${url}/api/v4/projects/${m.smallProjectId}`, {
    method: 'PUT',
    headers: { 'private-token': m.token, 'content-type': 'application/json' },
    body: JSON.stringify({ description: `touched ${++touches}` }),
  });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`touch: ${res.status}`);
};

const describe = (t: Timed): string => `${t.status}${t.total !== null ? ` total ${t.total}` : ' (uncounted)'} rows ${t.count}`;

async function main(): Promise<void> {
  ensureBuilt();
  const { dir, big, small } = readScaleDirs(opts.dir);
  console.log(`machine: ${machineLine()}`);
  console.log(`big instance: ${JSON.stringify(big.counts)}`);
  console.log(
    `median of ${runs} sequential requests after one warm-up${opts.warm ? '' : ', each after a write'}: server main-thread CPU and client wall time, milliseconds\n`,
  );

  const t0 = performance.now();
  const profile = opts['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', resolve(opts['cpu-prof'])] : [];
  // The big server tells its memory apart (memorySplit): where the RSS printed at the end is.
  const memoryFile = join(tmpdir(), `sandlab-bench-memory-${process.pid}.json`);
  process.env.SANDLAB_MEMORY_FILE = memoryFile;
  const bigServer = await spawnSandlab(join(dir, 'big'), big.token, { cli, nodeArgs: [...profile, ...memoryProbeArgs()] });
  delete process.env.SANDLAB_MEMORY_FILE;
  const firstAnswer = await timeGet(`${bigServer.url}/api/v4/projects/${big.bigProjectId}`, big.token, bigServer.child.pid!);
  const startMs = performance.now() - t0;
  const smallServer = await spawnSandlab(join(dir, 'small'), small.token, { cli });
  try {
    await reader.resolve(bigServer.url, big);
    await reader.resolve(smallServer.url, small);
    const idleRss = rssMb(bigServer.child.pid!);
    const cpuBefore = cpuMs(bigServer.child.pid!);
    console.log(`big instance: listening after ${fmt(bigServer.startedMs, 0)} ms, first authenticated GET /projects/:id answered after ${fmt(startMs, 0)} ms (${firstAnswer.status})`);
    console.log(`big instance RSS idle: ${fmt(idleRss)} MB (${await memorySplit(bigServer.child.pid!, memoryFile)})\n`);

    // The milestone of each project the manifest names (its own lists: /milestones/:id/issues).
    const milestones = new Map<number, number>();
    for (const id of big.milestone ? [big.bigProjectId, big.smallProjectId] : []) {
      const res = await fetch(`${bigServer.url}/api/v4/projects/${id}/milestones?title=${encodeURIComponent(big.milestone!)}`, { headers: { 'private-token': big.token } });
      const [found] = (await res.json()) as { id: number }[];
      if (found) milestones.set(id, found.id);
    }
    const projectLists = projectScoped(big, milestones);
    // When the small side serves fewer rows than the big one (3 issues against a page of 20 or
    // 100), `per row` compares the CPU per row served too: the big side's extra rows are work
    // the small side never does.
    const header = `${'request'.padEnd(46)} ${'CPU big'.padStart(9)} ${'small'.padStart(7)} ${'ratio'.padStart(8)} ${'per row'.padStart(8)} ${'wall big'.padStart(9)} ${'small'.padStart(7)}   answer on big (rows on small)`;
    console.log(header);
    console.log('-'.repeat(header.length + 20));
    const perRow = (b: Timed, s: Timed): string =>
      b.count > 0 && s.count > 0 && b.count !== s.count ? `${fmt(b.cpu / b.count / (s.cpu / s.count), 1)}x` : '';
    const lines: { ratio: number; big: Timed; small: Timed }[] = [];
    const row = (name: string, b: Timed, s: Timed): void => {
      lines.push({ ratio: b.cpu / s.cpu, big: b, small: s });
      console.log(
        `${name.padEnd(46)} ${fmt(b.cpu, 2).padStart(9)} ${fmt(s.cpu, 2).padStart(7)} ${`${fmt(b.cpu / s.cpu, 1)}x`.padStart(8)} ${perRow(b, s).padStart(8)} ` +
          `${fmt(b.ms, 1).padStart(9)} ${fmt(s.ms, 1).padStart(7)}   ${describe(b)} (${s.count})`,
      );
    };
    const bigPid = bigServer.child.pid!;
    const touchBig = touchOf(bigServer.url, big);
    const chosen = ([name]: [string, unknown]): boolean => !opts.only || opts.only.split('|').some((part) => name.includes(part));
    for (const [name, path] of projectLists.filter(chosen)) {
      const b = await measure(`${bigServer.url}/api/v4${path(big.bigProjectId)}`, big.token, bigPid, touchBig);
      const s = await measure(`${bigServer.url}/api/v4${path(big.smallProjectId)}`, big.token, bigPid, touchBig);
      row(name, b, s);
    }
    for (const [name, path] of instanceWide(big).filter(chosen)) {
      const b = await measure(`${bigServer.url}/api/v4${path}`, big.token, bigPid, touchBig);
      const s = await measure(`${smallServer.url}/api/v4${path.replace(String(big.groupId), String(small.groupId))}`, small.token, smallServer.child.pid!, touchOf(smallServer.url, small));
      row(name, b, s);
    }

    // The same 100-row page against a project of 1,000 issues (created once per data dir, through
    // the API): the small project serves 3 rows, so its line compares 100 rows with 3.
    const fair = 'issues per_page=100 vs a 1,000-issue project';
    if (chosen([fair, null])) {
      const mid = await midProject(bigServer.url, big);
      const page = (id: number): string => `${bigServer.url}/api/v4/projects/${id}/issues?per_page=100&order_by=updated_at`;
      row(fair, await measure(page(big.bigProjectId), big.token, bigPid, touchBig), await measure(page(mid), big.token, bigPid, touchBig));
    }
    // The other 100-row pages the same way: against that project's MID_FILL merge requests and
    // labels, and a group of MID_FILL epics (made once per data dir, through the API), instead of
    // the small side's 3-4 rows.
    const fairLines: [string, string, (mid: { project: number; group: number }) => string][] = [
      [`merge requests per_page=100 vs ${MID_FILL} MRs`, `/projects/${big.bigProjectId}/merge_requests?per_page=100`, (x) => `/projects/${x.project}/merge_requests?per_page=100`],
      [
        `MR state=opened&per_page=100 vs ${MID_FILL} MRs`,
        `/projects/${big.bigProjectId}/merge_requests?state=opened&per_page=100`,
        (x) => `/projects/${x.project}/merge_requests?state=opened&per_page=100`,
      ],
      [`project labels per_page=100 vs ${MID_FILL} labels`, `/projects/${big.bigProjectId}/labels?per_page=100`, (x) => `/projects/${x.project}/labels?per_page=100`],
      [`group epics per_page=100 vs ${MID_FILL} epics`, `/groups/${big.groupId}/epics?per_page=100`, (x) => `/groups/${x.group}/epics?per_page=100`],
    ];
    const fairChosen = fairLines.filter(([name]) => chosen([name, null]));
    if (fairChosen.length) {
      const mid = await midFilled(bigServer.url, big, await midProject(bigServer.url, big));
      for (const [name, bigPath, midPath] of fairChosen) {
        row(name, await measure(`${bigServer.url}/api/v4${bigPath}`, big.token, bigPid, touchBig), await measure(`${bigServer.url}/api/v4${midPath(mid)}`, big.token, bigPid, touchBig));
      }
    }

    // The project's open-issue count is memoized between writes: the first read after a write pays for it.
    const afterWrite = async (m: ScaleManifest, url: string, projectId: number): Promise<Timed> => {
      const samples: Timed[] = [];
      for (let i = 0; i < runs; i++) {
        await fetch(`${url}/api/v4/projects/${projectId}`, {
          method: 'PUT',
          headers: { 'private-token': m.token, 'content-type': 'application/json' },
          body: JSON.stringify({ description: `touched ${i}` }),
        });
        samples.push(await timeGet(`${url}/api/v4/projects/${projectId}`, m.token, bigPid));
      }
      return { ...samples[0], total: null, ms: median(samples.map((x) => x.ms)), cpu: median(samples.map((x) => x.cpu)) };
    };
    if (chosen(['first GET /projects/:id after a write', null])) row('first GET /projects/:id after a write', await afterWrite(big, bigServer.url, big.bigProjectId), await afterWrite(big, bigServer.url, big.smallProjectId));

    // A deep page starts after a row an earlier page read while the project's issues are
    // unwritten: after a write to an issue of the project it walks again; read in turn, each page
    // starts where the previous one ended.
    const touchIssue = (projectId: number) => async (): Promise<void> => {
      const res = await fetch(`${bigServer.url}/api/v4/projects/${projectId}/issues/1`, {
        method: 'PUT',
        headers: { 'private-token': big.token, 'content-type': 'application/json' },
        body: JSON.stringify({ description: `touched ${++touches}` }),
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`touch issue: ${res.status}`);
    };
    const deep = (id: number, page: number): string => `${bigServer.url}/api/v4/projects/${id}/issues?page=${page}`;
    if (chosen(['issues page 2500 after an issue write', null])) {
      row(
        'issues page 2500 after an issue write',
        await measure(deep(big.bigProjectId, 2500), big.token, bigPid, touchIssue(big.bigProjectId)),
        await measure(deep(big.smallProjectId, 2500), big.token, bigPid, touchIssue(big.smallProjectId)),
      );
    }
    // A new issue moves every page of the newest-first list by one row: the anchors follow it.
    // The issues are deleted afterwards, so the data dir keeps its counts from run to run.
    const created: [number, number][] = [];
    const newIssue = (projectId: number) => async (): Promise<void> => {
      const res = await fetch(`${bigServer.url}/api/v4/projects/${projectId}/issues`, {
        method: 'POST',
        headers: { 'private-token': big.token, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `New ${++touches}` }),
      });
      if (!res.ok) throw new Error(`new issue: ${res.status}`);
      created.push([projectId, ((await res.json()) as { iid: number }).iid]);
    };
    if (chosen(['issues page 2500 after a new issue', null])) {
      row(
        'issues page 2500 after a new issue',
        await measure(deep(big.bigProjectId, 2500), big.token, bigPid, newIssue(big.bigProjectId)),
        await measure(deep(big.smallProjectId, 2500), big.token, bigPid, newIssue(big.smallProjectId)),
      );
    }
    // The same against the 1,000-issue project's last page: 20 rows moved along on both sides,
    // where the line above compares them with the small project's empty page.
    const fairNew = 'issues last page after a new issue vs a 1,000-issue project';
    if (chosen([fairNew, null])) {
      const mid = await midProject(bigServer.url, big);
      row(
        fairNew,
        await measure(deep(big.bigProjectId, 2500), big.token, bigPid, newIssue(big.bigProjectId)),
        await measure(deep(mid, MID_ISSUES / 20), big.token, bigPid, newIssue(mid)),
      );
    }
    for (const [projectId, iid] of created) {
      const res = await fetch(`${bigServer.url}/api/v4/projects/${projectId}/issues/${iid}`, { method: 'DELETE', headers: { 'private-token': big.token } });
      if (!res.ok) throw new Error(`delete issue: ${res.status}`);
    }
    // The project's search count is remembered until its issues are next written: after an issue write it is counted again.
    const searched = (id: number): string => `${bigServer.url}/api/v4/projects/${id}/issues?search=crash`;
    if (chosen(['issues search=crash after an issue write', null])) {
      row(
        'issues search=crash after an issue write',
        await measure(searched(big.bigProjectId), big.token, bigPid, touchIssue(big.bigProjectId)),
        await measure(searched(big.smallProjectId), big.token, bigPid, touchIssue(big.smallProjectId)),
      );
    }
    // A common merge-request search's walk is remembered until the project's merge requests are
    // next written: after a write to one of them it walks again.
    const touchMergeRequest = (projectId: number) => async (): Promise<void> => {
      const res = await fetch(`${bigServer.url}/api/v4/projects/${projectId}/merge_requests/1`, {
        method: 'PUT',
        headers: { 'private-token': big.token, 'content-type': 'application/json' },
        body: JSON.stringify({ description: `touched ${++touches}` }),
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`touch merge request: ${res.status}`);
    };
    const mrSearched = (id: number): string => `${bigServer.url}/api/v4/projects/${id}/merge_requests?search=crash`;
    if (big.moreLists && chosen(['merge requests search=crash after an MR write', null])) {
      row(
        'merge requests search=crash after an MR write',
        await measure(mrSearched(big.bigProjectId), big.token, bigPid, touchMergeRequest(big.bigProjectId)),
        await measure(mrSearched(big.smallProjectId), big.token, bigPid, touchMergeRequest(big.smallProjectId)),
      );
    }
    // A common epic search remembers the group's first matching epic; after a write to one of the
    // group's epics it moves along by the written epic (epics/011's log) instead of walking again.
    const touchEpic = (url: string, m: ScaleManifest) => async (): Promise<void> => {
      const res = await fetch(`${url}/api/v4/groups/${m.groupId}/epics/1`, {
        method: 'PUT',
        headers: { 'private-token': m.token, 'content-type': 'application/json' },
        body: JSON.stringify({ description: `touched ${++touches}` }),
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`touch epic: ${res.status}`);
    };
    const epicSearched = (url: string, m: ScaleManifest): string => `${url}/api/v4/groups/${m.groupId}/epics?search=performance`;
    if (big.moreLists && chosen(['epics search=performance after an epic write', null])) {
      row(
        'epics search=performance after an epic write',
        await measure(epicSearched(bigServer.url, big), big.token, bigPid, touchEpic(bigServer.url, big)),
        await measure(epicSearched(smallServer.url, small), small.token, smallServer.child.pid!, touchEpic(smallServer.url, small)),
      );
    }
    const inTurn = async (id: number, first = 2481): Promise<Timed> => {
      await touchIssue(id)();
      const pages: Timed[] = [];
      for (let page = first; page < first + 20; page++) pages.push(await timeGet(deep(id, page), big.token, bigPid));
      return { ...pages[pages.length - 1], ms: median(pages.map((x) => x.ms)), cpu: median(pages.map((x) => x.cpu)) };
    };
    if (chosen(['issues pages 2481-2500 in turn (each)', null])) row('issues pages 2481-2500 in turn (each)', await inTurn(big.bigProjectId), await inTurn(big.smallProjectId));
    // The line above compares pages of 20 issues, each built for the first time, with the small
    // project's empty pages. Here the same walk (other pages: their issues not built yet either)
    // against the last 20 pages of the 1,000-issue project: 20 rows a page on both sides.
    const fairTurn = 'issues pages in turn vs a 1,000-issue project (each)';
    if (chosen([fairTurn, null])) row(fairTurn, await inTurn(big.bigProjectId, 2461), await inTurn(await midProject(bigServer.url, big), MID_ISSUES / 20 - 19));
    // The lines over 2x split by whether the big side served more rows than the small one (a
    // page of 20 against an empty page is more work whatever the table's size) or the same.
    const over = lines.filter((l) => l.ratio > 2);
    const moreRows = over.filter((l) => l.big.count > l.small.count);
    const same = over.filter((l) => l.big.count <= l.small.count);
    const worst = (xs: typeof lines): string => (xs.length ? `, big CPU up to ${fmt(Math.max(...xs.map((l) => l.big.cpu)), 2)} ms` : '');
    console.log(
      `\nlines within 2.0x of the small side: ${lines.length - over.length} of ${lines.length} (median ${fmt(median(lines.map((l) => l.ratio)), 1)}x); ` +
        `over 2.0x: ${moreRows.length} serving more rows than the small side${worst(moreRows)}, ${same.length} serving as many${worst(same)}`,
    );
    // All threads' CPU: the garbage collector's helper threads too, which no line's main-thread figure counts.
    console.log(`\nbig instance CPU during the lists (all threads, writes and samples): ${fmt(cpuMs(bigServer.child.pid!) - cpuBefore, 0)} ms`);
    console.log(`big instance RSS after the lists: ${fmt(rssMb(bigServer.child.pid!))} MB (${await memorySplit(bigServer.child.pid!, memoryFile)})`);
  } finally {
    await stop(bigServer.child);
    await stop(smallServer.child);
  }
}

const MID_PATH = 'scale-mid';
const MID_ISSUES = 1_000;

/** The instance's project of MID_ISSUES issues (root's `scale-mid`), made through the API the first time. */
async function midProject(url: string, m: ScaleManifest): Promise<number> {
  const api = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${url}/api/v4${path}`, {
      method,
      headers: { 'private-token': m.token, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status}`);
    return res.json();
  };
  const user = await api('GET', '/user');
  const path = encodeURIComponent(`${user.username}/${MID_PATH}`);
  const project = (await fetch(`${url}/api/v4/projects/${path}`, { headers: { 'private-token': m.token } })).ok
    ? await api('GET', `/projects/${path}`)
    : await api('POST', '/projects', { name: MID_PATH, path: MID_PATH });
  const have = Number((await fetch(`${url}/api/v4/projects/${project.id}/issues?per_page=1`, { headers: { 'private-token': m.token } })).headers.get('x-total') ?? 0);
  for (let i = have; i < MID_ISSUES; i++) await api('POST', `/projects/${project.id}/issues`, { title: `Mid issue ${i + 1}`, description: 'A project of a thousand issues', labels: i % 3 ? 'bug' : '' });
  return project.id as number;
}

/** Merge requests and labels the 1,000-issue project gets, and epics its group of the same name, for the fair 100-row lines. */
const MID_FILL = 120;

/** Fills the 1,000-issue project with MID_FILL merge requests and labels, and root's group `scale-mid-group` with MID_FILL epics (the first time). */
async function midFilled(url: string, m: ScaleManifest, project: number): Promise<{ project: number; group: number }> {
  const api = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${url}/api/v4${path}`, {
      method,
      headers: { 'private-token': m.token, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status}`);
    return res.json();
  };
  const total = async (path: string): Promise<number> => Number((await fetch(`${url}/api/v4${path}`, { headers: { 'private-token': m.token } })).headers.get('x-total') ?? 0);
  for (let i = await total(`/projects/${project}/merge_requests?per_page=1`); i < MID_FILL; i++) {
    await api('POST', `/projects/${project}/merge_requests`, { title: `Mid change ${i + 1}`, description: 'A project of a thousand issues', source_branch: `mid-${i + 1}`, target_branch: 'main', labels: i % 3 ? 'bug' : '' });
  }
  for (let i = await total(`/projects/${project}/labels?per_page=1`); i < MID_FILL; i++) {
    await api('POST', `/projects/${project}/labels`, { name: `mid-label-${String(i + 1).padStart(3, '0')}`, color: '#428bca', description: 'A label of the mid project' });
  }
  const path = 'scale-mid-group';
  const found = (await api('GET', `/groups?search=${path}`)) as { id: number; path: string }[];
  const group = found.find((g) => g.path === path)?.id ?? ((await api('POST', '/groups', { name: path, path })) as { id: number }).id;
  for (let i = await total(`/groups/${group}/epics?per_page=1`); i < MID_FILL; i++) {
    await api('POST', `/groups/${group}/epics`, { title: `Mid epic ${i + 1}`, description: 'A group of epics', labels: i % 3 ? 'bug' : '' });
  }
  return { project, group };
}

/** Lists of one project (or its group), as [name, path for a project id]. */
function projectScoped(m: ScaleManifest, milestones: Map<number, number>): [string, (id: number) => string][] {
  const label = m.labels[0] ?? 'bug';
  const lists: [string, (id: number) => string][] = [
    ['issues page 1', (id) => `/projects/${id}/issues`],
    ['issues page 2500 (deep)', (id) => `/projects/${id}/issues?page=2500`],
    ['issues state=opened', (id) => `/projects/${id}/issues?state=opened`],
    ['issues state=closed', (id) => `/projects/${id}/issues?state=closed`],
    [`issues labels=${label}`, (id) => `/projects/${id}/issues?labels=${label}`],
    [`issues state=opened&labels=${label}`, (id) => `/projects/${id}/issues?state=opened&labels=${label}`],
    ['issues author_id', (id) => `/projects/${id}/issues?author_id=${m.authorId}`],
    ['issues milestone=v1', (id) => `/projects/${id}/issues?milestone=v1`],
    ['issues search=crash', (id) => `/projects/${id}/issues?search=crash`],
    ['issues order_by=updated_at&sort=asc', (id) => `/projects/${id}/issues?order_by=updated_at&sort=asc`],
    ['issues order_by=title', (id) => `/projects/${id}/issues?order_by=title`],
    ['issues per_page=100&order_by=updated_at', (id) => `/projects/${id}/issues?per_page=100&order_by=updated_at`],
    // Round 13 (pop13): computed orders read in id order in parts (order-walk.ts); 250-330 ms before (a sort of every record).
    ['issues order_by=popularity', (id) => `/projects/${id}/issues?order_by=popularity`],
    ['issues order_by=popularity&sort=asc&state=opened', (id) => `/projects/${id}/issues?order_by=popularity&sort=asc&state=opened`],
    ['issues order_by=popularity&state=opened page 2500', (id) => `/projects/${id}/issues?order_by=popularity&state=opened&page=2500`],
    ['issues order_by=relative_position&sort=asc', (id) => `/projects/${id}/issues?order_by=relative_position&sort=asc`],
    ['issues order_by=relative_position&state=opened page 2500', (id) => `/projects/${id}/issues?order_by=relative_position&state=opened&page=2500`],
    ['issues order_by=milestone_due', (id) => `/projects/${id}/issues?order_by=milestone_due`],
    ['issues order_by=milestone_due&state=opened page 2500', (id) => `/projects/${id}/issues?order_by=milestone_due&state=opened&page=2500`],
    // Round 14 (ord14): computed orders with other filters, the list walked in id order with them
    // (filteredWalk; 200-950 ms before, the ORDER BY's sort of every match).
    ['issues author_id&order_by=popularity&per_page=100&page=50', (id) => `/projects/${id}/issues?author_id=${m.authorId}&order_by=popularity&per_page=100&page=50`],
    [`issues not[labels]=${label}&order_by=popularity&created_after`, (id) => `/projects/${id}/issues?not[labels]=${label}&order_by=popularity&created_after=2020-01-01T00:00:00Z`],
    [`issues labels=${label}&order_by=relative_position&sort=asc`, (id) => `/projects/${id}/issues?labels=${label}&order_by=relative_position&sort=asc`],
    ['issues confidential=false&order_by=milestone_due&sort=asc', (id) => `/projects/${id}/issues?confidential=false&order_by=milestone_due&sort=asc`],
    ['issues author_id&order_by=weight&sort=asc', (id) => `/projects/${id}/issues?author_id=${m.authorId}&order_by=weight&sort=asc`],
    ['merge requests page 1', (id) => `/projects/${id}/merge_requests`],
    ['merge requests page 400 (deep)', (id) => `/projects/${id}/merge_requests?page=400`],
    ['merge requests search=change', (id) => `/projects/${id}/merge_requests?search=change`],
    ['merge requests state=opened&per_page=100', (id) => `/projects/${id}/merge_requests?state=opened&per_page=100`],
    // With bench/scale-more.ts's million merge requests: its common filters and orders too.
    ...more<(id: number) => string>(m, [
      ['merge requests page 2500 (deep)', (id) => `/projects/${id}/merge_requests?page=2500`],
      ['merge requests state=opened', (id) => `/projects/${id}/merge_requests?state=opened`],
      ['merge requests state=merged', (id) => `/projects/${id}/merge_requests?state=merged`],
      [`merge requests labels=${label}`, (id) => `/projects/${id}/merge_requests?labels=${label}`],
      [`merge requests state=opened&labels=${label}`, (id) => `/projects/${id}/merge_requests?state=opened&labels=${label}`],
      ['merge requests author_id', (id) => `/projects/${id}/merge_requests?author_id=${m.authorId}`],
      ['merge requests milestone=v1', (id) => `/projects/${id}/merge_requests?milestone=v1`],
      ['merge requests search=crash', (id) => `/projects/${id}/merge_requests?search=crash`],
      ['merge requests search=Change 123456: (one)', (id) => `/projects/${id}/merge_requests?search=Change%20123456%3A`],
      ['merge requests order_by=updated_at&sort=asc', (id) => `/projects/${id}/merge_requests?order_by=updated_at&sort=asc`],
      ['merge requests order_by=title', (id) => `/projects/${id}/merge_requests?order_by=title`],
      ['merge requests order_by=title page 2500', (id) => `/projects/${id}/merge_requests?order_by=title&page=2500`],
      ['merge requests per_page=100', (id) => `/projects/${id}/merge_requests?per_page=100`],
      ['merge requests sort=asc', (id) => `/projects/${id}/merge_requests?sort=asc`],
      ['merge requests order_by=updated_at', (id) => `/projects/${id}/merge_requests?order_by=updated_at`],
      ['merge requests order_by=popularity&state=opened', (id) => `/projects/${id}/merge_requests?order_by=popularity&state=opened`],
      ['merge requests order_by=milestone_due', (id) => `/projects/${id}/merge_requests?order_by=milestone_due`],
      ['merge requests order_by=milestone_due&sort=asc page 2500', (id) => `/projects/${id}/merge_requests?order_by=milestone_due&sort=asc&page=2500`],
      ['merge requests author_id&order_by=popularity', (id) => `/projects/${id}/merge_requests?author_id=${m.authorId}&order_by=popularity`],
      ['merge requests target_branch=main&order_by=milestone_due', (id) => `/projects/${id}/merge_requests?target_branch=main&order_by=milestone_due`],
      ['merge requests state=closed', (id) => `/projects/${id}/merge_requests?state=closed`],
      [`merge requests milestone=v1&labels=${label}`, (id) => `/projects/${id}/merge_requests?milestone=v1&labels=${label}`],
      // One merge request's branch on each side (scale-more.ts's change-5, build-scale.ts's feature-1).
      ['merge requests source_branch (one)', (id) => `/projects/${id}/merge_requests?source_branch=${id === m.bigProjectId ? 'change-5' : 'feature-1'}`],
      ['merge requests target_branch=main', (id) => `/projects/${id}/merge_requests?target_branch=main`],
      // Two filters at once (round 8 timed them apart from the bench: 10-45 ms).
      ['merge requests search=crash&state=merged', (id) => `/projects/${id}/merge_requests?search=crash&state=merged`],
      [`merge requests author_id&labels=${label}`, (id) => `/projects/${id}/merge_requests?author_id=${m.authorId}&labels=${label}`],
      [`merge requests milestone=v1&labels=${label} page 400`, (id) => `/projects/${id}/merge_requests?milestone=v1&labels=${label}&page=400`],
      [`merge requests labels=${label}&order_by=updated_at`, (id) => `/projects/${id}/merge_requests?labels=${label}&order_by=updated_at`],
    ]),
    ['notes of issue #1', (id) => `/projects/${id}/issues/1/notes`],
    // The big project's busy issue (bench/scale-busy.ts: 200,000 notes) against the small project's issue #1.
    ...busy(m, 'notes of the busy issue', ''),
    ...busy(m, 'notes of the busy issue page 2000', '?page=2000'),
    ...busy(m, 'notes of the busy issue order_by=updated_at&sort=asc', '?order_by=updated_at&sort=asc'),
    ...busy(m, 'notes of the busy issue sort=asc', '?sort=asc'),
    ...busy(m, 'notes of the busy issue per_page=100', '?per_page=100'),
    // Round 11: the discussions list grouped every note (260-320 ms); the GET's `subscribed` read them all (277 ms).
    ...busy(m, 'discussions of the busy issue', '', '/discussions'),
    ...busy(m, 'discussions of the busy issue page 1000', '?page=1000', '/discussions'),
    ...busy(m, 'the busy issue', '', ''),
    ['project events', (id) => `/projects/${id}/events`],
    ['project events page 500', (id) => `/projects/${id}/events?page=500`],
    ['project events page 2500', (id) => `/projects/${id}/events?page=2500`],
    ['project events action=closed', (id) => `/projects/${id}/events?action=closed`],
    ['project snippets', (id) => `/projects/${id}/snippets`],
    ...more<(id: number) => string>(m, [
      ['project snippets page 2500 (deep)', (id) => `/projects/${id}/snippets?page=2500`],
      ['project snippets per_page=100', (id) => `/projects/${id}/snippets?per_page=100`],
    ]),
    ['project labels', (id) => `/projects/${id}/labels`],
    ['project labels with_counts', (id) => `/projects/${id}/labels?with_counts=true`],
    ...more<(id: number) => string>(m, [
      ['project labels page 2500 (deep)', (id) => `/projects/${id}/labels?page=2500`],
      ['project labels search=bug', (id) => `/projects/${id}/labels?search=bug`],
      ['project labels search=label-1', (id) => `/projects/${id}/labels?search=label-1`],
      ['project labels search=scale-0123456 (one)', (id) => `/projects/${id}/labels?search=scale-0123456`],
      ['project labels search=scale (common)', (id) => `/projects/${id}/labels?search=scale`],
      ['project labels search=scale page 2500', (id) => `/projects/${id}/labels?search=scale&page=2500`],
      ['project labels per_page=100', (id) => `/projects/${id}/labels?per_page=100`],
    ]),
    ['project members/all', (id) => `/projects/${id}/members/all`],
    ...coverageOfProjectLists(m),
    ...setFiltersOfProjectLists(m),
    ...priorityOrdersOfProjectLists(m),
    ...linkedLists(m, milestones),
  ];
  return lists;
}

/**
 * The common filters and orders of each project list the lines above leave out (round 9, mem9):
 * issues ascending and by two filters at once, deep filtered pages, the busy issue's notes newest
 * updated first, events by target type, date and ascending, members direct and by query.
 */
function coverageOfProjectLists(m: ScaleManifest): [string, (id: number) => string][] {
  const label = m.labels[0] ?? 'bug';
  return [
    ['issues sort=asc', (id) => `/projects/${id}/issues?sort=asc`],
    ['issues order_by=created_at&sort=asc page 2500', (id) => `/projects/${id}/issues?order_by=created_at&sort=asc&page=2500`],
    [`issues labels=${label} page 500`, (id) => `/projects/${id}/issues?labels=${label}&page=500`],
    ['issues milestone=v1 page 500', (id) => `/projects/${id}/issues?milestone=v1&page=500`],
    ['issues state=closed page 500', (id) => `/projects/${id}/issues?state=closed&page=500`],
    ['issues milestone=v1&state=opened', (id) => `/projects/${id}/issues?milestone=v1&state=opened`],
    // Milestone wildcards (round 11: Upcoming/Started walked every record, ~300 ms, to find none).
    ['issues milestone=Upcoming', (id) => `/projects/${id}/issues?milestone=Upcoming`],
    ['issues milestone=Started', (id) => `/projects/${id}/issues?milestone=Started`],
    ['issues milestone=Any page 300', (id) => `/projects/${id}/issues?milestone=Any&page=300`],
    ...more(m, [['merge requests milestone=Any', (id: number) => `/projects/${id}/merge_requests?milestone=Any`]]),
    [`issues author_id&labels=${label}`, (id) => `/projects/${id}/issues?author_id=${m.authorId}&labels=${label}`],
    // build-scale.ts closes every issue of that author: counted 0 from the counters, the page walked all 50,000 of them.
    ['issues author_id&state=opened (none)', (id) => `/projects/${id}/issues?author_id=${m.authorId}&state=opened`],
    // 6,667 records: page 300 walks to the author's 6,000th labelled record (from an earlier page's row once read).
    [`issues author_id&labels=${label} page 300`, (id) => `/projects/${id}/issues?author_id=${m.authorId}&labels=${label}&page=300`],
    ['issues search=crash&state=opened', (id) => `/projects/${id}/issues?search=crash&state=opened`],
    ['issues search=crash&sort=asc', (id) => `/projects/${id}/issues?search=crash&sort=asc`],
    ['issues order_by=updated_at page 2500', (id) => `/projects/${id}/issues?order_by=updated_at&page=2500`],
    ...busy(m, 'notes of the busy issue order_by=updated_at', '?order_by=updated_at'),
    ...busy(m, 'notes of the busy issue sort=asc page 2000', '?sort=asc&page=2000'),
    ['project events target_type=issue', (id) => `/projects/${id}/events?target_type=issue`],
    ['project events sort=asc', (id) => `/projects/${id}/events?sort=asc`],
    ['project events sort=asc page 2500', (id) => `/projects/${id}/events?sort=asc&page=2500`],
    ['project events before=2024-01-06', (id) => `/projects/${id}/events?before=2024-01-06`],
    ['project events after=2024-01-06', (id) => `/projects/${id}/events?after=2024-01-06`],
    ['project events action=closed page 2500', (id) => `/projects/${id}/events?action=closed&page=2500`],
    ['project members', (id) => `/projects/${id}/members`],
    ['project members/all query=user12', (id) => `/projects/${id}/members/all?query=user12`],
    ['project members/all page 90', (id) => `/projects/${id}/members/all?page=90`],
  ];
}

/**
 * order_by=label_priority and priority (round 13, lpri13: answered in created_at order before): the
 * records with a label prioritized in their project (or, for priority, a milestone with a due date)
 * first, then every other newest id first. The scale data prioritizes no label: the lines time the
 * common case, a page of records without one, found in id order.
 */
function priorityOrdersOfProjectLists(m: ScaleManifest): [string, (id: number) => string][] {
  const label = m.labels[0] ?? 'bug';
  return [
    ['issues order_by=label_priority', (id) => `/projects/${id}/issues?order_by=label_priority`],
    ['issues order_by=label_priority page 2500', (id) => `/projects/${id}/issues?order_by=label_priority&page=2500`],
    ['issues order_by=label_priority&state=opened', (id) => `/projects/${id}/issues?order_by=label_priority&state=opened`],
    [`issues order_by=label_priority&labels=${label}`, (id) => `/projects/${id}/issues?order_by=label_priority&labels=${label}`],
    ['issues order_by=priority&sort=desc', (id) => `/projects/${id}/issues?order_by=priority&sort=desc`],
    ...more<(id: number) => string>(m, [
      ['merge requests order_by=label_priority', (id) => `/projects/${id}/merge_requests?order_by=label_priority`],
      ['merge requests order_by=label_priority page 2500', (id) => `/projects/${id}/merge_requests?order_by=label_priority&page=2500`],
      ['merge requests order_by=priority&state=opened', (id) => `/projects/${id}/merge_requests?order_by=priority&state=opened`],
    ]),
  ];
}

/**
 * Filters by sets of records other tables hold (round 10, filt11): assignees and reviewers
 * (core/066's rows), the caller's reactions, confidential issues (core/067), and the date filters
 * on the other column than the order's. The scale data assigns nobody and has no reactions: the
 * lines time finding none, which walked every record before.
 */
function setFiltersOfProjectLists(m: ScaleManifest): [string, (id: number) => string][] {
  return [
    ['issues assignee_id', (id) => `/projects/${id}/issues?assignee_id=${m.authorId}`],
    ['issues assignee_id page 50', (id) => `/projects/${id}/issues?assignee_id=${m.authorId}&page=50`],
    ['issues not[assignee_id]', (id) => `/projects/${id}/issues?not[assignee_id]=${m.authorId}`],
    ['issues confidential=true', (id) => `/projects/${id}/issues?confidential=true`],
    ['issues my_reaction_emoji=thumbsup', (id) => `/projects/${id}/issues?my_reaction_emoji=thumbsup`],
    ['issues updated_before=2024-01-06', (id) => `/projects/${id}/issues?updated_before=2024-01-06`],
    // None / Any and the negated reviewer (round 11, filt12): Any walked every record to find none.
    ['issues assignee_id=Any', (id) => `/projects/${id}/issues?assignee_id=Any`],
    // Round 11 (sweep11's probe: 300-860 ms at a million before).
    ['issues labels=bug,label-1', (id) => `/projects/${id}/issues?labels=bug,label-1`],
    ['issues labels=label-1&not[labels]=bug', (id) => `/projects/${id}/issues?labels=label-1&not[labels]=bug`],
    // Round 12 (lab12): counted from the pair counters (core/092), the rarer title's rows walked in order.
    ['issues labels=bug,label-1&state=opened&sort=asc', (id) => `/projects/${id}/issues?labels=bug,label-1&state=opened&sort=asc`],
    ['issues labels=bug,label-1&order_by=updated_at', (id) => `/projects/${id}/issues?labels=bug,label-1&order_by=updated_at`],
    ['issues milestone=Upcoming', (id) => `/projects/${id}/issues?milestone=Upcoming`],
    // A date on the other column than the order (round 11, db/date-lag.ts: 100-430 ms before).
    ...dateLagLists('issues'),
    // Filters GitLab offers that Sandlab ignored before round 12 (fil13): the scale data has no due
    // date, no incident, no draft and no fork: the sparse ones time finding none, the dense ones a walk.
    ['issues due_date=overdue', (id) => `/projects/${id}/issues?due_date=overdue`],
    ['issues due_date=week&state=opened', (id) => `/projects/${id}/issues?due_date=week&state=opened`],
    ['issues due_date=0', (id) => `/projects/${id}/issues?due_date=0`],
    ['issues issue_type=incident', (id) => `/projects/${id}/issues?issue_type=incident`],
    ['issues issue_type=issue', (id) => `/projects/${id}/issues?issue_type=issue`],
    // Dense filters' deep pages (round 13, dense13): the project's list by its order's index less the
    // few records that fail the filter (complement-walk.ts), where the walk read every record to the page.
    ['issues issue_type=issue page 2500', (id) => `/projects/${id}/issues?issue_type=issue&page=2500`],
    ['issues issue_type=issue&state=opened page 2500', (id) => `/projects/${id}/issues?issue_type=issue&state=opened&page=2500`],
    ['issues due_date=0 page 2500', (id) => `/projects/${id}/issues?due_date=0&page=2500`],
    ['issues due_date=0&order_by=updated_at page 2500', (id) => `/projects/${id}/issues?due_date=0&order_by=updated_at&page=2500`],
    ['issues due_date=0&order_by=title&sort=asc page 1000', (id) => `/projects/${id}/issues?due_date=0&order_by=title&sort=asc&page=1000`],
    ['issues scope=created_by_me', (id) => `/projects/${id}/issues?scope=created_by_me`],
    // EE's weight= / not[weight]= / order_by=weight / epic_id= (round 13, wgt13: ignored before). The
    // scale data has no weight and no epic's issue unless bench/scale-weights.ts gave them (1 in 20
    // weighted, 1 in 13 in an epic): the sparse ones time finding none, the dense ones a walk.
    ['issues weight=3', (id) => `/projects/${id}/issues?weight=3`],
    ['issues weight=3 page 50', (id) => `/projects/${id}/issues?weight=3&page=50`],
    ['issues weight=Any', (id) => `/projects/${id}/issues?weight=Any`],
    ['issues weight=None', (id) => `/projects/${id}/issues?weight=None`],
    ['issues not[weight]=3', (id) => `/projects/${id}/issues?not[weight]=3`],
    ['issues order_by=weight', (id) => `/projects/${id}/issues?order_by=weight`],
    ['issues order_by=weight&sort=asc page 2500', (id) => `/projects/${id}/issues?order_by=weight&sort=asc&page=2500`],
    ['issues epic_id=Any', (id) => `/projects/${id}/issues?epic_id=Any`],
    ['issues epic_id=None', (id) => `/projects/${id}/issues?epic_id=None`],
    ...(m.weightsAndEpics ? ([['issues epic_id=<an epic>', (id) => `/projects/${id}/issues?epic_id=${m.weightsAndEpics!.epicId}`]] as [string, (id: number) => string][]) : []),
    ...more<(id: number) => string>(m, [
      ['merge requests reviewer_id', (id) => `/projects/${id}/merge_requests?reviewer_id=${m.authorId}`],
      ['merge requests assignee_id', (id) => `/projects/${id}/merge_requests?assignee_id=${m.authorId}`],
      ['merge requests reviewer_id=Any', (id) => `/projects/${id}/merge_requests?reviewer_id=Any`],
      ['merge requests reviewer_id=None', (id) => `/projects/${id}/merge_requests?reviewer_id=None`],
      ['merge requests not[reviewer_id]', (id) => `/projects/${id}/merge_requests?not[reviewer_id]=${m.authorId}`],
      ['merge requests assignee_id=Any', (id) => `/projects/${id}/merge_requests?assignee_id=Any`],
      ['merge requests labels=bug,label-1', (id) => `/projects/${id}/merge_requests?labels=bug,label-1`],
      ['merge requests labels=label-1&not[labels]=bug', (id) => `/projects/${id}/merge_requests?labels=label-1&not[labels]=bug`],
      ['merge requests milestone=Started', (id) => `/projects/${id}/merge_requests?milestone=Started`],
      ...dateLagLists('merge_requests'),
      ['merge requests wip=yes', (id) => `/projects/${id}/merge_requests?wip=yes`],
      ['merge requests wip=no', (id) => `/projects/${id}/merge_requests?wip=no`],
      ['merge requests wip=no page 400', (id) => `/projects/${id}/merge_requests?wip=no&page=400`],
      ['merge requests wip=no&state=opened&sort=asc page 300', (id) => `/projects/${id}/merge_requests?wip=no&state=opened&sort=asc&page=300`],
      ['merge requests source_project_id (a fork: none)', (id) => `/projects/${id}/merge_requests?source_project_id=${m.smallProjectId}`],
      ['merge requests merge_user_id', (id) => `/projects/${id}/merge_requests?merge_user_id=${m.authorId}`],
      ['merge requests scope=reviews_for_me', (id) => `/projects/${id}/merge_requests?scope=reviews_for_me`],
    ]),
  ];
}

/** Issue or merge request lists ordered by one date and filtered by the other (db/date-lag.ts), the middle of the records' three years. */
function dateLagLists(kind: 'issues' | 'merge_requests'): [string, (id: number) => string][] {
  const name = kind === 'issues' ? 'issues' : 'merge requests';
  const mid = '2024-06-01T00:00:00Z';
  return [
    [`${name} updated_after&sort=asc`, (id) => `/projects/${id}/${kind}?updated_after=${mid}&sort=asc`],
    [`${name} updated_after page 200`, (id) => `/projects/${id}/${kind}?updated_after=${mid}&page=200`],
    [`${name} order_by=updated_at&created_before`, (id) => `/projects/${id}/${kind}?order_by=updated_at&created_before=${mid}`],
    [`${name} order_by=updated_at&created_after&updated_before&sort=asc`, (id) => `/projects/${id}/${kind}?order_by=updated_at&created_after=2024-01-01T00:00:00Z&updated_before=${mid}&sort=asc`],
    [`${name} updated_after&sort=asc&state=opened`, (id) => `/projects/${id}/${kind}?updated_after=${mid}&sort=asc&state=opened`],
    // A rare state (round 12: counted from the (project, state, created_at) index, 23 ms before).
    [`${name} order_by=updated_at&created_before&state=closed`, (id) => `/projects/${id}/${kind}?order_by=updated_at&created_before=${mid}&state=closed`],
  ];
}

/**
 * Lists that hang off one issue or one milestone, and the Search API's issues and merge requests
 * (round 10, links10: 10-620 ms at a million rows before). Issue #500 of the big project against
 * #1 of the small one.
 */
function linkedLists(m: ScaleManifest, milestones: Map<number, number>): [string, (id: number) => string][] {
  const issue = (id: number): number => (id === m.bigProjectId ? 500 : 1);
  const hasMilestones = milestones.has(m.bigProjectId) && milestones.has(m.smallProjectId);
  return [
    ['issue related_merge_requests', (id) => `/projects/${id}/issues/${issue(id)}/related_merge_requests`],
    ['issue closed_by', (id) => `/projects/${id}/issues/${issue(id)}/closed_by`],
    ...(hasMilestones
      ? ([
          ['milestone issues', (id) => `/projects/${id}/milestones/${milestones.get(id)}/issues`],
          ['milestone merge requests', (id) => `/projects/${id}/milestones/${milestones.get(id)}/merge_requests`],
          ['milestone issues page 500', (id) => `/projects/${id}/milestones/${milestones.get(id)}/issues?page=500`],
          ['milestone merge requests page 400', (id) => `/projects/${id}/milestones/${milestones.get(id)}/merge_requests?page=400`],
        ] as [string, (id: number) => string][])
      : []),
    ['search API scope=issues search=crash', (id) => `/projects/${id}/search?scope=issues&search=crash`],
    ['search API scope=merge_requests search=crash', (id) => `/projects/${id}/search?scope=merge_requests&search=crash`],
    // The other scopes (round 11, filt12): notes by core/076's index (a common term, a rare one, none), members.
    ['search API scope=notes search=comment', (id) => `/projects/${id}/search?scope=notes&search=comment`],
    ['search API scope=notes search=issue 12345', (id) => `/projects/${id}/search?scope=notes&search=issue%2012345`],
    ['search API scope=notes search=crash', (id) => `/projects/${id}/search?scope=notes&search=crash`],
    ['search API scope=users search=user12', (id) => `/projects/${id}/search?scope=users&search=user12`],
    ['search API scope=milestones search=v1', (id) => `/projects/${id}/search?scope=milestones&search=v1`],
  ];
}

/** A list of the busy issue's notes on the big project, of issue #1 on the small one (none without scale-busy.ts). */
function busy(m: ScaleManifest, name: string, query: string, list = '/notes'): [string, (id: number) => string][] {
  const iid = m.busyIssueIid;
  if (!iid) return [];
  return [[name, (id) => `/projects/${id}/issues/${id === m.bigProjectId ? iid : 1}${list}${query}`]];
}

/** Requests that need bench/scale-more.ts's records (a million merge requests, snippets, epics, labels). */
function more<T>(m: ScaleManifest, lists: [string, T][]): [string, T][] {
  return m.moreLists ? lists : [];
}

/** Lists of the whole instance (or of the scale group), big instance against the small one. */
function instanceWide(m: ScaleManifest): [string, string][] {
  return [
    ['group epics', `/groups/${m.groupId}/epics`],
    ...more(m, [
      ['group epics page 2500 (deep)', `/groups/${m.groupId}/epics?page=2500`],
      ['group epics state=opened', `/groups/${m.groupId}/epics?state=opened`],
      ['group epics state=closed', `/groups/${m.groupId}/epics?state=closed`],
      ['group epics labels=bug', `/groups/${m.groupId}/epics?labels=bug`],
      ['group epics author_id', `/groups/${m.groupId}/epics?author_id=${m.authorId}`],
      ['group epics search=performance', `/groups/${m.groupId}/epics?search=performance`],
      ['group epics search=Epic 12345:', `/groups/${m.groupId}/epics?search=Epic%2012345%3A`],
      ['group epics order_by=updated_at&sort=asc', `/groups/${m.groupId}/epics?order_by=updated_at&sort=asc`],
      ['group epics order_by=title', `/groups/${m.groupId}/epics?order_by=title`],
      ['group epics per_page=100', `/groups/${m.groupId}/epics?per_page=100`],
      ['group epics sort=asc', `/groups/${m.groupId}/epics?sort=asc`],
      ['group epics state=opened&labels=bug', `/groups/${m.groupId}/epics?state=opened&labels=bug`],
      ['group epics author_id&labels=bug', `/groups/${m.groupId}/epics?author_id=${m.authorId}&labels=bug`],
      ['group epics labels=bug page 2500', `/groups/${m.groupId}/epics?labels=bug&page=2500`],
      // Round 12 (lab12): the rarest title's label rows walked in order (epics/014); 500 ms at a million epics before.
      ['group epics labels=bug,label-1', `/groups/${m.groupId}/epics?labels=bug,label-1`],
      ['group epics labels=bug&order_by=updated_at', `/groups/${m.groupId}/epics?labels=bug&order_by=updated_at`],
      ['group epics search=performance page 2500', `/groups/${m.groupId}/epics?search=performance&page=2500`],
      ['group epics created_after', `/groups/${m.groupId}/epics?created_after=2024-01-01T00:00:00Z`],
      ['group epics updated_before', `/groups/${m.groupId}/epics?updated_before=2024-01-06T00:00:00Z`],
      ['group epics updated_after', `/groups/${m.groupId}/epics?updated_after=2024-06-01T00:00:00Z`],
      ['group epics order_by=updated_at&created_after', `/groups/${m.groupId}/epics?order_by=updated_at&created_after=2024-06-01T00:00:00Z`],
      // Round 11 (db/date-lag.ts): 85-165 ms before.
      ['group epics updated_after&sort=asc', `/groups/${m.groupId}/epics?updated_after=2024-06-01T00:00:00Z&sort=asc`],
      ['group epics order_by=updated_at&created_before', `/groups/${m.groupId}/epics?order_by=updated_at&created_before=2024-06-01T00:00:00Z`],
      ['group epics updated_after&sort=asc page 200', `/groups/${m.groupId}/epics?updated_after=2024-06-01T00:00:00Z&sort=asc&page=200`],
      ['group epics confidential=true', `/groups/${m.groupId}/epics?confidential=true`],
      ['group epics my_reaction_emoji=thumbsup', `/groups/${m.groupId}/epics?my_reaction_emoji=thumbsup`],
      ['group epics include_descendant_groups=false', `/groups/${m.groupId}/epics?include_descendant_groups=false`],
      ['group labels', `/groups/${m.groupId}/labels`],
      ['group labels only_group_labels=false', `/groups/${m.groupId}/labels?only_group_labels=false`],
      ['group labels only_group_labels=false page 2500', `/groups/${m.groupId}/labels?only_group_labels=false&page=2500`],
    ]),
    ['group members', `/groups/${m.groupId}/members`],
    ['group issues', `/groups/${m.groupId}/issues`],
    ...more(m, [
      ['group merge requests', `/groups/${m.groupId}/merge_requests`],
      ['group merge requests labels=bug', `/groups/${m.groupId}/merge_requests?labels=bug`],
      ['group merge requests state=merged', `/groups/${m.groupId}/merge_requests?state=merged`],
      ['merge requests scope=all', '/merge_requests?scope=all'],
      ['merge requests scope=all labels=bug', '/merge_requests?scope=all&labels=bug'],
      ['merge requests scope=all order_by=updated_at', '/merge_requests?scope=all&order_by=updated_at'],
      // A common term over many projects (round 8: ~460 ms, every match of the instance read).
      ['group merge requests search=crash', `/groups/${m.groupId}/merge_requests?search=crash`],
      ['merge requests scope=all search=crash', '/merge_requests?scope=all&search=crash'],
    ]),
    // Round 13 (pop13): computed orders over a group's few (project, state) pairs, and the instance's table order.
    ['group issues order_by=popularity', `/groups/${m.groupId}/issues?order_by=popularity`],
    ['group issues order_by=milestone_due&state=opened', `/groups/${m.groupId}/issues?order_by=milestone_due&state=opened`],
    ['issues scope=all order_by=relative_position&sort=asc', '/issues?scope=all&order_by=relative_position&sort=asc'],
    // Round 14 (ord14): filters or many projects with a computed order; order_by=weight past a project (each weight a segment).
    ['group issues milestone=None&order_by=popularity&sort=asc', `/groups/${m.groupId}/issues?state=all&milestone=None&order_by=popularity&sort=asc`],
    ['issues (created by me) order_by=milestone_due&sort=asc&per_page=100', '/issues?order_by=milestone_due&sort=asc&per_page=100'],
    ['group issues order_by=weight', `/groups/${m.groupId}/issues?order_by=weight`],
    ['group issues order_by=weight&sort=asc page 50', `/groups/${m.groupId}/issues?order_by=weight&sort=asc&page=50`],
    ['issues scope=all order_by=weight&sort=asc', '/issues?scope=all&order_by=weight&sort=asc'],
    ...more(m, [
      ['group merge requests order_by=popularity', `/groups/${m.groupId}/merge_requests?order_by=popularity`],
      ['merge requests scope=all order_by=milestone_due', '/merge_requests?scope=all&order_by=milestone_due'],
    ]),
    ['group issues search=crash', `/groups/${m.groupId}/issues?search=crash`],
    // A milestone title many projects' milestones share (round 11: its records read by the milestone index and sorted, ~190-260 ms).
    ['group issues milestone=v1', `/groups/${m.groupId}/issues?milestone=v1`],
    ['issues scope=all milestone=v1', '/issues?scope=all&milestone=v1'],
    ...more(m, [['group merge requests milestone=v1', `/groups/${m.groupId}/merge_requests?milestone=v1`]]),
    // Sets of records (round 10, filt11): see setFiltersOfProjectLists.
    ['group issues assignee_id', `/groups/${m.groupId}/issues?assignee_id=${m.authorId}`],
    ['group issues milestone=v1', `/groups/${m.groupId}/issues?milestone=v1`],
    ['group issues labels=bug,label-1', `/groups/${m.groupId}/issues?labels=bug,label-1`],
    // Round 12 (lab12): the pair counters (core/092) and the rarer title's rows of every project walked in order.
    ['issues scope=all labels=bug,label-1', '/issues?scope=all&labels=bug,label-1'],
    ['group issues labels=label-1&not[labels]=bug', `/groups/${m.groupId}/issues?labels=label-1&not[labels]=bug`],
    ...more(m, [['group merge requests labels=bug,label-1', `/groups/${m.groupId}/merge_requests?labels=bug,label-1`]]),
    ['issues scope=all milestone=v1', '/issues?scope=all&milestone=v1'],
    ['issues scope=all assignee_id', `/issues?scope=all&assignee_id=${m.authorId}`],
    ['issues scope=assigned_to_me', '/issues?scope=assigned_to_me'],
    ['issues scope=all confidential=true', '/issues?scope=all&confidential=true'],
    ...more(m, [
      ['group merge requests reviewer_id', `/groups/${m.groupId}/merge_requests?reviewer_id=${m.authorId}`],
      ['group merge requests milestone=v1', `/groups/${m.groupId}/merge_requests?milestone=v1`],
      ['merge requests scope=all reviewer_id', `/merge_requests?scope=all&reviewer_id=${m.authorId}`],
      ['group merge requests reviewer_id=Any', `/groups/${m.groupId}/merge_requests?reviewer_id=Any`],
      ['group merge requests reviewer_id=None', `/groups/${m.groupId}/merge_requests?reviewer_id=None`],
      ['merge requests scope=all not[reviewer_id]', `/merge_requests?scope=all&not[reviewer_id]=${m.authorId}`],
      // Round 12: a milestone set's (project, milestone) pairs merged in creation order (the newest 20,000 carry none).
      ['group merge requests milestone=v1 page 500', `/groups/${m.groupId}/merge_requests?milestone=v1&page=500`],
      ['merge requests scope=all milestone=v1', '/merge_requests?scope=all&milestone=v1'],
    ]),
    ['group issues assignee_id=None', `/groups/${m.groupId}/issues?assignee_id=None`],
    ['issues scope=all not[assignee_id]', `/issues?scope=all&not[assignee_id]=${m.authorId}`],
    // author_id&labels over many projects (round 11, filt12): counted from the label-author counters.
    ['group issues author_id&labels=bug', `/groups/${m.groupId}/issues?author_id=${m.authorId}&labels=bug`],
    ['issues scope=all author_id&labels=bug', `/issues?scope=all&author_id=${m.authorId}&labels=bug`],
    ['group issues author_id&labels=bug&state=opened (none)', `/groups/${m.groupId}/issues?author_id=${m.authorId}&labels=bug&state=opened`],
    ...more(m, [
      ['group merge requests author_id&labels=bug', `/groups/${m.groupId}/merge_requests?author_id=${m.authorId}&labels=bug`],
      ['merge requests scope=all author_id&labels=bug', `/merge_requests?scope=all&author_id=${m.authorId}&labels=bug`],
    ]),
    // fil13 (round 12): filters GitLab offers that Sandlab ignored.
    ['group issues due_date=overdue', `/groups/${m.groupId}/issues?due_date=overdue`],
    ['issues scope=all issue_type=incident', '/issues?scope=all&issue_type=incident'],
    ...more(m, [
      ['group merge requests wip=yes', `/groups/${m.groupId}/merge_requests?wip=yes`],
      ['merge requests scope=all merge_user_id', `/merge_requests?scope=all&merge_user_id=${m.authorId}`],
    ]),
    ['issues scope=all search=crash', '/issues?scope=all&search=crash'],
    ['group issues iids[]=500', `/groups/${m.groupId}/issues?iids[]=500`],
    // Round 11 (db/date-lag.ts): 85-155 ms before.
    ['group issues updated_after&sort=asc', `/groups/${m.groupId}/issues?updated_after=2024-06-01T00:00:00Z&sort=asc`],
    ['group issues order_by=updated_at&created_before', `/groups/${m.groupId}/issues?order_by=updated_at&created_before=2024-06-01T00:00:00Z`],
    ['issues scope=all updated_before', '/issues?scope=all&updated_before=2024-06-01T00:00:00Z'],
    ['issues scope=all iids[]=500', '/issues?scope=all&iids[]=500'],
    ['projects', '/projects'],
    ['projects order_by=id deep page 400', '/projects?order_by=id&page=400'],
    ['projects pagination=keyset order_by=id', '/projects?pagination=keyset&order_by=id&sort=asc'],
    ['groups', '/groups'],
    ['groups page 90', '/groups?page=90'],
    ['users', '/users'],
    ['users pagination=keyset order_by=name', '/users?pagination=keyset&order_by=name&sort=asc'],
    // A term 111 of the 10,000 projects, 5,000 users or 2,000 groups hold (one or none on the small instance).
    ['projects search=project-12', '/projects?search=project-12'],
    ['users search=user12', '/users?search=user12'],
    ['groups search=group-12', '/groups?search=group-12'],
    ['group projects', `/groups/${m.groupId}/projects`],
    ['events (instance)', '/events?scope=all'],
    ...coverageOfInstanceLists(m),
    // The Search API over many projects, as the list endpoints' search above.
    ['group search API scope=issues search=crash', `/groups/${m.groupId}/search?scope=issues&search=crash`],
    ['instance search API scope=issues search=crash', '/search?scope=issues&search=crash'],
    ...more(m, [
      ['group search API scope=merge_requests search=crash', `/groups/${m.groupId}/search?scope=merge_requests&search=crash`],
      ['instance search API scope=merge_requests search=crash', '/search?scope=merge_requests&search=crash'],
    ]),
    ['instance search API scope=snippet_titles search=crash', '/search?scope=snippet_titles&search=crash'],
    ['instance search API scope=users search=user12', '/search?scope=users&search=user12'],
    ['group search API scope=users search=user12', `/groups/${m.groupId}/search?scope=users&search=user12`],
    ['instance search API scope=projects search=project-12', '/search?scope=projects&search=project-12'],
  ];
}

/**
 * The common filters, orders and deep pages of the group and instance lists the lines above leave
 * out (round 9, mem9). The small instance's side uses the same ids (its author is user 3 too).
 */
function coverageOfInstanceLists(m: ScaleManifest): [string, string][] {
  return [
    ['group members page 90', `/groups/${m.groupId}/members?page=90`],
    ['group members query=user12', `/groups/${m.groupId}/members?query=user12`],
    ['group members/all', `/groups/${m.groupId}/members/all`],
    ['group members/all page 90', `/groups/${m.groupId}/members/all?page=90`],
    ['user events', `/users/${m.authorId}/events`],
    ['user events page 500', `/users/${m.authorId}/events?page=500`],
    ['events (own)', '/events'],
    ['events scope=all target_type=issue', '/events?scope=all&target_type=issue'],
    ['events scope=all page 2500', '/events?scope=all&page=2500'],
    ['users active=true', '/users?active=true'],
    ['users username=user12', '/users?username=user12'],
    ['users order_by=username&sort=asc', '/users?order_by=username&sort=asc'],
    ['users order_by=created_at', '/users?order_by=created_at'],
    ['users page 240', '/users?page=240'],
    ['users created_after', '/users?created_after=2020-01-01T00:00:00Z'],
    ['groups all_available=true', '/groups?all_available=true'],
    ['groups order_by=id&sort=desc', '/groups?order_by=id&sort=desc'],
    ['groups top_level_only=true', '/groups?top_level_only=true'],
    ['groups order_by=path page 90', '/groups?order_by=path&page=90'],
    ['projects order_by=name', '/projects?order_by=name'],
    ['projects order_by=last_activity_at&sort=asc', '/projects?order_by=last_activity_at&sort=asc'],
    ['projects visibility=public', '/projects?visibility=public'],
    ['projects membership=true', '/projects?membership=true'],
    ['projects owned=true', '/projects?owned=true'],
    ['projects simple=true', '/projects?simple=true'],
    ['projects archived=false', '/projects?archived=false'],
    ['projects order_by=name page 400', '/projects?order_by=name&page=400'],
    ['snippets/all', '/snippets/all'],
    ['snippets/public', '/snippets/public'],
  ];
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
