import type { TestService } from './service';

/**
 * A source instance for migrations, seeded through its API: a group tree (acme > platform >
 * infra) with members, labels, badges and epics (parents across the tree, notes), and projects
 * with issues (labels, notes, a confidential one, a closed one, an upload), merge requests with
 * notes and a thread, a snippet of two files, feature flags with a user list; milestones of the
 * group and of the project that an issue and a merge request carry; a git repository (a README on
 * `main`, a `fix-login` branch, a `v1.0` tag).
 */
export interface SeededSource {
  users: { alice: any; bob: any; carol: any };
  tokens: { alice: string; bob: string };
  groups: { acme: any; platform: any; infra: any };
  projects: { web: any; api: any };
  epics: { roadmap: any; q1: any; infraEpic: any };
  milestones: { release: any; sprint: any };
  upload: { markdown: string; url: string; bytes: string };
  /** An issue whose created_at was set in the past. */
  oldIssueCreatedAt: string;
}

async function ok<T = any>(res: Promise<{ status: number; body: T; text: string }>, what: string): Promise<T> {
  const r = await res;
  if (r.status >= 300) throw new Error(`seed ${what}: ${r.status} ${r.text}`);
  return r.body;
}

export async function seedSource(src: TestService, suffix = ''): Promise<SeededSource> {
  const alice = await src.createUser({ username: `alice${suffix}`, email: `alice${suffix}@example.com`, name: 'Alice Source' });
  const bob = await src.createUser({ username: `bob${suffix}`, email: `bob${suffix}@source.example`, name: 'Bob Source' });
  const carol = await src.createUser({ username: `carol${suffix}`, email: `carol${suffix}@source.example`, name: 'Carol Nowhere' });

  const acme = await src.createGroup({ name: 'Acme', path: `acme${suffix}`, description: 'The Acme group', visibility: 'internal' });
  const platform = await src.createGroup({ name: 'Platform', path: 'platform', parent_id: acme.id, description: 'Platform team' });
  const infra = await src.createGroup({ name: 'Infra', path: 'infra', parent_id: platform.id });
  await src.addMember('groups', acme.id, alice.user.id, 30);
  await src.addMember('groups', acme.id, carol.user.id, 20);
  await src.addMember('groups', platform.id, bob.user.id, 40);

  await ok(src.post(`/groups/${acme.id}/labels`, { name: 'bug', color: '#d9534f', description: 'Something broke' }), 'label');
  await ok(src.post(`/groups/${acme.id}/labels`, { name: 'feature', color: '#5cb85c' }), 'label');
  await ok(src.post(`/groups/${platform.id}/labels`, { name: 'infra::ops', color: '#428bca', description: 'Ops work' }), 'label');
  await ok(src.post(`/groups/${acme.id}/badges`, { link_url: 'https://ci.example.com/%{project_path}', image_url: 'https://ci.example.com/badge.svg', name: 'CI' }), 'badge');

  const roadmap = await ok(src.post(`/groups/${acme.id}/epics`, { title: 'Roadmap 2026', description: 'Everything we plan', labels: 'feature' }), 'epic');
  await ok(src.post(`/groups/${acme.id}/epics/${roadmap.id}/notes`, { body: 'Kick-off notes' }, { token: alice.token }), 'epic note');
  const q1 = await ok(src.post(`/groups/${acme.id}/epics`, { title: 'Q1 goals', parent_id: roadmap.id, labels: 'bug' }), 'epic');
  await ok(src.put(`/groups/${acme.id}/epics/${q1.iid}`, { state_event: 'close' }), 'close epic');
  const infraEpic = await ok(src.post(`/groups/${infra.id}/epics`, { title: 'Infra migration', parent_id: roadmap.id }), 'epic');

  const web = await src.createProject({ name: 'Web', path: 'web', namespace_id: acme.id, description: 'The web app', visibility: 'internal', initialize_with_readme: true });
  const api = await src.createProject({ name: 'API', path: 'api', namespace_id: platform.id });
  await src.addMember('projects', web.id, bob.user.id, 30);
  await ok(
    src.post(`/projects/${web.id}/repository/commits`, {
      branch: 'fix-login',
      start_branch: 'main',
      commit_message: 'Fix the login form',
      actions: [{ action: 'create', file_path: 'src/login.js', content: 'export const login = () => true;\n' }],
    }),
    'commit',
  );
  await ok(src.post(`/projects/${web.id}/repository/tags`, { tag_name: 'v1.0', ref: 'main', message: 'First release' }), 'tag');
  const release = await ok(src.post(`/groups/${acme.id}/milestones`, { title: 'Release 1', description: 'The first release', due_date: '2026-06-30' }), 'group milestone');
  const sprint = await ok(src.post(`/projects/${web.id}/milestones`, { title: 'Sprint 1', start_date: '2026-01-05', due_date: '2026-01-16' }), 'milestone');
  await ok(src.put(`/projects/${web.id}/milestones/${sprint.id}`, { state_event: 'close' }), 'close milestone');
  await ok(src.post(`/projects/${web.id}/labels`, { name: 'frontend', color: '#ff00ff', priority: 2 }), 'project label');
  await ok(src.post(`/projects/${web.id}/badges`, { link_url: 'https://docs.example.com', image_url: 'https://docs.example.com/b.svg' }), 'project badge');

  const form = new FormData();
  form.append('file', new Blob(['hello from the source']), 'notes.txt');
  const upload = await ok(src.api('POST', `/projects/${web.id}/uploads`, { multipart: form }), 'upload');

  const oldIssueCreatedAt = '2024-03-01T10:00:00.000Z';
  const i1 = await ok(
    src.post(`/projects/${web.id}/issues`, { title: 'Login broken', description: `Steps attached: ${upload.markdown}`, labels: 'bug,frontend', created_at: oldIssueCreatedAt, milestone_id: sprint.id }),
    'issue',
  );
  await ok(src.post(`/projects/${web.id}/issues/${i1.iid}/notes`, { body: 'I can reproduce it' }, { token: alice.token }), 'note');
  await ok(src.post(`/projects/${web.id}/issues/${i1.iid}/notes`, { body: `Log: ${upload.markdown}` }), 'note');
  const i2 = await ok(src.post(`/projects/${web.id}/issues`, { title: 'Secret plans', confidential: true }, { token: alice.token }), 'issue');
  await ok(src.put(`/projects/${web.id}/issues/${i2.iid}`, { state_event: 'close' }), 'close');
  await ok(src.post(`/projects/${web.id}/issues`, { title: 'Dark mode', labels: 'feature' }), 'issue');

  const mr1 = await ok(
    src.post(`/projects/${web.id}/merge_requests`, { source_branch: 'fix-login', target_branch: 'main', title: 'Fix login', labels: 'bug', milestone_id: release.id }, { token: bob.token }),
    'mr',
  );
  await ok(src.post(`/projects/${web.id}/merge_requests/${mr1.iid}/notes`, { body: 'Looks good' }, { token: alice.token }), 'mr note');
  const thread = await ok(src.post(`/projects/${web.id}/merge_requests/${mr1.iid}/discussions`, { body: 'Should we add a test?' }), 'thread');
  await ok(src.post(`/projects/${web.id}/merge_requests/${mr1.iid}/discussions/${thread.id}/notes`, { body: 'Added one' }, { token: bob.token }), 'reply');
  const mr2 = await ok(src.post(`/projects/${web.id}/merge_requests`, { source_branch: 'old', target_branch: 'main', title: 'Abandoned idea' }), 'mr');
  await ok(src.put(`/projects/${web.id}/merge_requests/${mr2.iid}`, { state_event: 'close' }), 'close mr');

  await ok(
    src.post(`/projects/${web.id}/snippets`, {
      title: 'Setup scripts',
      visibility: 'internal',
      files: [
        { file_path: 'setup.sh', content: 'echo setup\n' },
        { file_path: 'docs/README.md', content: '# How to set up\n' },
      ],
    }),
    'snippet',
  );

  const list = await ok(src.post(`/projects/${web.id}/feature_flags_user_lists`, { name: 'beta testers', user_xids: 'u1,u2' }), 'user list');
  await ok(
    src.post(`/projects/${web.id}/feature_flags`, {
      name: 'new_checkout',
      version: 'new_version_flag',
      description: 'The new checkout',
      strategies: [
        { name: 'gitlabUserList', parameters: {}, user_list_id: list.id, scopes: [{ environment_scope: 'production' }] },
        { name: 'default', parameters: {}, scopes: [{ environment_scope: 'staging' }] },
      ],
    }),
    'feature flag',
  );

  await ok(src.post(`/projects/${api.id}/issues`, { title: 'Rate limits' }), 'api issue');

  return {
    users: { alice: alice.user, bob: bob.user, carol: carol.user },
    tokens: { alice: alice.token, bob: bob.token },
    groups: { acme, platform, infra },
    projects: { web, api },
    epics: { roadmap, q1, infraEpic },
    milestones: { release, sprint },
    upload: { markdown: upload.markdown, url: upload.url, bytes: 'hello from the source' },
    oldIssueCreatedAt,
  };
}

/** Waits until the migration ends (any state but created/started); answers it. */
export async function waitForImport(dest: TestService, id: number, timeoutMs = 60_000, token?: string): Promise<any> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const res = await dest.get(`/bulk_imports/${id}`, { token });
    if (res.status !== 200) throw new Error(`GET /bulk_imports/${id}: ${res.status} ${res.text}`);
    if (!['created', 'started'].includes(res.body.status)) return res.body;
    if (Date.now() > end) throw new Error(`migration ${id} still ${res.body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
