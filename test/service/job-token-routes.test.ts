import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

/**
 * Where a CI job token is a credential. GitLab reads one (JOB-TOKEN, ?job_token=, ?token=, or as the
 * Bearer / ?access_token= token) only on routes marked `route_setting :authentication,
 * job_token_allowed: true` (doc/ci/jobs/ci_job_token.md's "Job token access"); elsewhere
 * find_user_from_job_token and find_user_from_job_bearer_token return nil, so the request is
 * anonymous, and a Bearer job token is looked up as an access token (401).
 */
let s: TestService;
let project: { id: number; default_branch: string };
let job: string;
/** The job's user's own personal token: a job token reads as its user does. */
let userToken: string;
let paths: { allowed: string[]; other: string[] };
const UNAUTHORIZED = { message: '401 Unauthorized' };
const NO_PROJECT = { message: '404 Project Not Found' };

beforeAll(async () => {
  s = await TestService.start();
  const { user, token } = await s.createUser({ username: 'job-runner' });
  userToken = token;
  project = await s.createProject({ name: 'job-routes', visibility: 'private', initialize_with_readme: true });
  await s.addMember('projects', project.id, user.id, 40);
  const at = (p: string) => `/projects/${project.id}${p}`;
  expect((await s.post(at('/repository/branches'), { branch: 'feature', ref: project.default_branch }, { token })).status).toBe(201);
  expect((await s.post(at('/repository/tags'), { tag_name: 'v1', ref: project.default_branch }, { token })).status).toBe(201);
  const mr = (await s.post(at('/merge_requests'), { source_branch: 'feature', target_branch: project.default_branch, title: 'job reads' }, { token })).body;
  const mrNote = (await s.post(at(`/merge_requests/${mr.iid}/notes`), { body: 'on the MR' }, { token })).body;
  const issue = (await s.post(at('/issues'), { title: 'not for jobs' }, { token })).body;
  const issueNote = (await s.post(at(`/issues/${issue.iid}/notes`), { body: 'on the issue' }, { token })).body;
  job = (await s.post('/sandlab/job_tokens', { project_id: project.id, user_id: user.id })).body.token;
  paths = {
    allowed: [
      at('/repository/branches'),
      at('/repository/tags'),
      at(`/repository/commits/${project.default_branch}`),
      at(`/repository/commits/${project.default_branch}/merge_requests`),
      at(`/repository/files/README.md/raw?ref=${project.default_branch}`),
      at('/merge_requests'),
      at(`/merge_requests/${mr.iid}`),
      at(`/merge_requests/${mr.iid}/notes`),
      at(`/merge_requests/${mr.iid}/notes/${mrNote.id}`),
    ],
    other: [
      at(''),
      at('/repository/branches/feature'),
      at('/repository/tags/v1'),
      at('/repository/commits'),
      at(`/repository/files/README.md?ref=${project.default_branch}`),
      at(`/merge_requests/${mr.iid}/changes`),
      at('/issues'),
      at(`/issues/${issue.iid}/notes`),
      at(`/issues/${issue.iid}/notes/${issueNote.id}`),
    ],
  };
});
afterAll(async () => s.stop());

const get = (path: string, headers: Record<string, string> = {}) => s.get(path, { token: null, headers });
const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

describe('job tokens by route', () => {
  it('are read on the routes GitLab marks job_token_allowed, by every way a job sends one', async () => {
    for (const path of paths.allowed) {
      const asMember = await s.get(path, { token: userToken });
      expect([path, asMember.status]).toEqual([path, 200]);
      for (const [how, res] of [
        ['JOB-TOKEN', await get(path, { 'job-token': job })],
        ['job_token', await get(withQuery(path, `job_token=${job}`))],
        ['token', await get(withQuery(path, `token=${job}`))],
        ['Bearer', await get(path, { authorization: `Bearer ${job}` })],
        ['access_token', await get(withQuery(path, `access_token=${job}`))],
      ] as const) {
        expect([path, how, res.status, res.text]).toEqual([path, how, 200, asMember.text]);
      }
      // A job token that is no running job's: 401 there, whichever way it came.
      expect([path, (await get(path, { 'job-token': 'glcbt-nope' })).body]).toEqual([path, UNAUTHORIZED]);
      expect([path, (await get(withQuery(path, 'token=glcbt-nope'))).body]).toEqual([path, UNAUTHORIZED]);
      expect([path, (await get(path, { authorization: 'Bearer glcbt-nope' })).body]).toEqual([path, UNAUTHORIZED]);
    }
  });

  it('are not read elsewhere: the request is anonymous, and a Bearer job token is no access token', async () => {
    for (const path of paths.other) {
      expect([path, (await s.get(path)).status]).toEqual([path, 200]);
      for (const [how, res] of [
        ['JOB-TOKEN', await get(path, { 'job-token': job })],
        ['job_token', await get(withQuery(path, `job_token=${job}`))],
        ['token', await get(withQuery(path, `token=${job}`))],
        ['bad JOB-TOKEN', await get(path, { 'job-token': 'glcbt-nope' })],
      ] as const) {
        expect([path, how, res.status, res.body]).toEqual([path, how, 404, NO_PROJECT]);
      }
      expect([path, (await get(path, { authorization: `Bearer ${job}` })).body]).toEqual([path, UNAUTHORIZED]);
      expect([path, (await get(withQuery(path, `access_token=${job}`))).body]).toEqual([path, UNAUTHORIZED]);
    }
    // Where a user is required, an anonymous request is refused.
    expect((await get('/user', { 'job-token': job })).body).toEqual(UNAUTHORIZED);
    const write = await s.post(`/projects/${project.id}/issues`, { title: 'by a job' }, { token: null, headers: { 'job-token': job } });
    expect([write.status, write.body]).toEqual([401, UNAUTHORIZED]);
    expect((await s.get(`/projects/${project.id}/issues`, { query: { search: 'by a job' } })).body).toEqual([]);
  });

  it('takes the Bearer job token before a personal token, and a personal token before JOB-TOKEN', async () => {
    const { token: outsider } = await s.createUser({ username: 'job-outsider' });
    const mrs = `/projects/${project.id}/merge_requests`;
    // find_user_from_bearer_token runs first: the job's user reads the private project, not the outsider.
    expect((await get(mrs, { authorization: `Bearer ${job}`, 'private-token': outsider })).status).toBe(200);
    // The outsider's token is read before find_user_from_job_token: the project is hidden from them.
    expect((await get(mrs, { 'private-token': outsider, 'job-token': job })).body).toEqual(NO_PROJECT);
  });
});
