import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

// API::TimeTrackingEndpoints for issues and merge requests (spec/requests/api/time_tracking_shared_examples.rb).
let s: TestService;
let p: string;
let guest: { user: any; token: string };
let reporter: { user: any; token: string };
let planner: { user: any; token: string };
let developer: { user: any; token: string };
let outsider: { user: any; token: string };

beforeAll(async () => {
  s = await TestService.start();
  guest = await s.createUser();
  reporter = await s.createUser();
  planner = await s.createUser();
  developer = await s.createUser({ username: 'dev' });
  outsider = await s.createUser();
  const project = await s.createProject({ name: 'timetrack', visibility: 'public', initialize_with_readme: true });
  p = `/projects/${project.id}`;
  await s.addMember('projects', project.id, guest.user.id, 10);
  await s.addMember('projects', project.id, planner.user.id, 15);
  await s.addMember('projects', project.id, reporter.user.id, 20);
  await s.addMember('projects', project.id, developer.user.id, 30);
  await s.post(`${p}/repository/commits`, { branch: 'feature', start_branch: 'main', commit_message: 'c', actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }] });
});
afterAll(async () => s?.stop());

const NONE = { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null };
const systemBodies = async (path: string): Promise<string[]> =>
  ((await s.get(`${path}/notes`, { query: { sort: 'asc', order_by: 'created_at' } })).body as any[]).filter((n) => n.system).map((n) => n.body);

let branches = 0;
const kinds = [
  ['issue', async () => `${p}/issues/${(await s.post(`${p}/issues`, { title: 'tracked' })).body.iid}`],
  [
    'merge request',
    async () => {
      const branch = `feature-${++branches}`;
      await s.post(`${p}/repository/branches`, { branch, ref: 'feature' });
      return `${p}/merge_requests/${(await s.post(`${p}/merge_requests`, { source_branch: branch, target_branch: 'main', title: 'tracked' })).body.iid}`;
    },
  ],
] as const;

describe.each(kinds)('%s time tracking', (kind, create) => {
  it('sets, changes and resets the estimate, adds, subtracts and resets time spent, with GitLab statuses, bodies and system notes', async () => {
    const path = await create();
    expect((await s.get(`${path}/time_stats`)).body).toEqual(NONE);

    let res = await s.post(`${path}/time_estimate`, { duration: '1w' }, { token: developer.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ time_estimate: 144000, total_time_spent: 0, human_time_estimate: '1w', human_total_time_spent: null });
    res = await s.post(`${path}/time_estimate`, { duration: '3w1h' }, { token: developer.token });
    expect([res.status, res.body.time_estimate, res.body.human_time_estimate]).toEqual([200, 3 * 144000 + 3600, '3w 1h']);
    // The same estimate again changes nothing and notes nothing.
    res = await s.post(`${path}/time_estimate`, { duration: '3w 1h' }, { token: developer.token });
    expect(res.status).toBe(200);

    const before = (await s.get(path)).body.updated_at;
    await new Promise((r) => setTimeout(r, 5));
    res = await s.post(`${path}/add_spent_time`, { duration: '2h', summary: 'work' }, { token: developer.token });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ time_estimate: 435600, total_time_spent: 7200, human_time_estimate: '3w 1h', human_total_time_spent: '2h' });
    expect((await s.get(path)).body.updated_at > before).toBe(true);
    res = await s.post(`${path}/add_spent_time`, { duration: '-1h' }, { token: developer.token });
    expect([res.status, res.body.total_time_spent, res.body.human_total_time_spent]).toEqual([201, 3600, '1h']);
    res = await s.post(`${path}/add_spent_time`, { duration: '1mo 2d 30m' }, { token: developer.token });
    expect([res.body.total_time_spent, res.body.human_total_time_spent]).toEqual([3600 + 4 * 144000 + 2 * 28800 + 1800, '1mo 2d 1h 30m']);

    // The entity shows the same time_stats, alone and in the list.
    const stats = (await s.get(`${path}/time_stats`)).body;
    expect((await s.get(path)).body.time_stats).toEqual(stats);
    const list = (await s.get(`${p}/${path.includes('/issues/') ? 'issues' : 'merge_requests'}`, { query: { per_page: 100 } })).body as any[];
    expect(list.find((x) => path.endsWith(`/${x.iid}`)).time_stats).toEqual(stats);

    res = await s.post(`${path}/reset_spent_time`, undefined, { token: developer.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ time_estimate: 435600, total_time_spent: 0, human_time_estimate: '3w 1h', human_total_time_spent: null });
    res = await s.post(`${path}/reset_time_estimate`, undefined, { token: developer.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(NONE);
    expect((await s.get(path)).body.time_stats).toEqual(NONE);
    // The list read before these writes shows them too.
    const again = (await s.get(`${p}/${path.includes('/issues/') ? 'issues' : 'merge_requests'}`, { query: { per_page: 100 } })).body as any[];
    expect(again.find((x) => path.endsWith(`/${x.iid}`)).time_stats).toEqual(NONE);

    expect(await systemBodies(path)).toEqual([
      'added time estimate of 1w',
      'changed time estimate to 3w 1h from 1w',
      'added 2h of time spent',
      'subtracted 1h of time spent',
      'added 1mo 2d 30m of time spent',
      'removed time spent',
      'removed time estimate of 3w 1h',
    ]);
    const notes = (await s.get(`${path}/notes`)).body as any[];
    for (const n of notes) expect(n).toMatchObject({ system: true, author: { username: 'dev' } });
    expect((await s.get(path)).body.user_notes_count).toBe(0);
  });

  it('answers 400 for a bad duration or a subtraction past the total, writing nothing', async () => {
    const path = await create();
    await s.post(`${path}/time_estimate`, { duration: '1w' });
    await s.post(`${path}/add_spent_time`, { duration: '2h' });
    const notesBefore = (await systemBodies(path)).length;
    const updated = (await s.get(path)).body.updated_at;
    for (const duration of ['foo', '-1h', '1h foo']) {
      const res = await s.post(`${path}/time_estimate`, { duration });
      expect([res.status, res.body]).toEqual([400, { message: { time_estimate: ['must have a valid format and be greater than or equal to zero.'] } }]);
    }
    let res = await s.post(`${path}/add_spent_time`, { duration: '-1w' });
    expect([res.status, res.body]).toEqual([400, { message: { base: ['Time to subtract exceeds the total time spent'] } }]);
    res = await s.post(`${path}/add_spent_time`, { duration: 'soon' });
    expect([res.status, res.body]).toEqual([400, { message: { timelogs: ['is invalid'] } }]);
    res = await s.post(`${path}/add_spent_time`, {});
    expect([res.status, res.body]).toEqual([400, { error: 'duration is missing' }]);
    res = await s.post(`${path}/time_estimate`, {});
    expect([res.status, res.body]).toEqual([400, { error: 'duration is missing' }]);
    expect((await s.get(`${path}/time_stats`)).body).toMatchObject({ human_time_estimate: '1w', human_total_time_spent: '2h' });
    expect((await systemBodies(path)).length).toBe(notesBefore);
    expect((await s.get(path)).body.updated_at).toBe(updated);
  });

  it('refuses callers below the role GitLab asks (403), anonymous writes (401), and unknown records (404)', async () => {
    const path = await create();
    const below = kind === 'issue' ? [guest, outsider] : [guest, planner, reporter, outsider];
    for (const u of below) {
      for (const [action, body] of [
        ['time_estimate', { duration: '1h' }],
        ['reset_time_estimate', undefined],
        ['add_spent_time', { duration: '1h' }],
        ['reset_spent_time', undefined],
      ] as const) {
        expect((await s.post(`${path}/${action}`, body, { token: u.token })).status).toBe(403);
      }
      // Anyone who reads the record reads its time stats.
      expect((await s.get(`${path}/time_stats`, { token: u.token })).status).toBe(200);
    }
    // Grape's `requires :duration` answers before the record is found or the caller authorized.
    expect((await s.post(`${path}/add_spent_time`, {}, { token: guest.token })).status).toBe(400);
    expect((await s.post(`${path.replace(/\/\d+$/, '/99999')}/time_estimate`, {})).status).toBe(400);
    const enough = kind === 'issue' ? planner : developer;
    expect((await s.post(`${path}/add_spent_time`, { duration: '30m' }, { token: enough.token })).status).toBe(201);
    expect((await s.post(`${path}/add_spent_time`, { duration: '1h' }, { token: null })).status).toBe(401);
    expect((await s.get(`${path}/time_stats`, { token: null })).body.human_total_time_spent).toBe('30m');
    const missing = path.replace(/\/\d+$/, '/99999');
    expect((await s.post(`${missing}/add_spent_time`, { duration: '1h' })).status).toBe(404);
    expect((await s.get(`${missing}/time_stats`)).status).toBe(404);
  });
});
