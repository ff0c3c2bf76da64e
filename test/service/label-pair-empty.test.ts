import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, preparedBy } from '../helpers/lists';

/**
 * A label set of three titles or more, two of which no record of the scope (in the state) carries
 * together, is empty (filter-plan.ts, from core/092's pair counters; a pair alone is counted from them): answered without reading the list, as the
 * records say, at a project, a group and the instance, in any spelling; and a write that puts the
 * pair on a record shows it at once. At scale three titles no merge request carries together
 * walked a title's rows to the end: 0.3-7 s.
 */
let s: TestService;
let group: number;
let project: number;
/** The issues: id, iid, their titles (lower case) and state. */
const issues: { id: number; iid: number; labels: string[]; state: string }[] = [];

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup()).id;
  project = (await s.createProject({ namespace_id: group })).id;
  // `red` with `blue` or with `green` (or `blue` and `yellow`), never `blue` with `green`; `blue` and `green` alone too; a fifth closed.
  const sets = [['red', 'blue'], ['red', 'green'], ['blue'], ['green'], ['red', 'blue', 'Red'], ['yellow', 'blue', 'red']];
  for (let i = 0; i < 36; i++) {
    const labels = sets[i % sets.length];
    const body = ok(await s.post(`/projects/${project}/issues`, { title: `Issue ${i}`, labels: labels.join(',') }));
    const state = i % 5 === 0 ? 'closed' : 'opened';
    if (state === 'closed') ok(await s.put(`/projects/${project}/issues/${body.iid}`, { state_event: 'close' }));
    issues.push({ id: body.id, iid: body.iid, labels: labels.map((l) => l.toLowerCase()), state });
  }
}, 60_000);
afterAll(async () => s?.stop());

/** The issues carrying every title (NOCASE) in the state, newest first. */
const expected = (titles: string[], state?: string): number[] =>
  issues
    .filter((i) => titles.every((t) => i.labels.includes(t.toLowerCase())) && (!state || state === 'all' || i.state === state))
    .map((i) => i.id)
    .sort((a, b) => b - a);

/** Statements of the issue list itself (its rows or their label rows) a request prepared. */
const listReads = async (path: string, query: Record<string, string>): Promise<string[]> =>
  (await preparedBy(s, async () => void ok(await s.get(path, { query })))).filter((sql) => /\bFROM (issues x|issuable_labels il)\b/.test(sql));

const paths = (): string[] => [`/projects/${project}/issues`, `/groups/${group}/issues`, '/issues'];
const scoped = (path: string): Record<string, string> => (path === '/issues' ? { scope: 'all' } : {});

describe('a label pair no record carries', () => {
  it('empties the list without reading it, at every scope and spelling, with three titles too', async () => {
    for (const path of paths()) {
      for (const labels of ['blue,green', 'BLUE,Green', 'red,blue,green', 'green,red,blue']) {
        const query = { ...scoped(path), labels };
        await expectEveryPage(s, path, query, [], 20);
        expect(await listReads(path, query), `${path} ${labels}`).toEqual([]);
      }
    }
  });

  it('answers the records of a pair some record carries, and of one title in two spellings', async () => {
    for (const path of paths()) {
      for (const labels of ['red,blue', 'red,green', 'red,Red', 'red,blue,Red', 'yellow,red,blue', 'Blue,RED,yellow']) {
        await expectEveryPage(s, path, { ...scoped(path), labels }, expected(labels.split(',')), 4);
        await expectEveryPage(s, path, { ...scoped(path), labels, state: 'closed' }, expected(labels.split(','), 'closed'), 4);
      }
    }
  });

  it('shows the pair once a record carries it', async () => {
    const one = issues.find((i) => i.labels.join() === 'blue')!;
    ok(await s.put(`/projects/${project}/issues/${one.iid}`, { add_labels: 'green' }));
    one.labels.push('green');
    for (const path of paths()) await expectEveryPage(s, path, { ...scoped(path), labels: 'blue,green' }, [one.id], 20);
    ok(await s.put(`/projects/${project}/issues/${one.iid}`, { remove_labels: 'green' }));
    one.labels.pop();
    for (const path of paths()) await expectEveryPage(s, path, { ...scoped(path), labels: 'green,blue' }, [], 20);
  });
});
