import { ROOT_TOKEN, TestService } from './service';

/**
 * A small instance with one of everything, for the suites that walk every route (the role
 * matrix, the fuzz suite): a private group with a member at each role, a private project in it
 * holding an issue, a merge request, notes, a snippet, labels, a badge, an upload, a feature flag,
 * an alert, an epic..., and the tokens of every kind of caller. `pathFor()` fills any route
 * pattern with these records, so a route that lands later is walked without a line here unless
 * it names a new kind of record.
 */

export const ROLES = ['guest', 'reporter', 'developer', 'maintainer', 'owner'] as const;
export type Role = (typeof ROLES)[number];
export const ROLE_LEVEL: Record<Role, number> = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 };

/** Everyone the matrix asks as. */
export const IDENTITIES = [
  'anonymous',
  'nonMember',
  ...ROLES,
  'admin',
  'blocked',
  'expiredToken',
  'readApiToken',
  'jobToken',
] as const;
export type Identity = (typeof IDENTITIES)[number];

export interface World {
  s: TestService;
  /** Headers that authenticate as each identity (none for anonymous). */
  headers: Record<Identity, Record<string, string>>;
  userIds: Record<Role | 'nonMember' | 'blocked' | 'banned' | 'idle' | 'admin' | 'requester' | 'member', number>;
  group: any;
  subgroup: any;
  project: any;
  /** Value for each path parameter, keyed `<segment before it>/:<name>` or `:<name>`. */
  pathValues: Record<string, string>;
  /** Every token and password value the world used (the secrets sweep looks for them). */
  secrets: string[];
}

/** A clock the world can move: tokens expire by it. */
export class TestClock {
  constructor(public current = new Date('2026-03-02T10:00:00Z')) {}
  now = (): Date => new Date(this.current);
  advanceDays(days: number): void {
    this.current = new Date(this.current.getTime() + days * 86_400_000);
  }
}

const ok = (what: string, res: { status: number; text: string }, expected = [200, 201, 204]): void => {
  if (!expected.includes(res.status)) throw new Error(`world: ${what} -> ${res.status} ${res.text.slice(0, 300)}`);
};

export async function buildWorld(s: TestService, clock: TestClock): Promise<World> {
  const secrets = [ROOT_TOKEN];
  const user = async (name: string, extra: Record<string, unknown> = {}) => {
    const password = `pw-${name}-Secret-${Math.random().toString(36).slice(2, 10)}`;
    secrets.push(password);
    const res = await s.post('/users', { username: name, name, email: `${name}@example.com`, password, skip_confirmation: true, ...extra });
    ok(`user ${name}`, res);
    const tok = await s.post(`/users/${res.body.id}/personal_access_tokens`, { name: 'world', scopes: ['api'] });
    ok(`token ${name}`, tok);
    secrets.push(tok.body.token);
    return { id: res.body.id as number, token: tok.body.token as string };
  };

  const users = {
    owner: await user('w-owner'),
    maintainer: await user('w-maintainer'),
    developer: await user('w-developer'),
    reporter: await user('w-reporter'),
    guest: await user('w-guest'),
    nonMember: await user('w-nonmember'),
    blocked: await user('w-blocked'),
    banned: await user('w-banned'),
    /** Last seen long ago (no API sets that): the one account an admin may deactivate. */
    idle: await user('w-idle'),
    requester: await user('w-requester'),
    /** A Guest of the group and of the project itself: the record the member routes name. */
    member: await user('w-member'),
  };

  const group = (await s.post('/groups', { name: 'World', path: 'world', visibility: 'private' })).body;
  ok('group', { status: group.id ? 201 : 500, text: JSON.stringify(group) });
  const subgroup = (await s.post('/groups', { name: 'Sub', path: 'sub', parent_id: group.id, visibility: 'private' })).body;
  for (const role of ROLES) await s.addMember('groups', group.id, users[role].id, ROLE_LEVEL[role]);
  await s.addMember('groups', group.id, users.member.id, 10);
  const projectRes = await s.post('/projects', { name: 'Place', path: 'place', namespace_id: group.id, visibility: 'private' });
  ok('project', projectRes);
  const project = projectRes.body;
  await s.addMember('projects', projectRes.body.id, users.member.id, 10);
  const other = (await s.post('/projects', { name: 'Other', path: 'other', namespace_id: group.id, visibility: 'private' })).body;
  const p = `/projects/${project.id}`;
  const g = `/groups/${group.id}`;

  const readApi = await s.post(`/users/${users.maintainer.id}/personal_access_tokens`, { name: 'read', scopes: ['read_api'] });
  ok('read_api token', readApi);
  secrets.push(readApi.body.token);
  const tomorrow = new Date(clock.current.getTime() + 86_400_000).toISOString().slice(0, 10);
  const expiring = await s.post(`/users/${users.maintainer.id}/personal_access_tokens`, { name: 'expiring', scopes: ['api'], expires_at: tomorrow });
  ok('expiring token', expiring);
  secrets.push(expiring.body.token);
  const job = await s.post('/sandlab/job_tokens', { project_id: project.id, user_id: users.maintainer.id });
  ok('job token', job);
  secrets.push(job.body.token);

  // Records the routes name.
  const issue = (await s.post(`${p}/issues`, { title: 'An issue', description: 'text' })).body;
  const mr = (await s.post(`${p}/merge_requests`, { title: 'A change', source_branch: 'feature', target_branch: 'main' })).body;
  const issueNote = (await s.post(`${p}/issues/${issue.iid}/notes`, { body: 'a note' })).body;
  const issueDiscussion = (await s.post(`${p}/issues/${issue.iid}/discussions`, { body: 'a thread' })).body;
  const mrNote = (await s.post(`${p}/merge_requests/${mr.iid}/notes`, { body: 'an MR note' })).body;
  const draft = (await s.post(`${p}/merge_requests/${mr.iid}/draft_notes`, { note: 'a draft' })).body;
  const snippet = (await s.post(`${p}/snippets`, { title: 'snip', files: [{ file_path: 'a.txt', content: 'hello' }], visibility: 'private' })).body;
  const snippetNote = (await s.post(`${p}/snippets/${snippet.id}/notes`, { body: 'snippet note' })).body;
  const personalSnippet = (await s.post('/snippets', { title: 'mine', files: [{ file_path: 'b.txt', content: 'hi' }], visibility: 'private' })).body;
  const label = (await s.post(`${p}/labels`, { name: 'bug', color: '#ff0000' })).body;
  const groupLabel = (await s.post(`${g}/labels`, { name: 'group-bug', color: '#00ff00' })).body;
  const badge = (await s.post(`${p}/badges`, { link_url: 'https://example.com/%{project_path}', image_url: 'https://example.com/b.svg' })).body;
  const groupBadge = (await s.post(`${g}/badges`, { link_url: 'https://example.com/g', image_url: 'https://example.com/g.svg' })).body;
  const fd = new FormData();
  fd.append('file', new Blob(['upload body']), 'notes.txt');
  const upload = (await s.post(`${p}/uploads`, undefined, { multipart: fd })).body;
  const flag = (await s.post(`${p}/feature_flags`, { name: 'world_flag', version: 'new_version_flag' })).body;
  const userList = (await s.post(`${p}/feature_flags_user_lists`, { name: 'world-list', user_xids: '1,2' })).body;
  const integration = (await s.post(`${p}/alert_management/integrations`, { name: 'world', type: 'http', active: true })).body;
  if (integration.token) secrets.push(integration.token);
  await s.post(`${p}/alert_management/integrations/${integration.id}/test`, { title: 'An alert' });
  const clientKey = (await s.post(`${p}/error_tracking/client_keys`)).body;
  await s.post(`${p}/job_token_scope/allowlist`, { target_project_id: other.id });
  await s.post(`${p}/job_token_scope/groups_allowlist`, { target_group_id: subgroup.id });
  // Access can be requested to what one can see: open the group and project for a moment.
  await s.put(g, { visibility: 'internal' });
  await s.put(p, { visibility: 'internal' });
  ok('project access request', await s.post(`${p}/access_requests`, undefined, { token: users.requester.token }));
  ok('group access request', await s.post(`${g}/access_requests`, undefined, { token: users.requester.token }));
  await s.put(p, { visibility: 'private' });
  await s.put(g, { visibility: 'private' });
  await s.post(`${p}/invitations`, { email: 'invitee@example.com', access_level: 30 });
  await s.post(`${g}/invitations`, { email: 'invitee@example.com', access_level: 30 });
  // The repository: a first commit on main, a branch and a tag.
  ok('repository file', await s.post(`${p}/repository/files/ci.yml`, { branch: 'main', content: 'job:\n  script: echo\n', commit_message: 'Add ci.yml' }));
  ok('branch', await s.post(`${p}/repository/branches`, { branch: 'topic', ref: 'main' }));
  // The merge request's source branch, a commit ahead of main (DELETE merged_branches keeps it).
  ok('feature branch', await s.post(`${p}/repository/files/feature.txt`, { branch: 'feature', start_branch: 'main', content: 'f', commit_message: 'Add feature' }));
  // A second merge request the matrix rebases: the first one is merged (in git, which no rollback undoes) before.
  ok('rebase branch', await s.post(`${p}/repository/files/rebase.txt`, { branch: 'to-rebase', start_branch: 'main', content: 'r', commit_message: 'Add rebase' }));
  ok('second merge request', await s.post(`${p}/merge_requests`, { title: 'To rebase', source_branch: 'to-rebase', target_branch: 'main' }));
  ok('tag', await s.post(`${p}/repository/tags`, { tag_name: 'v1', ref: 'main' }));
  const milestone = (await s.post(`${p}/milestones`, { title: 'A milestone' })).body;
  const groupMilestone = (await s.post(`${g}/milestones`, { title: 'A group milestone' })).body;
  // Issue 2 is linked to the issue; issue 3 is free to link.
  const linked = (await s.post(`${p}/issues`, { title: 'A linked issue' })).body;
  await s.post(`${p}/issues`, { title: 'A free issue' });
  ok('issue link', await s.post(`${p}/issues/${issue.iid}/links`, { target_project_id: project.id, target_issue_iid: linked.iid }));
  const link = (await s.get(`${p}/issues/${issue.iid}/links`)).body[0] ?? {};
  const awardOn = async (path: string) => (await s.post(`${path}/award_emoji`, { name: 'thumbsup' })).body.id as number;
  const awards = {
    issue: await awardOn(`${p}/issues/${issue.iid}`),
    issueNote: await awardOn(`${p}/issues/${issue.iid}/notes/${issueNote.id}`),
    mr: await awardOn(`${p}/merge_requests/${mr.iid}`),
    mrNote: await awardOn(`${p}/merge_requests/${mr.iid}/notes/${mrNote.id}`),
    snippet: await awardOn(`${p}/snippets/${snippet.id}`),
    snippetNote: await awardOn(`${p}/snippets/${snippet.id}/notes/${snippetNote.id}`),
  };
  const epic = (await s.post(`${g}/epics`, { title: 'An epic' })).body;
  const epicNote = (await s.post(`${g}/epics/${epic.id}/notes`, { body: 'epic note' })).body;
  const epicIssue = (await s.post(`${g}/epics/${epic.iid}/issues/${issue.id}`)).body;
  const award = (await s.post(`${g}/epics/${epic.iid}/award_emoji`, { name: 'thumbsup' })).body;
  await s.post(`${g}/saml_group_links`, { saml_group_name: 'world-saml', access_level: 10 });
  const serviceAccount = (await s.post(`${g}/service_accounts`, { name: 'world bot' })).body;
  const saToken = (await s.post(`${g}/service_accounts/${serviceAccount.id}/personal_access_tokens`, { name: 'bot', scopes: ['api'] })).body;
  if (saToken.token) secrets.push(saToken.token);
  const instanceAccount = (await s.post('/service_accounts', { name: 'instance bot' })).body;

  // CI/CD variables, a topic, an identity.
  for (const owner of [p, g, '/admin/ci']) ok(`variable of ${owner}`, await s.post(`${owner}/variables`, { key: 'WORLD_VAR', value: 'world value' }));
  const topic = (await s.post('/topics', { name: 'world-topic', title: 'World topic' })).body;
  ok('identity', await s.put(`/users/${users.developer.id}`, { provider: 'ldapmain', extern_uid: 'uid=developer' }));

  ok('ban', await s.post(`/users/${users.banned.id}/ban`));
  s.service.context.db.prepare("UPDATE users SET last_activity_on = '2025-01-01' WHERE id = ?").run(users.idle.id);
  // Blocked last: its token then answers as a blocked account's does.
  ok('block', await s.post(`/users/${users.blocked.id}/block`));
  // The expiring token is past its date from here on.
  clock.advanceDays(3);

  const bearer = (token: string) => ({ 'private-token': token });
  const headers: World['headers'] = {
    anonymous: {},
    nonMember: bearer(users.nonMember.token),
    guest: bearer(users.guest.token),
    reporter: bearer(users.reporter.token),
    developer: bearer(users.developer.token),
    maintainer: bearer(users.maintainer.token),
    owner: bearer(users.owner.token),
    admin: bearer(ROOT_TOKEN),
    blocked: bearer(users.blocked.token),
    expiredToken: bearer(expiring.body.token),
    readApiToken: bearer(readApi.body.token),
    jobToken: { 'job-token': job.body.token },
  };

  const pathValues: Record<string, string> = {
    'projects/:id': String(project.id),
    'project/:id': String(project.id),
    'groups/:id': String(group.id),
    'namespaces/:id': String(group.id),
    'users/:id': String(users.developer.id),
    'users/:user_id': String(users.developer.id),
    // Someone else's token: the fuzz suite revokes what it names, and root must stay signed in.
    'personal_access_tokens/:id': String(readApi.body.id),
    'service_accounts/:id': String(instanceAccount.id ?? 1),
    'service_accounts/:user_id': String(serviceAccount.id ?? 1),
    'personal_access_tokens/:token_id': String(saToken.id ?? 1),
    'job_tokens/:token_id': String(job.body.id),
    'members/:user_id': String(users.member.id),
    'all/:user_id': String(users.member.id),
    'access_requests/:user_id': String(users.requester.id),
    'issues/:issue_iid': String(issue.iid),
    'issues/:noteable_iid': String(issue.iid),
    'merge_requests/:merge_request_iid': String(mr.iid),
    'merge_requests/:noteable_iid': String(mr.iid),
    'issues/:issue_id': String(issue.id),
    ':note_id': String(issueNote.id),
    'merge_requests/notes/:note_id': String(mrNote.id),
    'snippets/notes/:note_id': String(snippetNote.id),
    'epics/notes/:note_id': String(epicNote.id),
    'snippets/:snippet_id': String(snippet.id),
    ':discussion_id': String(issueDiscussion.id),
    ':draft_note_id': String(draft.id),
    'labels/:label_id': String(label.id),
    'badges/:badge_id': String(badge.id),
    'uploads/:upload_id': String(upload.id),
    ':secret': String(upload.url ?? '').split('/')[2] ?? 'x',
    ':filename': 'notes.txt',
    ':feature_flag_name': String(flag.name ?? 'world_flag'),
    'feature_flags_user_lists/:iid': String(userList.iid ?? 1),
    ':integration_id': String(integration.id),
    ':alert_iid': '1',
    ':key_id': String(clientKey.id ?? 1),
    ':file_path': 'ci.yml',
    ':ref': 'main',
    ':target_project_id': String(other.id),
    ':target_group_id': String(subgroup.id),
    ':email': 'invitee%40example.com',
    'epics/:epic_iid': String(epic.iid),
    'epics/:epic_id': String(epic.id),
    ':epic_issue_id': String(epicIssue.id ?? 1),
    'epics/award_emoji/:award_id': String(award.id ?? 1),
    'issues/award_emoji/:award_id': String(awards.issue),
    'issues/notes/award_emoji/:award_id': String(awards.issueNote),
    'merge_requests/award_emoji/:award_id': String(awards.mr),
    'merge_requests/notes/award_emoji/:award_id': String(awards.mrNote),
    'snippets/award_emoji/:award_id': String(awards.snippet),
    'snippets/notes/award_emoji/:award_id': String(awards.snippetNote),
    'projects/milestones/:milestone_id': String(milestone.id),
    'groups/milestones/:milestone_id': String(groupMilestone.id),
    'issues/:eventable_id': String(issue.iid),
    'merge_requests/:eventable_id': String(mr.iid),
    ':issue_link_id': String(link.issue_link_id ?? 1),
    ':key': 'WORLD_VAR',
    'topics/:id': String(topic.id ?? 1),
    ':provider': 'ldapmain',
    ':branch': 'topic',
    ':tag_name': 'v1',
    ':sha': 'main',
    ':commit_id': 'main',
    ':event_id': '1',
    ':saml_group_name': 'world-saml',
    ':uid': 'world-uid',
    ':spam_log_id': '1',
    // The receiver URL of the integration: .../alerts/notify/<name>/<identifier>.json
    ':name': String(integration.url ?? '').split('/').at(-2) ?? 'x',
    ':identifier': (String(integration.url ?? '').split('/').at(-1) ?? 'x').replace(/\.json$/, ''),
  };
  void groupLabel;
  void groupBadge;
  void personalSnippet;

  const { owner, maintainer, developer, reporter, guest, nonMember, blocked, banned, idle, requester, member } = users;
  return {
    s,
    headers,
    userIds: {
      owner: owner.id,
      maintainer: maintainer.id,
      developer: developer.id,
      reporter: reporter.id,
      guest: guest.id,
      nonMember: nonMember.id,
      blocked: blocked.id,
      banned: banned.id,
      idle: idle.id,
      requester: requester.id,
      member: member.id,
      admin: 1,
    },
    group,
    subgroup,
    project,
    pathValues,
    secrets,
  };
}

/**
 * Fills a route pattern with the world's records: `/api/v4/projects/:id/issues/:issue_iid` ->
 * `/api/v4/projects/7/issues/1`. Alert receivers' `/:s1/.../:sN` and snippet raw paths'
 * `/:p0/...` take the project's full path; `*` takes a file name.
 */
export function pathFor(world: World, pattern: string, override: Record<string, string> = {}): string {
  // Git's smart HTTP names the repository `<project>.git`.
  const isGit = /\/(info\/refs|git-upload-pack|git-receive-pack)$/.test(pattern);
  const projectPath = `${world.project.path_with_namespace}${isGit ? '.git' : ''}`;
  let url = pattern.replace(/(\/:s\d+)+(?=\/)/, `/${projectPath}`).replace(/(\/:p\d+)+(?=\/)/, `/${projectPath}`);
  url = url.replace(/\/\*$/, '/a.txt');
  const segments = url.split('/');
  return segments
    .map((seg, i) => {
      if (!seg.startsWith(':')) return seg;
      if (override[seg] !== undefined) return override[seg];
      // `merge_requests/1/notes/:note_id` -> key `merge_requests/notes/:note_id`, then `notes/:note_id`, then `:note_id`;
      // `issues/1/notes/2/award_emoji/:award_id` -> `issues/notes/award_emoji/:award_id` first.
      const grandOwner = `${segments[i - 5]}/${segments[i - 3]}/${segments[i - 1]}/${seg}`;
      const owner = `${segments[i - 3]}/${segments[i - 1]}/${seg}`;
      return world.pathValues[grandOwner] ?? world.pathValues[owner] ?? world.pathValues[`${segments[i - 1]}/${seg}`] ?? world.pathValues[seg] ?? '1';
    })
    .join('/');
}

/** The one name a route is known by in the matrix and the reports: receivers' depths collapse. */
export function routeKey(method: string, url: string): string {
  const pattern = url
    .replace(/(\/:s\d+)+(?=\/)/, '/:namespace/:project')
    .replace(/(\/:p\d+)+(?=\/)/, '/:namespace/:project');
  return `${method} ${pattern}`;
}

/**
 * Routes in the order a walk over the world should take them: deleting a project or group
 * removes its repository from disk, which no database rollback restores, so those come last and
 * every other route meets the world's repository whole.
 */
export function inWalkOrder<R extends { method: string; url: string }>(routes: readonly R[]): R[] {
  const removesRepository = (r: R) => r.method === 'DELETE' && /^\/api\/v4\/(projects|groups)\/:id$/.test(r.url);
  return [...routes].sort((a, b) => Number(removesRepository(a)) - Number(removesRepository(b)));
}
