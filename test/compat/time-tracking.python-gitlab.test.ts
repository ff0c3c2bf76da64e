import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runPython, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

describe('python-gitlab: TimeTrackingMixin on issues and merge requests', () => {
  it('sets and resets estimates and time spent, reads time_stats and sees them on the record and as system notes', () => {
    const out = runPython(
      served,
      `
p = gl.projects.create({"name": "timetrack-py", "initialize_with_readme": True})
p.branches.create({"branch": "feature", "ref": "main"})
issue = p.issues.create({"title": "Track me"})
mr = p.mergerequests.create({"source_branch": "feature", "target_branch": "main", "title": "Track me too"})
out = {}
for name, obj in (("issue", issue), ("mr", mr)):
    steps = [obj.time_estimate("3h30m"), obj.add_spent_time("1h"), obj.add_spent_time("-30m"), obj.manager.get(obj.iid, lazy=True).time_stats()]
    entity = obj.manager.get(obj.iid).attributes["time_stats"]
    steps += [obj.reset_spent_time(), obj.reset_time_estimate()]
    try:
        obj.time_estimate("soon")
        bad = None
    except gitlab.exceptions.GitlabTimeTrackingError as e:
        bad = [e.response_code, str(e.error_message)]
    notes = [n.body for n in obj.notes.list(sort="asc", order_by="created_at", get_all=True) if n.system]
    out[name] = {"steps": steps, "entity": entity, "bad": bad, "notes": notes}
print(json.dumps(out))
`,
    );
    const stats = (estimate: number, spent: number, human: string | null, humanSpent: string | null) => ({
      time_estimate: estimate,
      total_time_spent: spent,
      human_time_estimate: human,
      human_total_time_spent: humanSpent,
    });
    const expected = {
      steps: [
        stats(12600, 0, '3h 30m', null),
        stats(12600, 3600, '3h 30m', '1h'),
        stats(12600, 1800, '3h 30m', '30m'),
        stats(12600, 1800, '3h 30m', '30m'),
        stats(12600, 0, '3h 30m', null),
        stats(0, 0, null, null),
      ],
      entity: stats(12600, 1800, '3h 30m', '30m'),
      bad: [400, "{'time_estimate': ['must have a valid format and be greater than or equal to zero.']}"],
      notes: ['added time estimate of 3h 30m', 'added 1h of time spent', 'subtracted 30m of time spent', 'removed time spent', 'removed time estimate of 3h 30m'],
    };
    expect(out).toEqual({ issue: expected, mr: expected });
  });
});
