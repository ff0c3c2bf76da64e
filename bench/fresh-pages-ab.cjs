/**
 * Two builds side by side in ONE process, on fresh pages read in turn (bench/scale.ts's "issues
 * pages 2481-2500 in turn", many more of them): each build's service opens the same copy of
 * bench/build-scale.ts's big/ data dir (two read connections), and each page FROM, FROM+1, ... is
 * read by both, one right after the other, the first reader alternating page by page (the first
 * pays the OS cache's misses). Both builds then run in the same milliseconds of the machine's
 * load, and each page's two reads are paired: at load 10-15 two builds timed in separate processes
 * (bench/fresh-pages.cjs, bench/scale.ts --cli) differ by 10-20% between two runs of the same
 * build, where a change to a fresh page is worth 5-30 us of ~450. The median of the pages' B - A
 * is printed. Each page's two bodies are compared byte for byte.
 *
 * Which build is loaded first can favour one (seen between two builds of the same commit): each
 * round runs twice, A's service opened first then B's, in two processes, and prints B - A per
 * order and their mean, the difference with that bias cancelled.
 * CPU per page is process.cpuUsage (all threads: with --single-threaded, V8 runs its collector and
 * compilers on the main thread, the whole process is the main thread, and the mean carries the
 * collections as well).
 *
 * Run: node [--single-threaded] bench/fresh-pages-ab.cjs [--pages 2000] [--from 3000] [--rounds 1]
 *        [--path '/projects/:big/issues?page=:page'] A_OUT_DIR B_OUT_DIR DATA_DIR
 * (e.g. `node bench/fresh-pages-ab.cjs /work/base/out out /tmp/copy`; two different directories:
 * one directory twice would load one module, shared. Read a range of pages once before timing it,
 * and give each round its own FROM: the pages stay fresh for both builds within a process only.)
 */
const { resolve } = require('node:path');
const { spawnSync } = require('node:child_process');
const { parseArgs } = require('node:util');
const { openService } = require('./in-process-service.cjs');

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    pages: { type: 'string', default: '2000' },
    from: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '1' },
    path: { type: 'string', default: '/projects/:big/issues?page=:page' },
    child: { type: 'boolean', default: false },
  },
});

const quantile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)];
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** In the child: both builds' services in this process, the pages read by each in turn; prints one JSON line. */
async function child(first, second, dir) {
  const open = async (out) => ({ ...(await openService(out, dir)), cpu: [] });
  const builds = [await open(first), await open(second)];
  const path = (page) => opts.path.replace(':big', builds[0].manifest.bigProjectId).replace(':page', String(page));
  const get = (b, page) => b.get(path(page)).body;
  const timed = (b, page) => {
    const t = process.cpuUsage();
    const body = get(b, page);
    const d = process.cpuUsage(t);
    b.cpu.push(d.user + d.system);
    return body;
  };
  const bytes = (x) => (Buffer.isBuffer(x) ? x : Buffer.from(String(x)));
  const same = (x, y) => bytes(x).equals(bytes(y));
  const from = Number(opts.from);
  let differing = 0;
  // Warm the JIT on pages before FROM (read once each, so FROM on stays unread).
  for (let i = 1; i <= 200; i++) if (!same(get(builds[0], from - i), get(builds[1], from - i))) differing++;
  for (let i = 0; i < Number(opts.pages); i++) {
    const [x, y] = i & 1 ? [builds[1], builds[0]] : builds;
    if (!same(timed(x, from + i), timed(y, from + i))) differing++;
  }
  for (const b of builds) await b.svc.close();
  console.log('RESULT ' + JSON.stringify({ first: builds[0].cpu, second: builds[1].cpu, differing }));
}

if (opts.child) {
  child(...positionals).catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  const [a, b, dir] = positionals;
  if (!dir) throw new Error('name two builds and a data dir: A_OUT_DIR B_OUT_DIR DATA_DIR');
  if (resolve(a) === resolve(b)) throw new Error('two different directories: one directory twice loads one module');
  const f = (x) => x.toFixed(0).padStart(4);
  for (let round = 1; round <= Number(opts.rounds); round++) {
    const from = Number(opts.from) + (round - 1) * 2 * Number(opts.pages);
    const diffs = [];
    for (const [order, first, second] of [['A first', a, b], ['B first', b, a]]) {
      const pageFrom = order === 'A first' ? from : from + Number(opts.pages);
      const args = [...process.execArgv, __filename, '--child', '--pages', opts.pages, '--from', String(pageFrom), '--path', opts.path, first, second, dir];
      const run = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
      if (run.status !== 0) throw new Error(`${order}: ${run.stderr}`);
      const r = JSON.parse(run.stdout.split('\n').find((l) => l.startsWith('RESULT ')).slice(7));
      const [xa, xb] = order === 'A first' ? [r.first, r.second] : [r.second, r.first];
      // Paired: each page's B less the same page's A, read within the same millisecond or so.
      diffs.push(quantile(xb.map((x, i) => x - xa[i]), 0.5));
      console.log(
        `round ${round} ${order}: A median ${f(quantile(xa, 0.5))} us (p25 ${f(quantile(xa, 0.25))}, mean ${f(mean(xa))}) | ` +
          `B median ${f(quantile(xb, 0.5))} us (p25 ${f(quantile(xb, 0.25))}, mean ${f(mean(xb))}) | B - A per page, median ${f(diffs[diffs.length - 1])} us | bodies differing ${r.differing}`,
      );
    }
    console.log(`round ${round}: B - A per page, median, both orders' mean ${f(mean(diffs))} us`);
  }
}
