import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../../helpers/service';

// Parallel writers on one project through real HTTP connections: many clients at once creating
// issues and merge requests (iids from one counter), labels, notes, uploads and award emoji.
// Every write answers 2xx (never SQLITE_BUSY, never a 5xx), and what was acknowledged is there,
// once, with iids that are unique and gapless.

let s: TestService;
let projectId: number;

beforeAll(async () => {
  s = await TestService.start();
  projectId = (await s.post('/projects', { name: 'crowded' })).body.id;
});
afterAll(async () => {
  await s.stop();
});

/** Runs `work(i)` for i < n with `lanes` requests in flight, collecting every answer. */
async function inParallel<T>(n: number, lanes: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await work(i);
      }
    }),
  );
  return out;
}

const PER_KIND = 40;
const LANES = 16;

describe('parallel writers on one project', () => {
  it('all succeed, and iids are unique and gapless', async () => {
    const p = `/projects/${projectId}`;
    const issue = (await s.post(`${p}/issues`, { title: 'the shared issue' })).body;
    const writes: (() => Promise<{ status: number; text: string; kind: string; body: any }>)[] = [];
    const as = (kind: string) => (res: { status: number; text: string; body: any }) => ({ ...res, kind });
    for (let i = 0; i < PER_KIND; i++) {
      writes.push(() => s.post(`${p}/issues`, { title: `parallel issue ${i}`, labels: `lane-${i % 5}` }).then(as('issue')));
      writes.push(() => s.post(`${p}/merge_requests`, { title: `parallel MR ${i}`, source_branch: `b-${i}`, target_branch: 'main' }).then(as('mr')));
      writes.push(() => s.post(`${p}/labels`, { name: `label-${i}`, color: '#123456' }).then(as('label')));
      writes.push(() => s.post(`${p}/issues/${issue.iid}/notes`, { body: `note ${i}` }).then(as('note')));
      writes.push(() => {
        const fd = new FormData();
        fd.append('file', new Blob([`upload ${i}`]), `file-${i}.txt`);
        return s.post(`${p}/uploads`, undefined, { multipart: fd }).then(as('upload'));
      });
      writes.push(async () => {
        const { user, token } = await s.createUser();
        await s.addMember('projects', projectId, user.id, 10);
        return s.post(`${p}/issues/${issue.iid}/award_emoji`, { name: 'thumbsup' }, { token }).then(as('award'));
      });
    }
    // Interleave the kinds so every moment has every kind of write in flight.
    const answers = await inParallel(writes.length, LANES, (i) => writes[i]());

    const refused = answers.filter((a) => a.status !== 201).map((a) => `${a.kind}: ${a.status} ${a.text.slice(0, 200)}`);
    expect(refused).toEqual([]);

    const issues = (await s.get(`${p}/issues`, { query: { per_page: 100 } })).body as any[];
    expect(issues.map((x) => x.iid).sort((a, b) => a - b)).toEqual(Array.from({ length: PER_KIND + 1 }, (_, i) => i + 1));
    const mrs = (await s.get(`${p}/merge_requests`, { query: { per_page: 100 } })).body as any[];
    expect(mrs.map((x) => x.iid).sort((a, b) => a - b)).toEqual(Array.from({ length: PER_KIND }, (_, i) => i + 1));

    const labels = (await s.get(`${p}/labels`, { query: { per_page: 100 } })).body as any[];
    for (let i = 0; i < PER_KIND; i++) expect(labels.filter((l) => l.name === `label-${i}`)).toHaveLength(1);
    // The issues' labels were created on the fly by parallel writers: each exactly once.
    for (let i = 0; i < 5; i++) expect(labels.filter((l) => l.name === `lane-${i}`)).toHaveLength(1);

    const notes = (await s.get(`${p}/issues/${issue.iid}/notes`, { query: { per_page: 100 } })).body as any[];
    expect(notes.filter((n) => !n.system && /^note \d+$/.test(n.body))).toHaveLength(PER_KIND);
    const uploads = (await s.get(`${p}/uploads`, { query: { per_page: 100 } })).body as any[];
    expect(uploads).toHaveLength(PER_KIND);
    const awards = (await s.get(`${p}/issues/${issue.iid}/award_emoji`, { query: { per_page: 100 } })).body as any[];
    expect(awards).toHaveLength(PER_KIND);

    // Every acknowledged upload can be read back whole.
    const uploadAnswers = answers.filter((a) => a.kind === 'upload');
    const bodies = await Promise.all(uploadAnswers.map((a) => s.get(`${s.url}/-/project/${projectId}${a.body.url}`).then((r) => r.text)));
    expect(bodies.sort()).toEqual(Array.from({ length: PER_KIND }, (_, i) => `upload ${i}`).sort());

    expect(s.service.context.db.prepare('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }]);
  }, 180_000);

  it("keeps each project's iids gapless while two projects take issues at once", async () => {
    const other = (await s.post('/projects', { name: 'neighbour' })).body.id;
    const answers = await inParallel(60, LANES, (i) => s.post(`/projects/${i % 2 ? other : projectId}/issues`, { title: `both ${i}` }));
    expect(answers.filter((a) => a.status !== 201)).toEqual([]);
    const iids = (id: number) => answers.filter((a) => a.body.project_id === id).map((a) => a.body.iid).sort((a, b) => a - b);
    expect(iids(other)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(iids(projectId)).toEqual(Array.from({ length: 30 }, (_, i) => PER_KIND + 2 + i));
  }, 120_000);
});
