/**
 * The long fuzz run: every route of a fresh Sandlab under `--cases` generated hostile requests
 * each (default 200), a sweep of every declared parameter through a list of bad values and every
 * hostile header set, printing what it tried and anything that broke an invariant (5xx, dropped connection, a 4xx
 * without a JSON message/error, a write on refusal, an unclean integrity check).
 *
 *   npx tsx bench/fuzz.ts [--cases 200] [--seed 1] [--only <substring of a route>]
 */
import { TestService } from '../test/helpers/service';
import { TestClock, buildWorld } from '../test/helpers/world';
import { HOSTILE_HEADER_SETS, discoverRoutes, fuzzRoutes } from '../test/helpers/fuzz';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const cases = Number(arg('cases', '200'));
const seed = Number(arg('seed', String(Date.now() % 100_000)));
const only = arg('only', '');
const SWEEP = [null, true, -1, 2 ** 63, '', ' ', 'x'.repeat(100_000), '\u0000', [], [null], {}, { a: { b: { c: [] } } }];

async function main(): Promise<void> {
  const clock = new TestClock();
  const s = await TestService.start({ clock: clock.now, limits: { jobConcurrency: 0 }, fetch: async () => new Response('{"message":"offline"}', { status: 404 }) });
  const started = Date.now();
  try {
    const world = await buildWorld(s, clock);
    const routes = (await discoverRoutes(world, world.headers.admin)).filter((r) => r.key.includes(only));
    console.log(`seed ${seed}; ${routes.length} routes, ${routes.reduce((n, r) => n + r.params.size, 0)} declared parameters; ${cases} random cases per route + sweep of ${SWEEP.length} values per parameter`);
    const stats = await fuzzRoutes(world, routes, {
      casesPerRoute: cases,
      seed,
      headers: world.headers.admin,
      sweep: SWEEP,
      headerSetsPerRoute: HOSTILE_HEADER_SETS.length,
      onRoute: (route, st) => {
        if (st.routes % 50 === 0) console.log(`  ${st.routes}/${routes.length} routes, ${st.requests} requests, ${st.failures.length} failures (last: ${route.key})`);
      },
    });
    const integrity = s.service.context.db.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[];
    const seconds = (Date.now() - started) / 1000;
    console.log(`\n${stats.requests} requests over ${stats.routes} routes in ${seconds.toFixed(0)} s (${(stats.requests / seconds).toFixed(0)}/s)`);
    console.log(`statuses: ${[...stats.byStatus.entries()].sort(([a], [b]) => a - b).map(([k, v]) => `${k}:${v}`).join(' ')}`);
    console.log(`integrity_check: ${integrity.map((r) => r.integrity_check).join('; ')}`);
    console.log(`failures: ${stats.failures.length}`);
    for (const f of stats.failures.slice(0, 200)) console.log(`  ${f.route} [${f.shape}] ${f.path}\n      ${f.problem}`);
    process.exitCode = stats.failures.length || integrity[0]?.integrity_check !== 'ok' ? 1 : 0;
  } finally {
    await s.stop();
  }
}

void main();
