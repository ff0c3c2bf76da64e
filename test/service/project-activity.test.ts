import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { TestClock } from '../helpers/world';

// A project's last_activity_at as GitLab moves it (Event#reset_project_activity): an event touches the
// project (last_activity_at and updated_at, at the event's time) only when the last activity is an hour
// old or more (Event::RESET_PROJECT_ACTIVITY_INTERVAL).

const clock = new TestClock(new Date('2026-03-02T10:00:00.000Z'));
let s: TestService;
beforeAll(async () => {
  s = await TestService.start({ clock: clock.now });
});
afterAll(async () => s?.stop());

const minutes = (n: number) => clock.advanceDays(n / 1440);
const activity = async (id: number) => {
  const p = ok(await s.get(`/projects/${id}`));
  return { last_activity_at: p.last_activity_at, updated_at: p.updated_at };
};

describe('project activity', () => {
  it('moves at most once an hour, with updated_at, at the time of the event that moved it', async () => {
    const project = ok(await s.post('/projects', { name: 'Busy' }));
    const created = '2026-03-02T10:00:00.000Z';
    expect(await activity(project.id)).toEqual({ last_activity_at: created, updated_at: created });

    minutes(59);
    ok(await s.post(`/projects/${project.id}/issues`, { title: 'Within the hour' }));
    expect(await activity(project.id)).toEqual({ last_activity_at: created, updated_at: created });

    minutes(1);
    ok(await s.post(`/projects/${project.id}/issues`, { title: 'An hour later' }));
    const hourLater = '2026-03-02T11:00:00.000Z';
    expect(await activity(project.id)).toEqual({ last_activity_at: hourLater, updated_at: hourLater });

    minutes(30);
    const issue = ok(await s.post(`/projects/${project.id}/issues`, { title: 'Half an hour later' }));
    ok(await s.post(`/projects/${project.id}/issues/${issue.iid}/notes`, { body: 'A comment' }));
    expect(await activity(project.id)).toEqual({ last_activity_at: hourLater, updated_at: hourLater });

    minutes(45);
    ok(await s.put(`/projects/${project.id}/issues/${issue.iid}`, { state_event: 'close' }));
    expect(await activity(project.id)).toEqual({ last_activity_at: '2026-03-02T12:15:00.000Z', updated_at: '2026-03-02T12:15:00.000Z' });

    // The events themselves are all there: only the project's row is touched less often.
    const events = ok(await s.get(`/projects/${project.id}/events`, { query: { per_page: 100 } }));
    expect(events.map((e: any) => e.action_name)).toEqual(['closed', 'commented on', 'opened', 'opened', 'opened', 'created']);
  });
});
