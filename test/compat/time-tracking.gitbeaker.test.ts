import { Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, startServe } from './harness';

let served: Served;
let api: InstanceType<typeof Gitlab>;
beforeAll(async () => {
  served = await startServe();
  api = new Gitlab({ host: served.url, token: served.token });
});
afterAll(async () => served?.stop());

describe('@gitbeaker/rest 43: IssueTimeTracking and the merge request ones', () => {
  it('sets, adds, shows and resets time on an issue and a merge request', async () => {
    const project = await api.Projects.create({ name: 'gb-timetrack', initializeWithReadme: true });
    await api.Branches.create(project.id, 'feature', 'main');
    const issue = await api.Issues.create(project.id, 'Track me');
    const mr = await api.MergeRequests.create(project.id, 'feature', 'main', 'Track me too');
    const stats = (estimate: number, spent: number, human: string | null, humanSpent: string | null) => ({
      time_estimate: estimate,
      total_time_spent: spent,
      human_time_estimate: human,
      human_total_time_spent: humanSpent,
    });

    expect(await api.Issues.addTimeEstimate(project.id, issue.iid, '1d 4h')).toEqual(stats(43200, 0, '1d 4h', null));
    expect(await api.Issues.addSpentTime(project.id, issue.iid, '90m', { summary: 'review' })).toEqual(stats(43200, 5400, '1d 4h', '1h 30m'));
    expect(await api.Issues.showTimeStats(project.id, issue.iid)).toEqual(stats(43200, 5400, '1d 4h', '1h 30m'));
    expect(await api.Issues.resetSpentTime(project.id, issue.iid)).toEqual(stats(43200, 0, '1d 4h', null));
    expect(await api.Issues.resetTimeEstimate(project.id, issue.iid)).toEqual(stats(0, 0, null, null));

    expect(await api.MergeRequests.setTimeEstimate(project.id, mr.iid, '2w')).toEqual(stats(288000, 0, '2w', null));
    expect(await api.MergeRequests.addSpentTime(project.id, mr.iid, '1w 1s')).toEqual(stats(288000, 144001, '2w', '1w 1s'));
    expect((await api.MergeRequests.show(project.id, mr.iid)).time_stats).toEqual(stats(288000, 144001, '2w', '1w 1s'));
    expect(await api.MergeRequests.showTimeStats(project.id, mr.iid)).toEqual(stats(288000, 144001, '2w', '1w 1s'));
    expect(await api.MergeRequests.resetSpentTime(project.id, mr.iid)).toEqual(stats(288000, 0, '2w', null));
    expect(await api.MergeRequests.resetTimeEstimate(project.id, mr.iid)).toEqual(stats(0, 0, null, null));
    await expect(api.MergeRequests.setTimeEstimate(project.id, mr.iid, 'later')).rejects.toMatchObject({ cause: { response: { status: 400 } } });
  });
});
