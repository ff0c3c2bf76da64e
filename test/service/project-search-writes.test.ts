import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectEveryPage, preparedBy } from '../helpers/lists';
import { TestService } from '../helpers/service';

/**
 * /projects?search= of a rare term keeps the trigram index's candidates across writes to projects
 * by their write log (core/146; db/trigram.ts loggedCandidates): the projects written since join
 * them and the LIKE decides, so every page and header stays the records' own while projects are
 * renamed into and out of the term, described with it, created and deleted; the index is not
 * asked again. A page's rows come by id (SqlList.byId) as the list's own pages do.
 */
let s: TestService;
const ids: number[] = [];

interface ProjectJson {
  id: number;
  name: string;
  path: string;
  description: string | null;
  created_at: string;
}

beforeAll(async () => {
  s = await TestService.start();
  for (let i = 0; i < 9; i++) {
    const name = i % 3 === 0 ? `plain-${i}` : `findme-${i}`;
    ids.push((await s.createProject({ name, path: name, description: i === 3 ? 'has FindMe inside' : null })).id);
  }
});
afterAll(() => s.stop());

/** The projects whose name, path or description holds the term (any case), newest first. */
async function wanted(term: string): Promise<number[]> {
  const all = (await s.get('/projects', { query: { per_page: '100' } })).body as ProjectJson[];
  const holds = (v: string | null) => (v ?? '').toLowerCase().includes(term);
  return all
    .filter((p) => holds(p.name) || holds(p.path) || holds(p.description))
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id - a.id)
    .map((p) => p.id);
}

/** Every page of the search (per_page=2) against the records, and whether the index was asked. */
async function checkPages(): Promise<boolean> {
  const want = await wanted('findme');
  expect(want.length).toBeGreaterThan(2);
  const prepared = await preparedBy(s, () => expectEveryPage(s, '/projects', { search: 'findme' }, want, 2));
  return prepared.some((sql) => sql.includes('projects_search MATCH'));
}

it('answers every page of a rare term as the records do across writes to projects, without asking the index again', async () => {
  expect(await checkPages()).toBe(true);
  // Renamed out of the term, into it, described with it, created, deleted.
  expect((await s.put(`/projects/${ids[1]}`, { name: 'gone-1', path: 'gone-1' })).status).toBe(200);
  expect(await checkPages()).toBe(false);
  expect((await s.put(`/projects/${ids[0]}`, { name: 'findme-now', path: 'findme-now' })).status).toBe(200);
  expect((await s.put(`/projects/${ids[6]}`, { description: 'a FINDME description' })).status).toBe(200);
  expect(await checkPages()).toBe(false);
  const created = (await s.createProject({ name: 'late-findme', path: 'late-findme' })).id;
  expect((await s.del(`/projects/${ids[2]}`)).status).toBe(202);
  expect(await checkPages()).toBe(false);
  const after = await wanted('findme');
  expect(after).toContain(created);
  expect(after).toContain(ids[0]);
  expect(after).toContain(ids[6]);
  expect(after).not.toContain(ids[1]);
  expect(after).not.toContain(ids[2]);
});
