import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { preparedBy, queryPlan } from '../helpers/lists';

/**
 * GET /projects?search= matches name, path and description as a substring, case aside (LIKE);
 * GET /users?search= username and name (or the whole e-mail), GET /groups?search= name and path.
 * A term few projects, users or groups hold is looked up in a trigram index (core/032, core/033,
 * core/051) and checked with the same LIKE: the answer is LIKE's whatever the index holds, and the
 * index follows every write.
 */
let s: TestService;
const ids = new Map<string, number>();

beforeAll(async () => {
  s = await TestService.start();
  for (const [name, description] of [
    ['Alpha Kestrel', 'Falcons and hawks'],
    ['beta-station', 'A weather STATION on the ridge'],
    ['Gamma', 'Holds 100% of the "quoted" text_and_more'],
    ['delta', null],
  ] as const) {
    ids.set(name, (await s.createProject({ name, description: description ?? undefined, visibility: 'public' })).id);
  }
});
afterAll(async () => s.stop());

const found = async (term: string, extra = ''): Promise<number[]> => {
  const res = await s.get(`/projects?search=${encodeURIComponent(term)}&order_by=id&sort=asc${extra}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('x-total')).toBe(String(res.body.length));
  return res.body.map((p: any) => p.id);
};

describe('project search', () => {
  it('finds a term in the name, the path or the description, whatever its case', async () => {
    expect(await found('kestrel')).toEqual([ids.get('Alpha Kestrel')]);
    expect(await found('ALPHA-KES')).toEqual([ids.get('Alpha Kestrel')]);
    expect(await found('station')).toEqual([ids.get('beta-station')]);
    expect(await found('hawks')).toEqual([ids.get('Alpha Kestrel')]);
    expect(await found('ridge')).toEqual([ids.get('beta-station')]);
    expect(await found('nothing like it')).toEqual([]);
  });

  it('takes quotes, % and _ literally', async () => {
    expect(await found('"quoted"')).toEqual([ids.get('Gamma')]);
    expect(await found('100%')).toEqual([ids.get('Gamma')]);
    expect(await found('text_and')).toEqual([ids.get('Gamma')]);
    expect(await found('t_xt')).toEqual([]);
  });

  it('follows renames, new descriptions, new projects and deletions', async () => {
    const delta = ids.get('delta')!;
    expect(await found('osprey')).toEqual([]);
    expect((await s.put(`/projects/${delta}`, { name: 'Osprey', description: 'Fish eagle' })).status).toBe(200);
    expect(await found('osprey')).toEqual([delta]);
    expect(await found('fish eag')).toEqual([delta]);
    expect((await s.put(`/projects/${delta}`, { path: 'the-osprey-nest' })).status).toBe(200);
    expect(await found('osprey-nest')).toEqual([delta]);
    expect((await s.put(`/projects/${delta}`, { description: 'Sea bird' })).status).toBe(200);
    expect(await found('fish eag')).toEqual([]);
    const kite = (await s.createProject({ name: 'Kite', description: 'another osprey cousin', visibility: 'public' })).id;
    expect(await found('osprey')).toEqual([delta, kite]);
    expect((await s.del(`/projects/${kite}`)).status).toBe(202);
    s.service.context.db.prepare('DELETE FROM projects WHERE id = ?').run(kite);
    expect(await found('osprey')).toEqual([delta]);
  });

  it('reads the few matching projects through the index', async () => {
    // A term not asked before (a term's candidates are kept, joined by the projects written since).
    const seen = await preparedBy(s, async () => {
      expect(await found('falcons')).toEqual([ids.get('Alpha Kestrel')]);
    });
    expect(seen.some((q) => /FROM projects_search WHERE projects_search MATCH \?/.test(q))).toBe(true);
    // Every read of projects is of the candidates' ids (the page's rows by id: SqlList.byId, kept until written).
    expect(seen.filter((q) => /\bFROM projects\b/.test(q) && !/\bid IN \(SELECT value FROM json_each\(\?\)\)/.test(q))).toEqual([]);
    expect(seen.some((q) => /^SELECT p\.id AS id FROM projects p WHERE .*p\.id IN \(SELECT value FROM json_each\(\?\)\)/s.test(q))).toBe(true);
  });

  it('with search_namespaces matches the namespace path as before', async () => {
    const group = await s.createGroup({ path: 'raptors-group', visibility: 'public' });
    const inGroup = (await s.createProject({ name: 'plain', namespace_id: group.id, visibility: 'public' })).id;
    expect(await found('raptors-group', '&search_namespaces=true')).toEqual([inGroup]);
    expect(await found('raptors-group')).toEqual([]);
  });
});

describe('user search (an administrator looking)', () => {
  it('finds a term in the username or the name, and a whole e-mail, and follows renames', async () => {
    const a = await s.createUser({ username: 'merlin_falco', name: 'Peregrine Watcher' });
    const b = await s.createUser({ username: 'harrier', name: 'Marsh Hawk', email: 'marsh@example.org' });
    const users = async (term: string): Promise<number[]> => {
      const res = await s.get(`/users?search=${encodeURIComponent(term)}&order_by=id&sort=asc`);
      expect(res.status).toBe(200);
      return res.body.map((u: any) => u.id);
    };
    expect(await users('MERLIN')).toEqual([a.user.id]);
    expect(await users('grine wat')).toEqual([a.user.id]);
    expect(await users('marsh@example.org')).toEqual([b.user.id]);
    expect(await users('MARSH@EXAMPLE.ORG')).toEqual([b.user.id]);
    expect(await users('example.org')).toEqual([]);
    expect(await users('n_fa')).toEqual([a.user.id]);
    expect(await users('nxfa')).toEqual([]);
    expect((await s.put(`/users/${b.user.id}`, { username: 'northern_harrier', name: 'Hen Harrier' })).status).toBe(200);
    expect(await users('marsh hawk')).toEqual([]);
    expect(await users('northern_h')).toEqual([b.user.id]);
    expect(await users('hen harr')).toEqual([b.user.id]);
  });
});

describe('group search', () => {
  it('finds a term in the name or the path, and follows renames', async () => {
    const g = await s.createGroup({ name: 'Owl Society', path: 'owl-society', visibility: 'public' });
    const groups = async (term: string): Promise<number[]> => {
      const res = await s.get(`/groups?search=${encodeURIComponent(term)}`);
      expect(res.status).toBe(200);
      return res.body.map((x: any) => x.id);
    };
    expect(await groups('OWL SOC')).toEqual([g.id]);
    expect(await groups('owl-soc')).toEqual([g.id]);
    expect((await s.put(`/groups/${g.id}`, { name: 'Barn Owls', path: 'barn-owls' })).status).toBe(200);
    expect(await groups('owl soc')).toEqual([]);
    expect(await groups('barn-ow')).toEqual([g.id]);
    expect(await groups('barn ow')).toEqual([g.id]);
  });

  it('takes % and _ literally, folds case as LIKE does (ASCII only), and follows subgroups and deletions', async () => {
    const groups = async (term: string): Promise<number[]> => {
      const res = await s.get(`/groups?search=${encodeURIComponent(term)}&order_by=id`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-total')).toBe(String(res.body.length));
      return res.body.map((x: any) => x.id);
    };
    const pct = await s.createGroup({ name: 'Rails 100% club', path: 'rails_club', visibility: 'public' });
    const eclair = await s.createGroup({ name: 'Éclair Watchers', path: 'eclair-watchers', visibility: 'public' });
    const sub = await s.createGroup({ name: 'Little Rails', path: 'little-rails', parent_id: pct.id, visibility: 'public' });
    expect(await groups('100%')).toEqual([pct.id]);
    expect(await groups('s_cl')).toEqual([pct.id]);
    expect(await groups('sxcl')).toEqual([]);
    expect(await groups('RAILS')).toEqual([pct.id, sub.id]);
    expect(await groups('Éclair')).toEqual([eclair.id]);
    // SQLite's LIKE folds ASCII only: the index's folded candidate is checked and dropped, as LIKE alone answers.
    expect(await groups('éclair')).toEqual([]);
    expect(await groups('clair watch')).toEqual([eclair.id]);
    // A user's personal namespace is not a group.
    await s.createUser({ username: 'railsfan' });
    expect(await groups('railsf')).toEqual([]);
    expect((await s.del(`/groups/${sub.id}`)).status).toBe(202);
    s.service.context.db.prepare('DELETE FROM namespaces WHERE id = ?').run(sub.id);
    expect(await groups('rails')).toEqual([pct.id]);
  });

  it('pages a term many groups hold as a fresh LIKE query does, and reads them through the index', async () => {
    for (let i = 0; i < 11; i++) await s.createGroup({ name: `Stork ${(i * 4) % 11}`, path: `stork-nest-${i}`, visibility: i % 2 ? 'public' : 'private' });
    const db = s.service.context.db;
    for (const [query, order, token] of [
      ['search=stork', 'name ASC, id ASC', undefined],
      ['search=STORK-N&order_by=path&sort=desc', 'path DESC, id DESC', undefined],
      ['search=stork&order_by=id&sort=desc', 'id DESC', undefined],
      ['search=stork', 'name ASC, id ASC', null],
    ] as const) {
      const like = query.includes('STORK-N') ? '%stork-n%' : '%stork%';
      const all = (
        db
          .prepare(`SELECT id FROM namespaces WHERE kind = 'group' AND (name LIKE ? OR path LIKE ?)${token === null ? " AND visibility = 'public'" : ''} ORDER BY ${order}`)
          .all(like, like) as { id: number }[]
      ).map((r) => r.id);
      expect(all.length).toBeGreaterThan(4);
      const pages = Math.ceil(all.length / 4);
      for (let page = 1; page <= pages + 1; page++) {
        const res = await s.get(`/groups?${query}&per_page=4&page=${page}`, { token });
        expect(res.status).toBe(200);
        expect(res.body.map((x: any) => x.id)).toEqual(all.slice((page - 1) * 4, page * 4));
        expect(res.headers.get('x-total')).toBe(String(all.length));
        expect(res.headers.get('x-total-pages')).toBe(String(pages));
        expect(res.headers.get('x-next-page')).toBe(page < pages ? String(page + 1) : '');
        expect(res.headers.get('link')).toMatch(new RegExp(`[?&]page=${pages}&per_page=4[^>]*>; rel="last"`));
      }
    }
    // A group created first: the term's candidates, kept while core/189's version of the index stays, are read again.
    await s.createGroup({ name: 'Heron', path: 'heron' });
    const seen = await preparedBy(s, async () => {
      expect((await s.get('/groups?search=stork')).status).toBe(200);
    });
    expect(seen.some((q) => /FROM groups_search WHERE groups_search MATCH \?/.test(q))).toBe(true);
    expect(seen.some((q) => /^SELECT g\.\* FROM namespaces g WHERE g\.id IN \(SELECT value FROM json_each\(\?\)\)/.test(q))).toBe(true);
    // The candidates' ids are read by id, not by walking every group in name order to meet them.
    const idRead = seen.find((q) => /^SELECT g\.id AS id FROM namespaces g WHERE/.test(q))!;
    const plan = queryPlan(db, idRead, '[1,2]', '%stork%', '%stork%');
    expect(plan).toContain('INTEGER PRIMARY KEY');
    expect(plan).not.toContain('namespaces_kind_name');
  });

  it('reads the few matching users through the index', async () => {
    const seen = await preparedBy(s, async () => {
      expect((await s.get('/users?search=harrier')).status).toBe(200);
    });
    expect(seen.some((q) => /FROM users_search WHERE users_search MATCH \?/.test(q))).toBe(true);
    expect(seen.some((q) => /FROM users WHERE .*\(id IN \(SELECT value FROM json_each\(\?\)\) OR lower\(email\) = lower\(\?\)\)/s.test(q))).toBe(true);
  });
});
