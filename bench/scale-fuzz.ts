/**
 * Lists at scale with filters combined at random: bench/scale.ts times the shapes someone chose;
 * this draws issue and merge request lists (project, group, instance) with 1-6 of their filters and
 * orders together from a seeded generator, and times each on the big project against the same
 * request on the small project (the small instance for group and instance lists), as a client
 * meets a combination: the first time (nothing remembered for it), then the median of `--runs`
 * after a write each. Prints the counts over 2x and over 10 ms, any 5xx, and the slowest requests.
 *
 * Run: npx tsx bench/scale-fuzz.ts --dir <scale data dir> [--count 200] [--seed 1] [--runs 3] [--top 25] [--cli old/out/main/cli.js]
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readScaleDirs } from './build-scale';
import { ROOT, ensureBuilt, machineLine, mainThreadCpuMs, median, spawnSandlab, stop } from './lib';

const { values: opts } = parseArgs({
  options: {
    dir: { type: 'string', default: join(ROOT, 'bench/.data') },
    count: { type: 'string', default: '200' },
    seed: { type: 'string', default: '1' },
    runs: { type: 'string', default: '3' },
    top: { type: 'string', default: '25' },
    cli: { type: 'string' },
  },
});

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

interface Sample {
  cpu: number;
  status: number;
  rows: number;
}

async function get(url: string, token: string, pid: number): Promise<Sample> {
  const c0 = mainThreadCpuMs(pid);
  const res = await fetch(url, { headers: { 'private-token': token } });
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
  console.log(machineLine());
  const g = generator(Number(opts.seed));
  const lines: { path: string; firstBig: number; big: number; small: number; status: number; rows: number; smallRows: number }[] = [];
  try {
    for (let i = 0; i < Number(opts.count); i++) {
      const req = draw(g);
      const b = await time(`${bigServer.url}/api/v4${req.path(req.scope === 'project' ? big.bigProjectId : big.groupId)}`, big.token, bigServer.child.pid!, () =>
        touch(bigServer.url, big.token, big.smallProjectId),
      );
      const s =
        req.scope === 'project'
          ? await time(`${bigServer.url}/api/v4${req.path(big.smallProjectId)}`, big.token, bigServer.child.pid!, () => touch(bigServer.url, big.token, big.smallProjectId))
          : await time(`${smallServer.url}/api/v4${req.path(small.groupId)}`, small.token, smallServer.child.pid!, () => touch(smallServer.url, small.token, small.smallProjectId));
      lines.push({ path: req.path(req.scope === 'project' ? big.bigProjectId : big.groupId), firstBig: b.first.cpu, big: b.cpu, small: s.cpu, status: b.first.status, rows: b.first.rows, smallRows: s.first.rows });
    }
  } finally {
    await stop(bigServer.child);
    await stop(smallServer.child);
  }
  const n = lines.length;
  const count = (f: (l: (typeof lines)[number]) => boolean) => lines.filter(f).length;
  console.log(
    `${n} requests (seed ${opts.seed}), server CPU ms: first time on big median ${median(lines.map((l) => l.firstBig)).toFixed(2)}, ` +
      `over 10 ms ${count((l) => l.firstBig > 10)}, over 100 ms ${count((l) => l.firstBig > 100)}; ` +
      `after a write (median of ${runs}) over 10 ms ${count((l) => l.big > 10)}, within 2x of small ${count((l) => l.big <= 2 * l.small)}; 5xx ${count((l) => l.status >= 500)}`,
  );
  console.log(`${'first big'.padStart(10)} ${'big'.padStart(8)} ${'small'.padStart(7)} ${'ratio'.padStart(6)}  rows (small)  request`);
  for (const l of [...lines].sort((a, b) => b.firstBig - a.firstBig).slice(0, Number(opts.top))) {
    console.log(
      `${l.firstBig.toFixed(2).padStart(10)} ${l.big.toFixed(2).padStart(8)} ${l.small.toFixed(2).padStart(7)} ${(l.big / l.small).toFixed(1).padStart(5)}x  ${String(l.rows).padStart(4)} (${l.smallRows})  ${l.status} ${l.path}`,
    );
  }
  for (const l of lines.filter((x) => x.status >= 500)) console.log(`5xx ${l.path}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
