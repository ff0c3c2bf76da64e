import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../../helpers/service';
import { IDENTITIES, type Identity, ROLES, ROLE_LEVEL, TestClock, type World, buildWorld, inWalkOrder, pathFor, routeKey } from '../../helpers/world';
import { rolledBack } from '../../helpers/fuzz';
import { ROLE_MATRIX, type Row } from './role-matrix';

// Walks every route of the live app for every kind of caller and checks the status against
// ROLE_MATRIX (role-matrix.ts). Each request runs in a transaction rolled back afterwards, so a
// DELETE as Owner leaves the world intact for the next caller.

let s: TestService;
let world: World;
const clock = new TestClock();

beforeAll(async () => {
  s = await TestService.start({ clock: clock.now, limits: { jobConcurrency: 0 }, fetch: async () => new Response('{"message":"offline"}', { status: 404 }) });
  world = await buildWorld(s, clock);
}, 180_000);
afterAll(async () => {
  await s.stop();
});

/** What a caller should get: a status, or 'allowed' (past the guard: anything but 401/403/the container's 404). */
type Expected = 401 | 403 | 404 | 'allowed';

function expected(row: Row, who: Identity, method: string, auth: string): Expected {
  if (row.kind === 'ownKey') return 401;
  if (who === 'expiredToken') return 401;
  // GitLab's API guard: a blocked account's token is refused before any route runs.
  if (who === 'blocked') return 403;
  // A job token is read only where GitLab allows one; elsewhere the request is anonymous.
  if (who === 'anonymous' || (who === 'jobToken' && !row.jobToken)) {
    if (auth === 'required') return 401;
    if (row.kind === 'anyone') return 'allowed';
    return row.kind === 'member' ? (row.nonMember ?? 404) : 401;
  }
  if (who === 'readApiToken' && method !== 'GET' && row.readApi !== 'allowed') return 403;
  if (row.kind === 'outsiders') return who === 'nonMember' ? 404 : 403;
  if (who === 'admin') return 'allowed';
  // The read_api token and the job token belong to the Maintainer.
  const as = who === 'readApiToken' || who === 'jobToken' ? 'maintainer' : who;
  if (row.kind === 'anyone' || row.kind === 'signedIn') return 'allowed';
  if (row.kind === 'admin') return 403;
  if (as === 'nonMember') return row.nonMember ?? 404;
  if (row.min === 'author') return row.belowMin ?? 403;
  return ROLE_LEVEL[as] >= ROLE_LEVEL[row.min] ? 'allowed' : (row.belowMin ?? 403);
}

/** `$<user>` placeholders replaced by the world's user ids. */
/** `$group`: the world's private group's id; `$<name>`: a user's id. */
const withIds = (v: unknown): unknown =>
  typeof v !== 'string' || !v.startsWith('$') ? v : v === '$group' ? world.group.id : world.userIds[v.slice(1) as keyof World['userIds']];

/** A row's body with its placeholders filled. */
function bodyFor(row: Row | undefined): string | undefined {
  if (!row?.body) return undefined;
  return JSON.stringify(row.body, (_k, v) => withIds(v));
}

/** A row's own path parameters, placeholders filled. */
function pathOverride(row: Row | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(row?.path ?? {}).map(([k, v]) => [k, String(withIds(v))]));
}

const CONTAINER_NOT_FOUND = /^404 (Project|Group) Not Found$/;

function outcome(status: number, body: string): Expected | number {
  if (status === 401 || status === 403) return status;
  if (status === 404) {
    try {
      if (CONTAINER_NOT_FOUND.test(JSON.parse(body).message)) return 404;
    } catch {
      /* not JSON: a record's 404 */
    }
  }
  return 'allowed';
}

/** The row a route's observed answers suggest, for the failure message of a route without one. */
function suggestRow(seen: Partial<Record<Identity, Expected | number>>, isProject: boolean, isGroup: boolean): string {
  if (seen.anonymous === 'allowed') return 'anyone';
  if (seen.nonMember === 'allowed' && seen.guest === 'allowed') return 'signedIn';
  const lowest = ROLES.find((r) => seen[r] === 'allowed');
  if (!lowest && seen.admin === 'allowed') return 'admin';
  if (!lowest) return 'ownKey';
  return `${isProject ? 'project' : isGroup ? 'group' : 'project'}('${lowest}')`;
}

describe('role matrix', () => {
  it('has a row for every route, and every caller gets the status its row says', async () => {
    const missing: string[] = [];
    const wrong: string[] = [];
    let checks = 0;
    const routes = inWalkOrder(s.service.routes.filter((r) => r.method !== 'HEAD'));
    const seenKeys = new Set<string>();
    for (const route of routes) {
      const key = routeKey(route.method, route.url);
      if (seenKeys.has(key)) continue; // receivers: one depth stands for all
      seenKeys.add(key);
      const row = ROLE_MATRIX[key];
      const seen: Partial<Record<Identity, Expected | number>> = {};
      for (const who of IDENTITIES) {
        const res = await rolledBack(world, () =>
          s.service.inject({
            method: route.method as 'GET',
            url: pathFor(world, route.url, pathOverride(row)) + (row?.query ? `?${row.query}` : ''),
            headers: { ...world.headers[who], ...(row?.body ? { 'content-type': 'application/json' } : {}) },
            payload: bodyFor(row),
          }),
        );
        const got = outcome(res.statusCode, res.body);
        seen[who] = got;
        if (!row) continue;
        checks++;
        const want = expected(row, who, route.method, route.auth);
        if (got !== want) wrong.push(`${key} as ${who}: expected ${want}, got ${res.statusCode} ${res.body.slice(0, 120)}`);
      }
      if (!row) missing.push(`  '${key}': ${suggestRow(seen, route.url.includes('/projects/:id'), route.url.includes('/groups/:id'))},`);
    }
    console.log(`role matrix: ${seenKeys.size} endpoints x ${IDENTITIES.length} callers = ${checks} checks`);
    const stale = Object.keys(ROLE_MATRIX).filter((k) => !seenKeys.has(k));
    expect(
      missing,
      `Routes without a row in test/service/hardening/role-matrix.ts (ROLE_MATRIX). Add each with the minimum role GitLab requires (suggested from what the route answers now — check it against GitLab's lib/api and the seed's Authentication section):\n${missing.join('\n')}\n`,
    ).toEqual([]);
    expect(stale, 'Rows for routes that no longer exist: remove them from role-matrix.ts').toEqual([]);
    expect(wrong.join('\n')).toBe('');
  }, 900_000);
});
