import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';

/**
 * GET /projects/:id/issues/:issue_iid/user_agent_detail (lib/api/issues.rb): admins only
 * (authenticated_as_admin! first: 401 anonymous, 403 for anyone else, before the project or issue
 * is looked up), then the issue (404), then the User-Agent and IP its creating request carried
 * (UserAgentDetailService from Issues::CreateService), or "404 UserAgentDetail Not Found" where it
 * carried none. python-gitlab 3.12's test_create_issue reads it.
 */
let s: TestService;
let project: { id: number };
let maintainer: { user: { id: number }; token: string };

beforeAll(async () => {
  s = await TestService.start();
  project = await s.createProject({ name: 'ua-issues', visibility: 'public' });
  maintainer = await s.createUser({ username: 'ua-maintainer' });
  await s.addMember('projects', project.id, maintainer.user.id, 40);
}, 60_000);
afterAll(async () => s?.stop());

const detailOf = (iid: number, opts: { token?: string } = {}) => s.get(`/projects/${project.id}/issues/${iid}/user_agent_detail`, opts);

describe("an issue's user agent detail", () => {
  it("keeps the creating request's User-Agent and IP, for admins", async () => {
    const issue = ok(await s.post(`/projects/${project.id}/issues`, { title: 'with agent' }, { headers: { 'user-agent': 'python-gitlab/3.12.0' } })) as { iid: number };
    const res = await detailOf(issue.iid);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ user_agent: 'python-gitlab/3.12.0', ip_address: '127.0.0.1', akismet_submitted: false, spam_check_submitted: false });
    // An issue made by another user through the API has its own.
    const other = ok(await s.post(`/projects/${project.id}/issues`, { title: 'by maintainer' }, { token: maintainer.token, headers: { 'user-agent': 'gitbeaker' } })) as { iid: number };
    expect((await detailOf(other.iid)).body).toMatchObject({ user_agent: 'gitbeaker' });
  });

  it('401 anonymous, 403 for a non-admin (even the author, a Maintainer), before the issue is looked up', async () => {
    const issue = ok(await s.post(`/projects/${project.id}/issues`, { title: 'mine' }, { token: maintainer.token })) as { iid: number };
    expect((await detailOf(issue.iid, { token: maintainer.token })).status).toBe(403);
    expect((await detailOf(999, { token: maintainer.token })).status).toBe(403);
    const anonymous = await s.get(`/projects/${project.id}/issues/${issue.iid}/user_agent_detail`, { token: null });
    expect(anonymous.status).toBe(401);
  });

  it('404 for a missing issue, and "404 UserAgentDetail Not Found" for one created without a User-Agent', async () => {
    expect((await detailOf(999)).body).toEqual({ message: '404 Not found' });
    const bare = ok(await s.post(`/projects/${project.id}/issues`, { title: 'no agent' }, { headers: { 'user-agent': '' } })) as { iid: number };
    const res = await detailOf(bare.iid);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 UserAgentDetail Not Found' });
  });

  it('goes with its issue', async () => {
    const issue = ok(await s.post(`/projects/${project.id}/issues`, { title: 'to delete' }, { headers: { 'user-agent': 'curl/8' } })) as { id: number; iid: number };
    expect(s.service.context.db.prepare('SELECT count(*) AS n FROM issue_user_agent_details WHERE issue_id = ?').get(issue.id)).toEqual({ n: 1 });
    expect((await s.del(`/projects/${project.id}/issues/${issue.iid}`)).status).toBe(204);
    expect(s.service.context.db.prepare('SELECT count(*) AS n FROM issue_user_agent_details WHERE issue_id = ?').get(issue.id)).toEqual({ n: 0 });
  });
});
