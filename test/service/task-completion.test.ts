import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

// Taskable's counts in the entities: task_completion_status (issues and merge requests), and Entities::Issue's
// has_tasks and task_status (shown only when the description has checklist items).
let s: TestService;
let p: string;

beforeAll(async () => {
  s = await TestService.start();
  const project = await s.createProject({ name: 'tasks', initialize_with_readme: true });
  p = `/projects/${project.id}`;
});
afterAll(async () => s?.stop());

const checklist = ['- [x] ship it', '* [ ] write docs', '1) [X] review', '```', '- [ ] not an item: in a code block', '```', '<!-- ', '- [ ] nor in a comment', '-->', '- [] nor this'].join('\n');

describe('checklist items in entities', () => {
  it('counts an issue description\'s items in the single issue, the list and a milestone\'s issues, and follows edits', async () => {
    const milestone = (await s.post(`${p}/milestones`, { title: 'm1' })).body;
    const issue = (await s.post(`${p}/issues`, { title: 'with tasks', description: checklist, milestone_id: milestone.id })).body;
    expect(issue.task_completion_status).toEqual({ count: 3, completed_count: 2 });
    expect(issue.has_tasks).toBe(true);
    expect(issue.task_status).toBe('2 of 3 checklist items completed');
    const listed = ((await s.get(`${p}/issues`)).body as any[]).find((i) => i.iid === issue.iid);
    expect([listed.task_completion_status, listed.has_tasks, listed.task_status]).toEqual([{ count: 3, completed_count: 2 }, true, '2 of 3 checklist items completed']);
    // Entities::IssueBasic has neither has_tasks nor task_status.
    const basic = ((await s.get(`${p}/milestones/${milestone.id}/issues`)).body as any[])[0];
    expect(basic.task_completion_status).toEqual({ count: 3, completed_count: 2 });
    expect('has_tasks' in basic || 'task_status' in basic).toBe(false);

    const one = (await s.put(`${p}/issues/${issue.iid}`, { description: '- [ ] only one' })).body;
    expect([one.task_completion_status, one.has_tasks, one.task_status]).toEqual([{ count: 1, completed_count: 0 }, true, '0 of 1 checklist item completed']);
    const none = (await s.put(`${p}/issues/${issue.iid}`, { description: 'no items [ ] here' })).body;
    expect([none.task_completion_status, none.has_tasks, 'task_status' in none]).toEqual([{ count: 0, completed_count: 0 }, false, false]);
    const listedAfter = ((await s.get(`${p}/issues`)).body as any[]).find((i) => i.iid === issue.iid);
    expect([listedAfter.task_completion_status, listedAfter.has_tasks, 'task_status' in listedAfter]).toEqual([{ count: 0, completed_count: 0 }, false, false]);
  });

  it('counts a merge request description\'s items', async () => {
    await s.post(`${p}/repository/branches`, { branch: 'feature', ref: 'main' });
    const mr = (await s.post(`${p}/merge_requests`, { title: 'mr', source_branch: 'feature', target_branch: 'main', description: checklist })).body;
    expect(mr.task_completion_status).toEqual({ count: 3, completed_count: 2 });
    expect('has_tasks' in mr || 'task_status' in mr).toBe(false);
    const listed = ((await s.get(`${p}/merge_requests`)).body as any[]).find((m) => m.iid === mr.iid);
    expect(listed.task_completion_status).toEqual({ count: 3, completed_count: 2 });
  });
});
