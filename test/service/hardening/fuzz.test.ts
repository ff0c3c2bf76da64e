import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../../helpers/service';
import { TestClock, type World, buildWorld } from '../../helpers/world';
import { type FuzzRoute, discoverRoutes, fuzzRoutes, sendRaw } from '../../helpers/fuzz';

// Every route of the live app under generated hostile input (fast-check, fixed seed). The long
// run is `npx tsx bench/fuzz.ts`; this bounded one runs in `npm test`.
const CASES_PER_ROUTE = Number(process.env.SANDLAB_FUZZ_CASES ?? 4);
/** Each declared parameter alone set to each of these. */
const SWEEP = [null, { nested: { deeper: [1] } }];
/** Hostile header sets per route, taking turns: every set meets many routes in each run. */
const HEADER_SETS_PER_ROUTE = Number(process.env.SANDLAB_FUZZ_HEADER_SETS ?? 2);

let s: TestService;
let world: World;
let routes: FuzzRoute[];
const clock = new TestClock();

beforeAll(async () => {
  // Outbound calls (imports, migrations) never leave the machine; jobs stay queued, so every
  // write the fingerprint sees belongs to the request that made it.
  s = await TestService.start({ clock: clock.now, limits: { jobConcurrency: 0 }, fetch: async () => new Response('{"message":"offline"}', { status: 404 }) });
  world = await buildWorld(s, clock);
  routes = await discoverRoutes(world, world.headers.admin);
}, 180_000);
afterAll(async () => {
  await s.stop();
});

describe('every route under hostile input', () => {
  it('answers every generated request without a 5xx, a dropped connection, a non-JSON 4xx or a write on refusal', async () => {
    const stats = await fuzzRoutes(world, routes, { casesPerRoute: CASES_PER_ROUTE, seed: 18, headers: world.headers.admin, sweep: SWEEP, headerSetsPerRoute: HEADER_SETS_PER_ROUTE });
    const statuses = [...stats.byStatus.entries()].sort(([a], [b]) => a - b).map(([k, v]) => `${k}:${v}`).join(' ');
    console.log(`fuzz: ${stats.requests} requests over ${stats.routes} routes (${routes.filter((r) => r.params.size).length} with declared parameters); statuses ${statuses}`);
    const report = stats.failures.map((f) => `${f.route} [${f.shape}] ${f.path}\n    ${f.problem}`).join('\n');
    expect(stats.routes).toBe(routes.length);
    expect(report).toBe('');
  }, 600_000);

  it('leaves the database intact', () => {
    expect(s.service.context.db.prepare('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }]);
    expect(s.service.context.db.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
  });

  it('still answers normally afterwards', async () => {
    const res = await sendRaw(s.url, { method: 'GET', path: '/api/v4/version', headers: world.headers.admin, shape: 'after' });
    expect(res.status).toBe(200);
  });
});
