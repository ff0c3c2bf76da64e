import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

const openIssues = async (projectId: number): Promise<number> => (await s.get(`/projects/${projectId}`)).body.open_issues_count;

describe("a project's open_issues_count", () => {
  it('follows every create, close, reopen and delete, confidential issues included', async () => {
    const p = await s.createProject();
    expect(await openIssues(p.id)).toBe(0);
    const iids: number[] = [];
    for (const confidential of [false, false, true]) iids.push((await s.post(`/projects/${p.id}/issues`, { title: 'x', confidential })).body.iid);
    expect(await openIssues(p.id)).toBe(3);
    await s.put(`/projects/${p.id}/issues/${iids[0]}`, { state_event: 'close' });
    expect(await openIssues(p.id)).toBe(2);
    await s.put(`/projects/${p.id}/issues/${iids[0]}`, { title: 'still closed' });
    expect(await openIssues(p.id)).toBe(2);
    await s.put(`/projects/${p.id}/issues/${iids[0]}`, { state_event: 'reopen' });
    expect(await openIssues(p.id)).toBe(3);
    await s.del(`/projects/${p.id}/issues/${iids[1]}`);
    expect(await openIssues(p.id)).toBe(2);
    await s.put(`/projects/${p.id}/issues/${iids[2]}`, { state_event: 'close' });
    await s.del(`/projects/${p.id}/issues/${iids[2]}`);
    expect(await openIssues(p.id)).toBe(1);
  });

  it('is per project, and goes away with its project', async () => {
    const a = await s.createProject();
    const b = await s.createProject();
    await s.post(`/projects/${a.id}/issues`, { title: 'a' });
    expect([await openIssues(a.id), await openIssues(b.id)]).toEqual([1, 0]);
    expect((await s.del(`/projects/${a.id}`)).status).toBe(202);
    const row = s.service.context.db.prepare('SELECT count(*) AS n FROM project_issue_counts WHERE project_id = ?').get(a.id) as { n: number };
    expect(row.n).toBe(0);
  });
});
