/**
 * Pages read for the first time, in turn, without sockets (bench/scale.ts's "issues pages 2481-2500
 * in turn", many more of them): each build's service opens its copy of bench/build-scale.ts's big/
 * data dir in a process of its own, with V8's heap bounded as `serve` bounds it (boundHeap), and
 * reads PATH for pages FROM, FROM+1, ... (pages no earlier request read), each beside the small
 * project's same page. Prints per build the big side's CPU per page twice: the main thread's
 * (median and mean; what bench/scale.ts times, by /proc's schedstat) and the whole process's (the
 * collector's helper threads too: parallel scavenges, concurrent marking and sweeping); the mean
 * carries the garbage collections the median leaves out. Then the small side's median, and what
 * V8's collector did per page (--trace-gc-nvp): bytes promoted to the old generation and copied
 * within the young one by scavenges, the scavenges' and full collections' pauses (wall time) and
 * the helper threads' work. Promoted bytes do not depend on the machine's load: what a fresh page
 * leaves kept past its request (rows, entities, id lists held by the caches between requests)
 * shows there first. `--spread`: the main thread's per-page percentiles too (a scavenge lands on
 * about one page in seven: a median of 20 pages, as bench/scale.ts's, leaves it out).
 *
 * Run: node bench/fresh-pages.cjs [--pages 1500] [--from 3000] [--rounds 2] [--path '/projects/:big/issues?page=:page']
 *        [--spread] [--young-mb N --old-growth P] label=OUT_DIR:DATA_DIR [label=OUT_DIR:DATA_DIR ...]
 * (e.g. `node bench/fresh-pages.cjs base=/work/base/out:/tmp/copy new=out:/tmp/copy`; builds alternate
 * round by round, each in a new process, so every round reads the same pages fresh. Read a range of
 * pages once before timing it: pages never read since the copy was made cost cold disk reads in the
 * rows statement. `--young-mb`/`--old-growth`: boundHeap's budget instead of MEMORY_BUDGET's, to try one.)
 */
const { readFileSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const { parseArgs } = require('node:util');
const { openService } = require('./in-process-service.cjs');

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    pages: { type: 'string', default: '1500' },
    from: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '2' },
    path: { type: 'string', default: '/projects/:big/issues?page=:page' },
    spread: { type: 'boolean', default: false },
    'young-mb': { type: 'string' },
    'old-growth': { type: 'string' },
    child: { type: 'string' },
  },
});

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** In the child: one build, its big/ data dir, the pages in turn; prints one JSON line. */
async function child(spec) {
  const [out, dir] = spec.split(':');
  const budget = opts['young-mb'] || opts['old-growth'] ? { youngGenerationMb: Number(opts['young-mb'] ?? 8), oldGenerationGrowthPercent: Number(opts['old-growth'] ?? 20) } : undefined;
  const { svc, manifest: m, get: read } = await openService(out, dir, budget);
  const get = (project, page) => read(opts.path.replace(':big', project).replace(':page', String(page)));
  const from = Number(opts.from);
  const pages = Number(opts.pages);
  // Warm the JIT on pages before FROM (read once each, so FROM on stays unread).
  for (let i = 1; i <= 100; i++) get(m.bigProjectId, from - i);
  console.log('--measure--');
  const big = [];
  const small = [];
  let bytes = 0;
  // The main thread's CPU (ns, as bench/scale.ts times the server) and the whole process's (us,
  // the collector's helper threads too).
  const stat = `/proc/self/task/${process.pid}/schedstat`;
  const mainNs = () => Number(readFileSync(stat, 'latin1').split(' ')[0]);
  const bigMain = [];
  for (let i = 0; i < pages; i++) {
    let m0 = mainNs();
    let t = process.cpuUsage();
    bytes += String(get(m.bigProjectId, from + i).body).length;
    let d = process.cpuUsage(t);
    bigMain.push((mainNs() - m0) / 1000);
    big.push(d.user + d.system);
    t = process.cpuUsage();
    get(m.smallProjectId, from + i);
    d = process.cpuUsage(t);
    small.push(d.user + d.system);
  }
  console.log('--done--');
  console.log('RESULT ' + JSON.stringify({ big, bigMain, small, bytes: bytes / pages }));
  await svc.close();
}

/** V8's --trace-gc-nvp lines between the markers: totals per page. */
function gcPerPage(stdout, pages) {
  const lines = stdout.slice(stdout.indexOf('--measure--'), stdout.indexOf('--done--')).split('\n');
  const t = { scavenges: 0, promoted: 0, survived: 0, scavengeMs: 0, full: 0, fullMs: 0, backgroundMs: 0 };
  for (const line of lines) {
    const kind = / gc=(\w+) /.exec(line)?.[1];
    if (!kind) continue;
    const field = (name) => Number(new RegExp(` ${name}=([0-9.]+)`).exec(line)?.[1] ?? 0);
    // Helper threads' work (parallel scavenging, concurrent marking and sweeping): CPU the pauses leave out.
    for (const m of line.matchAll(/ background\.[\w.]+=([0-9.]+)/g)) t.backgroundMs += Number(m[1]);
    if (kind === 's') {
      t.scavenges++;
      t.promoted += field('promoted');
      t.survived += field('new_space_survived');
      t.scavengeMs += field('pause');
    } else if (kind === 'mc' || kind === 'mmc') {
      t.full++;
      t.fullMs += field('pause');
    }
  }
  return { ...t, promotedKb: t.promoted / pages / 1024, survivedKb: t.survived / pages / 1024, scavengeUs: (t.scavengeMs * 1000) / pages, fullUs: (t.fullMs * 1000) / pages, backgroundUs: (t.backgroundMs * 1000) / pages };
}

if (opts.child) {
  child(opts.child).catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  const builds = positionals.map((p) => {
    const [label, spec] = [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)];
    return { label, spec };
  });
  if (!builds.length) throw new Error('name at least one build: label=OUT_DIR:DATA_DIR');
  const pages = Number(opts.pages);
  for (let round = 1; round <= Number(opts.rounds); round++) {
    for (const b of builds) {
      const args = ['--trace-gc-nvp', __filename, '--child', b.spec, '--pages', opts.pages, '--from', opts.from, '--path', opts.path];
      for (const o of ['young-mb', 'old-growth']) if (opts[o]) args.push(`--${o}`, opts[o]);
      const run = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
      if (run.status !== 0) throw new Error(`${b.label}: ${run.stderr}`);
      const r = JSON.parse(run.stdout.split('\n').find((l) => l.startsWith('RESULT ')).slice(7));
      const gc = gcPerPage(run.stdout, pages);
      const f = (x) => x.toFixed(0).padStart(4);
      if (opts.spread) {
        const xs = [...r.bigMain].sort((a, b) => a - b);
        const q = (p) => xs[Math.floor((xs.length - 1) * p)].toFixed(0);
        console.log(`  main thread per page, us: p10 ${q(0.1)} p25 ${q(0.25)} p50 ${q(0.5)} p75 ${q(0.75)} p90 ${q(0.9)} p95 ${q(0.95)} p99 ${q(0.99)}`);
      }
      console.log(
        `round ${round} ${b.label.padEnd(8)} big CPU/page median ${f(median(r.big))} us, mean ${f(mean(r.big))} (main thread ${f(median(r.bigMain))}, ${f(mean(r.bigMain))}); small median ${f(median(r.small))}; ` +
          `${(r.bytes / 1024).toFixed(1)} KB/page | gc per page: promoted ${gc.promotedKb.toFixed(1)} KB, survived ${gc.survivedKb.toFixed(1)} KB, ` +
          `${gc.scavenges} scavenges ${f(gc.scavengeUs)} us, ${gc.full} full ${f(gc.fullUs)} us (pauses, wall), helper threads ${f(gc.backgroundUs)} us`,
      );
    }
  }
}
