import type { Role } from '../../helpers/world';

/**
 * Who may call each endpoint: one row per route (method + route pattern; alert receivers'
 * `/:s1/.../:sN` and snippet raw paths' `/:p0/...` collapse to `/:namespace/:project`).
 * `role-matrix.test.ts` walks every row for anonymous, a non-member, Guest ... Owner, an admin, a
 * blocked user, an expired token, a `read_api` token and a CI job token against a private group
 * and its private project, and asserts the status each gets. A route without a row fails that
 * test, which prints the row to add here.
 *
 * Sources: the seed's Authentication section (minimum roles), GitLab's `lib/api/*.rb`
 * (`authorize!`, `authenticated_as_admin!`) and policies. "Allowed" means the request passes
 * the guard (it may still answer 400 for missing parameters or 404 for a missing record).
 */
export type Rule =
  /** Anyone, even anonymous (public listings; private records stay hidden by visibility). */
  | { kind: 'anyone' }
  /** Any signed-in user (their own things: /user, /personal_access_tokens, creating a project). */
  | { kind: 'signedIn' }
  /** Administrators only (403 for everyone else signed in). */
  | { kind: 'admin' }
  /**
   * A role on the private project or group in the path. Non-members get 404 (the container is
   * hidden); members below `min` get `belowMin` (403 unless GitLab hides it as 404).
   */
  | { kind: 'member'; on: 'project' | 'group'; min: Role | 'author'; belowMin?: 401 | 403 | 404; nonMember?: 401 | 404 }
  /** Only users who are not members (access requests): in the private world nobody here may. */
  | { kind: 'outsiders' }
  /** Authenticates with its own key or HTTP Basic, not a token header (alert receivers, git smart HTTP): 401 for every caller here. */
  | { kind: 'ownKey' };

/**
 * Extra facts of a row. `body`: parameters every caller sends, so Grape's parameter validation
 * (which runs before any permission check, in GitLab as here) lets the request reach the guard.
 * String values `$<name>` are the world's user ids (`$nonMember`), `$group` its private group's id.
 * `query`: a query string the route needs to reach its guard.
 * `jobToken`: a route GitLab marks `job_token_allowed` (doc/ci/jobs/ci_job_token.md), where a job token
 * reads as its user; elsewhere it is no credential and the request is anonymous.
 * `readApi`: a POST that `read_api` allows.
 * `path`: path parameters to use instead of the world's usual records (`$<name>` as in `body`).
 */
export type Row = Rule & { jobToken?: true; body?: Record<string, unknown>; readApi?: 'allowed'; query?: string; path?: Record<string, string> };

const anyone: Row = { kind: 'anyone' };
const signedIn: Row = { kind: 'signedIn' };
const admin: Row = { kind: 'admin' };
const ownKey: Row = { kind: 'ownKey' };
const outsiders: Row = { kind: 'outsiders' };
/** GitLab checks a Prometheus payload's shape before its key: send a valid one. */
const prometheusReceiver: Row = {
  kind: 'ownKey',
  body: {
    version: '4',
    groupKey: 'g',
    status: 'firing',
    receiver: 'r',
    groupLabels: {},
    commonLabels: {},
    commonAnnotations: {},
    externalURL: 'http://prometheus.local',
    alerts: [{ status: 'firing', labels: { alertname: 'HighLoad' }, annotations: {}, startsAt: '2026-03-01T10:00:00Z' }],
  },
};
/** `min: 'author'`: no role suffices; the world's records are root's, so only admins pass. */
const project = (min: Role | 'author', belowMin: 401 | 403 | 404 = 403): Row => ({ kind: 'member', on: 'project', min, belowMin });
const group = (min: Role | 'author', belowMin: 401 | 403 | 404 = 403): Row => ({ kind: 'member', on: 'group', min, belowMin });
const withBody = (row: Row, body: Record<string, unknown>): Row => ({ ...row, body });
const samlLinks: Row = { kind: 'member', on: 'group', min: 'owner', belowMin: 401, nonMember: 401 };
/** GitLab takes a job token here (`route_setting :authentication, job_token_allowed: true`). */
const jobToken = (row: Row): Row => ({ ...row, jobToken: true });

/** Rows for both `/projects/:id/...` and `/groups/:id/...` forms of an endpoint. */
function both(suffix: string, rows: Record<string, [Role, Role?, Record<string, unknown>?]>): Record<string, Row> {
  const out: Record<string, Row> = {};
  for (const [method, [projectMin, groupMin, body]] of Object.entries(rows)) {
    out[`${method} /api/v4/projects/:id${suffix}`] = { ...project(projectMin), ...(body ? { body } : {}) };
    out[`${method} /api/v4/groups/:id${suffix}`] = { ...group(groupMin ?? projectMin), ...(body ? { body } : {}) };
  }
  return out;
}

export const ROLE_MATRIX: Record<string, Row> = {
  // --- instance -------------------------------------------------------------------------------
  'GET /api/v4/version': signedIn,
  'GET /api/v4/metadata': signedIn,
  'GET /api/v4/user': signedIn,
  'GET /api/v4/users': anyone,
  'GET /api/v4/users/:id': anyone,
  'POST /api/v4/users': withBody(admin, { email: 'new@example.com', username: 'new-user', name: 'New', password: 'Secret-pass-123' }),
  'PUT /api/v4/users/:id': admin,
  'DELETE /api/v4/users/:id': admin,
  'POST /api/v4/users/:id/block': admin,
  'POST /api/v4/users/:id/unblock': admin,
  // Only an account idle for 90 days can be deactivated (User#can_be_deactivated?).
  'POST /api/v4/users/:id/deactivate': { ...admin, path: { ':id': '$idle' } },
  'POST /api/v4/users/:id/activate': admin,
  'GET /api/v4/users/:user_id/memberships': admin,
  'POST /api/v4/users/:id/personal_access_tokens': admin,
  'GET /api/v4/personal_access_tokens': signedIn,
  'GET /api/v4/personal_access_tokens/self': signedIn,
  'GET /api/v4/personal_access_tokens/:id': signedIn,
  'DELETE /api/v4/personal_access_tokens/self': signedIn,
  'DELETE /api/v4/personal_access_tokens/:id': signedIn,
  'POST /api/v4/personal_access_tokens/self/rotate': signedIn,
  'POST /api/v4/personal_access_tokens/:id/rotate': signedIn,
  'GET /api/v4/namespaces': signedIn,
  'GET /api/v4/namespaces/:id': signedIn,
  'GET /api/v4/namespaces/:id/exists': signedIn,
  'GET /api/v4/events': signedIn,
  'GET /api/v4/users/:id/events': anyone,
  'GET /api/v4/notification_settings': signedIn,
  'PUT /api/v4/notification_settings': signedIn,
  // Anonymous callers only with scope=all (GitLab: `authenticate! unless params[:scope] == 'all'`).
  'GET /api/v4/issues': signedIn,
  'GET /api/v4/merge_requests': signedIn,
  'GET /api/v4/projects': anyone,
  'POST /api/v4/projects': signedIn,
  'GET /api/v4/users/:user_id/projects': anyone,
  'GET /api/v4/groups': anyone,
  'POST /api/v4/groups': signedIn,
  'GET /api/v4/snippets': signedIn,
  'GET /api/v4/snippets/public': signedIn,
  'GET /api/v4/snippets/all': signedIn,
  'GET /api/v4/snippets/:snippet_id': anyone,
  'POST /api/v4/snippets': signedIn,
  'PUT /api/v4/snippets/:snippet_id': signedIn,
  'DELETE /api/v4/snippets/:snippet_id': signedIn,
  'GET /api/v4/snippets/:snippet_id/raw': anyone,
  'GET /api/v4/snippets/:snippet_id/files/:ref/:file_path/raw': anyone,
  'GET /api/v4/snippets/:snippet_id/user_agent_detail': admin,
  'GET /api/v4/snippets/:snippet_id/revisions': anyone,
  'GET /-/snippets/:snippet_id/raw': anyone,
  'GET /-/snippets/:snippet_id/raw/:ref/*': anyone,
  'GET /api/v4/application/settings': admin,
  'PUT /api/v4/application/settings': admin,
  'GET /api/v4/sidekiq/queue_metrics': admin,
  'GET /api/v4/sidekiq/process_metrics': admin,
  'GET /api/v4/sidekiq/job_stats': admin,
  'GET /api/v4/sidekiq/compound_metrics': admin,
  'GET /api/v4/sandlab/spam_logs': admin,
  'GET /api/v4/sandlab/spam_logs/:spam_log_id': admin,
  'POST /api/v4/sandlab/job_tokens': admin,
  'DELETE /api/v4/sandlab/job_tokens/:token_id': admin,
  'POST /api/v4/ci/lint': anyone,
  'POST /api/v4/markdown': { ...anyone, readApi: 'allowed' },
  'GET /api/v4/service_accounts': admin,
  'POST /api/v4/service_accounts': admin,
  'PATCH /api/v4/service_accounts/:id': admin,

  // --- direct transfer (the caller's own migrations) ------------------------------------------
  'POST /api/v4/bulk_imports': signedIn,
  'GET /api/v4/bulk_imports': signedIn,
  'GET /api/v4/bulk_imports/entities': signedIn,
  'GET /api/v4/bulk_imports/:import_id': signedIn,
  'GET /api/v4/bulk_imports/:import_id/entities': signedIn,
  'GET /api/v4/bulk_imports/:import_id/entities/:entity_id': signedIn,
  'GET /api/v4/bulk_imports/:import_id/entities/:entity_id/failures': signedIn,
  'POST /api/v4/bulk_imports/:import_id/cancel': signedIn,
  'POST /api/v4/bulk_imports/:import_id/entities/:entity_id/retry': signedIn,
  'POST /api/v4/sandlab/bulk_imports/source_entities': signedIn,

  // --- repository imports: the target namespace's role is checked against the body ----------
  'POST /api/v4/import/github': signedIn,
  'POST /api/v4/import/github/cancel': signedIn,
  'POST /api/v4/import/github/gists': signedIn,
  'POST /api/v4/import/bitbucket_server': signedIn,
  'POST /api/v4/import/bitbucket': signedIn,
  'POST /api/v4/import/providera': signedIn,
  'POST /api/v4/import/providera/cancel': signedIn,
  'POST /api/v4/import/providera/gists': signedIn,
  'POST /api/v4/import/providerb_server': signedIn,
  'POST /api/v4/import/providerb': signedIn,
  'POST /api/v4/sandlab/import/github/repositories': signedIn,
  'POST /api/v4/sandlab/import/bitbucket_server/repositories': signedIn,
  'POST /api/v4/sandlab/import/bitbucket/repositories': signedIn,
  'GET /api/v4/sandlab/import/github/gists': signedIn,
  'GET /api/v4/sandlab/import/providera/gists': signedIn,
  'POST /api/v4/sandlab/import/providera/repositories': signedIn,
  'POST /api/v4/sandlab/import/providerb_server/repositories': signedIn,
  'POST /api/v4/sandlab/import/providerb/repositories': signedIn,
  'GET /api/v4/projects/:id/import': project('guest'),

  // --- groups -----------------------------------------------------------------------------------
  'GET /api/v4/groups/:id': group('guest'),
  'PUT /api/v4/groups/:id': group('owner'),
  'DELETE /api/v4/groups/:id': group('owner'),
  'GET /api/v4/groups/:id/subgroups': group('guest'),
  'GET /api/v4/groups/:id/descendant_groups': group('guest'),
  'GET /api/v4/groups/:id/projects': group('guest'),
  'GET /api/v4/groups/:id/issues': group('guest'),
  'GET /api/v4/groups/:id/merge_requests': group('guest'),
  'GET /api/v4/groups/:id/notification_settings': group('guest'),
  'PUT /api/v4/groups/:id/notification_settings': group('guest'),

  // --- projects ---------------------------------------------------------------------------------
  'GET /api/v4/projects/:id': project('guest'),
  'PUT /api/v4/projects/:id': withBody(project('maintainer'), { description: 'changed' }),
  'DELETE /api/v4/projects/:id': project('owner'),
  'POST /api/v4/projects/:id/archive': project('maintainer'),
  'POST /api/v4/projects/:id/unarchive': project('maintainer'),
  'GET /api/v4/projects/:id/events': project('guest'),
  'GET /api/v4/projects/:id/notification_settings': project('guest'),
  'PUT /api/v4/projects/:id/notification_settings': project('guest'),

  // --- members, access requests, invitations ------------------------------------------------
  // Group members are administered by Owners (:admin_group_member), project members by Maintainers.
  ...both('/members', { GET: ['guest'], POST: ['maintainer', 'owner', { user_id: '$nonMember', access_level: 10 }] }),
  ...both('/members/all', { GET: ['guest'] }),
  'GET /api/v4/projects/:id/users': project('guest'),
  ...both('/members/all/:user_id', { GET: ['guest'] }),
  ...both('/members/:user_id', { GET: ['guest'], PUT: ['maintainer', 'owner', { access_level: 20 }], DELETE: ['maintainer', 'owner'] }),
  ...both('/access_requests', { GET: ['maintainer', 'owner'] }),
  'POST /api/v4/projects/:id/access_requests': outsiders,
  'POST /api/v4/groups/:id/access_requests': outsiders,
  ...both('/access_requests/:user_id/approve', { PUT: ['maintainer', 'owner'] }),
  ...both('/access_requests/:user_id', { DELETE: ['maintainer', 'owner'] }),
  ...both('/invitations', { GET: ['maintainer', 'owner'], POST: ['maintainer', 'owner', { email: 'another@example.com', access_level: 10 }] }),
  ...both('/invitations/:email', { PUT: ['maintainer', 'owner'], DELETE: ['maintainer', 'owner'] }),

  // --- issues, merge requests, notes, discussions, draft notes ------------------------------
  'GET /api/v4/projects/:id/issues': project('guest'),
  'GET /api/v4/projects/:id/issues/:issue_iid': project('guest'),
  'GET /api/v4/projects/:id/issues/:issue_iid/user_agent_detail': admin,
  'POST /api/v4/projects/:id/issues': project('guest'),
  'PUT /api/v4/projects/:id/issues/:issue_iid': withBody(project('reporter'), { title: 'changed' }),
  'DELETE /api/v4/projects/:id/issues/:issue_iid': project('owner'),
  // No authorize!: MoveService's can_move? answers a caller without admin_issue 400 (issue-move-clone.test.ts).
  'POST /api/v4/projects/:id/issues/:issue_iid/move': signedIn,
  'POST /api/v4/projects/:id/issues/:issue_iid/clone': signedIn,
  // Time tracking (API::TimeTrackingEndpoints): authorize! admin_issue (Planner; the world's nearest is Reporter) or
  // admin_merge_request (Developer) to write, read_ to see time_stats; the duration is validated before the guard.
  'POST /api/v4/projects/:id/issues/:issue_iid/time_estimate': withBody(project('reporter'), { duration: '1h' }),
  'POST /api/v4/projects/:id/issues/:issue_iid/reset_time_estimate': project('reporter'),
  'POST /api/v4/projects/:id/issues/:issue_iid/add_spent_time': withBody(project('reporter'), { duration: '1h' }),
  'POST /api/v4/projects/:id/issues/:issue_iid/reset_spent_time': project('reporter'),
  'GET /api/v4/projects/:id/issues/:issue_iid/time_stats': project('guest'),
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/time_estimate': withBody(project('developer'), { duration: '1h' }),
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/reset_time_estimate': project('developer'),
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/add_spent_time': withBody(project('developer'), { duration: '1h' }),
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/reset_spent_time': project('developer'),
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/time_stats': project('guest'),
  'GET /api/v4/projects/:id/merge_requests': jobToken(project('guest')),
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid': jobToken(project('guest')),
  'POST /api/v4/projects/:id/merge_requests': withBody(project('developer'), { title: 'x', source_branch: 'a', target_branch: 'main' }),
  'PUT /api/v4/projects/:id/merge_requests/:merge_request_iid': withBody(project('developer'), { title: 'changed' }),
  // `unauthorized! unless merge_request.can_be_merged_by?(current_user)`: 401 below Developer.
  'PUT /api/v4/projects/:id/merge_requests/:merge_request_iid/merge': project('developer', 401),
  'DELETE /api/v4/projects/:id/merge_requests/:merge_request_iid': project('owner'),
  // A merge request's commits, diffs and versions are read with it (:read_merge_request).
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/commits': project('guest'),
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/changes': project('guest'),
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/diffs': project('guest'),
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/raw_diffs': project('guest'),
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/versions': project('guest'),
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/versions/:version_id': project('guest'),
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/merge_ref': project('guest'),
  // authorize_push_to_merge_request!: push access to the source branch.
  'PUT /api/v4/projects/:id/merge_requests/:merge_request_iid/rebase': { ...project('developer'), path: { ':merge_request_iid': '2' } },
  ...notesRows('/projects/:id/issues/:noteable_iid'),
  ...notesRows('/projects/:id/merge_requests/:noteable_iid'),
  // A job token reads a merge request's notes (not an issue's).
  'GET /api/v4/projects/:id/merge_requests/:noteable_iid/notes': jobToken(project('guest')),
  'GET /api/v4/projects/:id/merge_requests/:noteable_iid/notes/:note_id': jobToken(project('guest')),
  ...discussionRows('/projects/:id/issues/:noteable_iid'),
  ...discussionRows('/projects/:id/merge_requests/:noteable_iid'),
  'GET /api/v4/projects/:id/merge_requests/:noteable_iid/draft_notes': project('guest'),
  'GET /api/v4/projects/:id/merge_requests/:noteable_iid/draft_notes/:draft_note_id': project('guest'),
  'POST /api/v4/projects/:id/merge_requests/:noteable_iid/draft_notes': project('guest'),
  'PUT /api/v4/projects/:id/merge_requests/:noteable_iid/draft_notes/:draft_note_id': project('guest'),
  'DELETE /api/v4/projects/:id/merge_requests/:noteable_iid/draft_notes/:draft_note_id': project('guest'),
  'PUT /api/v4/projects/:id/merge_requests/:noteable_iid/draft_notes/:draft_note_id/publish': project('guest'),
  'POST /api/v4/projects/:id/merge_requests/:noteable_iid/draft_notes/bulk_publish': project('guest'),

  // --- snippets (project) -----------------------------------------------------------------
  'GET /api/v4/projects/:id/snippets': project('guest'),
  'GET /api/v4/projects/:id/snippets/:snippet_id': project('guest'),
  'POST /api/v4/projects/:id/snippets': withBody(project('reporter'), { title: 's', visibility: 'private', files: [{ file_path: 'x.txt', content: 'x' }] }),
  // The author or a Maintainer (:admin_snippet); the world's snippet is root's.
  'PUT /api/v4/projects/:id/snippets/:snippet_id': project('maintainer'),
  'DELETE /api/v4/projects/:id/snippets/:snippet_id': project('maintainer'),
  'GET /api/v4/projects/:id/snippets/:snippet_id/raw': project('guest'),
  'GET /api/v4/projects/:id/snippets/:snippet_id/files/:ref/:file_path/raw': project('guest'),
  'GET /api/v4/projects/:id/snippets/:snippet_id/user_agent_detail': admin,
  'GET /api/v4/projects/:id/snippets/:snippet_id/revisions': project('guest'),
  'GET /:namespace/:project/-/snippets/:snippet_id/raw': project('guest'),
  'GET /:namespace/:project/-/snippets/:snippet_id/raw/:ref/*': project('guest'),
  // Snippet notes: only the author edits (Note#update_note), a Maintainer may delete.
  ...notesRows('/projects/:id/snippets/:snippet_id', 'author'),
  ...discussionRows('/projects/:id/snippets/:snippet_id', false),

  // --- uploads (seed: list, download by id, delete: Maintainer; by secret: Guest) ------------
  'POST /api/v4/projects/:id/uploads': project('guest'),
  'GET /api/v4/projects/:id/uploads': project('maintainer'),
  'GET /api/v4/projects/:id/uploads/:upload_id': project('maintainer'),
  'GET /api/v4/projects/:id/uploads/:secret/:filename': project('guest'),
  'DELETE /api/v4/projects/:id/uploads/:upload_id': project('maintainer'),
  'DELETE /api/v4/projects/:id/uploads/:secret/:filename': project('maintainer'),
  'GET /-/project/:id/uploads/:secret/:filename': project('guest'),
  'GET /api/v4/projects/:id/sandlab/uploads/:upload_id': project('maintainer'),

  // --- badges -------------------------------------------------------------------------------
  ...both('/badges', { GET: ['guest'], POST: ['maintainer'] }),
  ...both('/badges/render', { GET: ['maintainer'] }),
  ...both('/badges/:badge_id', { GET: ['guest'], PUT: ['maintainer'], DELETE: ['maintainer'] }),

  // --- labels -------------------------------------------------------------------------------
  ...both('/labels', { GET: ['guest'], POST: ['reporter'], PUT: ['reporter', 'reporter', { name: 'bug', new_name: 'bug2' }], DELETE: ['reporter', 'reporter', { name: 'bug' }] }),
  ...both('/labels/:label_id', { GET: ['guest'], PUT: ['reporter'], DELETE: ['reporter'] }),
  ...both('/labels/:label_id/subscribe', { POST: ['guest'] }),
  ...both('/labels/:label_id/unsubscribe', { POST: ['guest'] }),
  // Promoting makes a group label: :admin_label on the group (Planner and up there; the world's roles are the group's).
  'PUT /api/v4/projects/:id/labels/:label_id/promote': project('reporter'),
  'PUT /api/v4/projects/:id/labels/promote': project('reporter'),

  // --- job token scope (seed: Maintainer; job tokens never) ---------------------------------
  'GET /api/v4/projects/:id/job_token_scope': project('maintainer'),
  'PATCH /api/v4/projects/:id/job_token_scope': project('maintainer'),
  'GET /api/v4/projects/:id/job_token_scope/allowlist': project('maintainer'),
  'POST /api/v4/projects/:id/job_token_scope/allowlist': project('maintainer'),
  'DELETE /api/v4/projects/:id/job_token_scope/allowlist/:target_project_id': project('maintainer'),
  'GET /api/v4/projects/:id/job_token_scope/groups_allowlist': project('maintainer'),
  'POST /api/v4/projects/:id/job_token_scope/groups_allowlist': project('maintainer'),
  'DELETE /api/v4/projects/:id/job_token_scope/groups_allowlist/:target_group_id': project('maintainer'),

  // --- feature flags (seed: Developer) ------------------------------------------------------
  'GET /api/v4/projects/:id/feature_flags': project('developer'),
  'POST /api/v4/projects/:id/feature_flags': project('developer'),
  'GET /api/v4/projects/:id/feature_flags/:feature_flag_name': project('developer'),
  'PUT /api/v4/projects/:id/feature_flags/:feature_flag_name': project('developer'),
  'DELETE /api/v4/projects/:id/feature_flags/:feature_flag_name': project('developer'),
  'GET /api/v4/projects/:id/feature_flags_user_lists': project('developer'),
  'POST /api/v4/projects/:id/feature_flags_user_lists': project('developer'),
  'GET /api/v4/projects/:id/feature_flags_user_lists/:iid': project('developer'),
  'PUT /api/v4/projects/:id/feature_flags_user_lists/:iid': project('developer'),
  'DELETE /api/v4/projects/:id/feature_flags_user_lists/:iid': project('developer'),

  // --- alerts (seed: integrations Maintainer, test alert Developer) ---------------------------
  'GET /api/v4/projects/:id/alert_management/integrations': project('maintainer'),
  'POST /api/v4/projects/:id/alert_management/integrations': project('maintainer'),
  'GET /api/v4/projects/:id/alert_management/integrations/:integration_id': project('maintainer'),
  'PUT /api/v4/projects/:id/alert_management/integrations/:integration_id': project('maintainer'),
  'DELETE /api/v4/projects/:id/alert_management/integrations/:integration_id': project('maintainer'),
  'POST /api/v4/projects/:id/alert_management/integrations/:integration_id/reset_token': project('maintainer'),
  'POST /api/v4/projects/:id/alert_management/integrations/:integration_id/test': project('developer'),
  'GET /api/v4/projects/:id/alert_management/alerts': project('developer'),
  'GET /api/v4/projects/:id/alert_management/alerts/:alert_iid': project('developer'),
  'PUT /api/v4/projects/:id/alert_management/alerts/:alert_iid': project('developer'),
  'GET /api/v4/projects/:id/alert_management/alerts/:alert_iid/notes': project('developer'),
  'POST /:namespace/:project/alerts/notify': ownKey,
  'POST /:namespace/:project/alerts/notify.json': ownKey,
  'POST /:namespace/:project/alerts/notify/:name/:identifier': ownKey,
  'POST /:namespace/:project/prometheus/alerts/notify': prometheusReceiver,
  'POST /:namespace/:project/prometheus/alerts/notify.json': prometheusReceiver,
  'POST /:namespace/:project/prometheus/alerts/notify/:name/:identifier': prometheusReceiver,

  // --- error tracking (seed: Maintainer) ------------------------------------------------------
  'GET /api/v4/projects/:id/error_tracking/settings': project('maintainer'),
  'PATCH /api/v4/projects/:id/error_tracking/settings': project('maintainer'),
  'PUT /api/v4/projects/:id/error_tracking/settings': project('maintainer'),
  'GET /api/v4/projects/:id/error_tracking/client_keys': project('maintainer'),
  'POST /api/v4/projects/:id/error_tracking/client_keys': project('maintainer'),
  'DELETE /api/v4/projects/:id/error_tracking/client_keys/:key_id': project('maintainer'),

  // --- CI lint ---------------------------------------------------------------------------------
  // Reading the project's CI file is :download_code (Reporter); a dry run would need Developer.
  'GET /api/v4/projects/:id/ci/lint': project('reporter'),
  'POST /api/v4/projects/:id/ci/lint': project('developer'),

  // --- group service accounts (seed: Owner of the group) -------------------------------------
  'GET /api/v4/groups/:id/service_accounts': group('owner'),
  'POST /api/v4/groups/:id/service_accounts': group('owner'),
  'GET /api/v4/groups/:id/service_accounts/:user_id': group('owner'),
  'PATCH /api/v4/groups/:id/service_accounts/:user_id': group('owner'),
  'DELETE /api/v4/groups/:id/service_accounts/:user_id': group('owner'),
  'GET /api/v4/groups/:id/service_accounts/:user_id/personal_access_tokens': group('owner'),
  'POST /api/v4/groups/:id/service_accounts/:user_id/personal_access_tokens': group('owner'),
  'DELETE /api/v4/groups/:id/service_accounts/:user_id/personal_access_tokens/:token_id': group('owner'),
  'POST /api/v4/groups/:id/service_accounts/:user_id/personal_access_tokens/:token_id/rotate': group('owner'),

  // --- SAML (Owner of the group) ----------------------------------------------------------
  // The link endpoints answer `unauthorized!` (401) to anyone who may not admin them, hidden group or not.
  'GET /api/v4/groups/:id/saml/identities': group('owner'),
  'GET /api/v4/groups/:id/saml/:uid': group('owner'),
  'PATCH /api/v4/groups/:id/saml/:uid': group('owner'),
  'DELETE /api/v4/groups/:id/saml/:uid': group('owner'),
  'GET /api/v4/groups/:id/saml_group_links': samlLinks,
  'GET /api/v4/groups/:id/saml_group_links/:saml_group_name': samlLinks,
  'POST /api/v4/groups/:id/saml_group_links': withBody(samlLinks, { saml_group_name: 'another', access_level: 10 }),
  'DELETE /api/v4/groups/:id/saml_group_links/:saml_group_name': samlLinks,

  // --- git smart HTTP: git authenticates with HTTP Basic (username + token as password), which
  // test/service/git-http.test.ts drives; a PRIVATE-TOKEN header is no git credential, so every
  // caller here is anonymous to git and a private project's repository asks for credentials.
  'GET /:namespace/:project/info/refs': { ...ownKey, query: 'service=git-upload-pack' },
  'POST /:namespace/:project/git-upload-pack': ownKey,
  'POST /:namespace/:project/git-receive-pack': ownKey,

  // --- milestones (read: Guest; :admin_milestone is Planner, the role between Guest and Reporter) -
  ...both('/milestones', { GET: ['guest'], POST: ['reporter', 'reporter', { title: 'another milestone' }] }),
  ...both('/milestones/:milestone_id', { GET: ['guest'], PUT: ['reporter', 'reporter', { title: 'changed' }], DELETE: ['reporter'] }),
  ...both('/milestones/:milestone_id/issues', { GET: ['guest'] }),
  ...both('/milestones/:milestone_id/merge_requests', { GET: ['guest'] }),
  // Promoting makes a group milestone: :admin_milestone on the group.
  'POST /api/v4/projects/:id/milestones/:milestone_id/promote': project('reporter'),

  // --- resource events (read_issue / read_merge_request) ---------------------------------------
  ...resourceEventRows('issues', ['label', 'state', 'weight', 'milestone']),
  ...resourceEventRows('merge_requests', ['label', 'state', 'milestone']),

  // --- issue relations, subscriptions, to-dos --------------------------------------------------
  // :admin_issue_link is Guest on both issues (IssueLinks::CreateService).
  'GET /api/v4/projects/:id/issues/:issue_iid/links': project('guest'),
  'POST /api/v4/projects/:id/issues/:issue_iid/links': withBody(project('guest'), { target_project_id: 'world/place', target_issue_iid: 3 }),
  'GET /api/v4/projects/:id/issues/:issue_iid/links/:issue_link_id': project('guest'),
  'DELETE /api/v4/projects/:id/issues/:issue_iid/links/:issue_link_id': project('guest'),
  'GET /api/v4/projects/:id/issues/:issue_iid/participants': project('guest'),
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/participants': project('guest'),
  'GET /api/v4/projects/:id/issues/:issue_iid/closed_by': project('guest'),
  'GET /api/v4/projects/:id/issues/:issue_iid/related_merge_requests': project('guest'),
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/closes_issues': project('guest'),
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/related_issues': project('guest'),
  'POST /api/v4/projects/:id/issues/:issue_iid/subscribe': project('guest'),
  'POST /api/v4/projects/:id/issues/:issue_iid/unsubscribe': project('guest'),
  'POST /api/v4/projects/:id/issues/:issue_iid/todo': project('guest'),
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/subscribe': project('guest'),
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/unsubscribe': project('guest'),
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/todo': project('guest'),
  'GET /api/v4/todos': signedIn,
  'POST /api/v4/todos/:id/mark_as_done': signedIn,
  'POST /api/v4/todos/mark_as_done': signedIn,

  // --- award emoji (read with the awardable; only whoever awarded removes: `unauthorized!`) -----
  ...awardRows('/projects/:id/issues/:issue_iid'),
  ...awardRows('/projects/:id/issues/:issue_iid/notes/:note_id'),
  ...awardRows('/projects/:id/merge_requests/:merge_request_iid'),
  ...awardRows('/projects/:id/merge_requests/:merge_request_iid/notes/:note_id'),
  ...awardRows('/projects/:id/snippets/:snippet_id'),
  ...awardRows('/projects/:id/snippets/:snippet_id/notes/:note_id'),

  // --- repository: reading code is :download_code (Reporter on a private project), writing it
  // is :push_code (Developer); tags are :admin_tag (Developer).
  'GET /api/v4/projects/:id/repository/branches': jobToken(project('reporter')),
  'GET /api/v4/projects/:id/repository/branches/:branch': project('reporter'),
  'POST /api/v4/projects/:id/repository/branches': withBody(project('developer'), { branch: 'another', ref: 'main' }),
  'DELETE /api/v4/projects/:id/repository/branches/:branch': project('developer'),
  'DELETE /api/v4/projects/:id/repository/merged_branches': project('developer'),
  'GET /api/v4/projects/:id/repository/tags': jobToken(project('reporter')),
  'GET /api/v4/projects/:id/repository/tags/:tag_name': project('reporter'),
  'POST /api/v4/projects/:id/repository/tags': withBody(project('developer'), { tag_name: 'v2', ref: 'main' }),
  'DELETE /api/v4/projects/:id/repository/tags/:tag_name': project('developer'),
  'GET /api/v4/projects/:id/repository/commits': project('reporter'),
  'POST /api/v4/projects/:id/repository/commits': withBody(project('developer'), {
    branch: 'main',
    commit_message: 'add',
    actions: [{ action: 'create', file_path: 'added.txt', content: 'x' }],
  }),
  'GET /api/v4/projects/:id/repository/commits/:sha': jobToken(project('reporter')),
  'GET /api/v4/projects/:id/repository/commits/:sha/diff': project('reporter'),
  'GET /api/v4/projects/:id/repository/commits/:sha/refs': project('reporter'),
  'GET /api/v4/projects/:id/repository/files/:file_path': { ...project('reporter'), query: 'ref=main' },
  'GET /api/v4/projects/:id/repository/files/:file_path/raw': jobToken(project('reporter')),
  'GET /api/v4/projects/:id/repository/files/:file_path/blame': { ...project('reporter'), query: 'ref=main' },
  'POST /api/v4/projects/:id/repository/files/:file_path': withBody(project('developer'), { branch: 'main', content: 'x', commit_message: 'add' }),
  'PUT /api/v4/projects/:id/repository/files/:file_path': withBody(project('developer'), { branch: 'main', content: 'y', commit_message: 'change' }),
  'DELETE /api/v4/projects/:id/repository/files/:file_path': withBody(project('developer'), { branch: 'main', commit_message: 'remove' }),
  'GET /api/v4/projects/:id/repository/tree': project('reporter'),
  'GET /api/v4/projects/:id/repository/blobs/:sha': project('reporter'),
  'GET /api/v4/projects/:id/repository/blobs/:sha/raw': project('reporter'),
  'GET /api/v4/projects/:id/repository/archive': project('reporter'),
  'GET /api/v4/projects/:id/repository/archive.:format': project('reporter'),
  'GET /api/v4/projects/:id/repository/compare': { ...project('reporter'), query: 'from=main&to=topic' },
  'GET /api/v4/projects/:id/repository/contributors': project('reporter'),
  'GET /api/v4/projects/:id/languages': project('guest'),
  'GET /api/v4/projects/:id/repository/merge_base': { ...project('reporter'), query: 'refs[]=main&refs[]=topic' },
  // Cherry-pick and revert are pushes (authorize_push_to_branch!); statuses are :create_commit_status (Developer).
  'POST /api/v4/projects/:id/repository/commits/:sha/cherry_pick': withBody(project('developer'), { branch: 'topic' }),
  'POST /api/v4/projects/:id/repository/commits/:sha/revert': withBody(project('developer'), { branch: 'topic' }),
  'GET /api/v4/projects/:id/repository/commits/:sha/merge_requests': jobToken(project('reporter')),
  'GET /api/v4/projects/:id/repository/commits/:sha/signature': project('reporter'),
  'GET /api/v4/projects/:id/repository/commits/:sha/statuses': project('reporter'),
  'POST /api/v4/projects/:id/statuses/:sha': withBody(project('developer'), { state: 'success' }),
  // A commit's notes need its code readable first (find_noteable's :download_code).
  'GET /api/v4/projects/:id/repository/commits/:commit_id/comments': project('reporter'),
  'POST /api/v4/projects/:id/repository/commits/:commit_id/comments': withBody(project('reporter'), { note: 'x' }),
  ...commitDiscussionRows('/projects/:id/repository/commits/:commit_id'),
  'GET /api/v4/projects/:id/snapshot': admin,

  // --- user states, identities, status, activities ---------------------------------------------
  'POST /api/v4/users/:id/ban': admin,
  // Only a banned account can be unbanned (Users::UnbanService answers 403 otherwise).
  'POST /api/v4/users/:id/unban': { ...admin, path: { ':id': '$banned' } },
  'DELETE /api/v4/users/:id/identities/:provider': admin,
  'GET /api/v4/user/activities': admin,
  'GET /api/v4/user/status': signedIn,
  'PUT /api/v4/user/status': signedIn,
  'PATCH /api/v4/user/status': signedIn,
  'GET /api/v4/users/:id/status': anyone,

  // --- search (`authenticate!`, then what the caller can see of the group or project) -------------
  'GET /api/v4/search': { ...signedIn, query: 'scope=users&search=root' },
  'GET /api/v4/groups/:id/search': { ...group('guest'), query: 'scope=projects&search=world' },
  'GET /api/v4/projects/:id/search': { ...project('guest'), query: 'scope=issues&search=world' },

  // --- avatars (files at GitLab's upload URLs: a private owner's stays hidden from those who cannot see it) --
  'GET /uploads/-/system/user/avatar/:owner_id/:filename': anyone,
  'GET /uploads/-/system/group/avatar/:owner_id/:filename': anyone,
  'GET /uploads/-/system/project/avatar/:owner_id/:filename': anyone,
  'GET /uploads/-/system/projects/topic/avatar/:owner_id/:filename': anyone,
  'GET /api/v4/groups/:id/avatar': group('guest'),
  'GET /api/v4/projects/:id/avatar': project('guest'),
  'PUT /api/v4/user/avatar': signedIn,

  // --- topics (read by anyone; written by administrators) --------------------------------------
  'GET /api/v4/topics': anyone,
  'GET /api/v4/topics/:id': anyone,
  'POST /api/v4/topics': withBody(admin, { name: 'another-topic', title: 'Another topic' }),
  'PUT /api/v4/topics/:id': admin,
  'DELETE /api/v4/topics/:id': admin,
  'POST /api/v4/topics/merge': admin,

  // --- CI/CD variables (:admin_cicd_variables: project Maintainer, group Owner; instance admin) --
  ...both('/variables', { GET: ['maintainer', 'owner'], POST: ['maintainer', 'owner', { key: 'ANOTHER_VAR', value: 'v' }] }),
  ...both('/variables/:key', { GET: ['maintainer', 'owner'], PUT: ['maintainer', 'owner', { value: 'changed' }], DELETE: ['maintainer', 'owner'] }),
  'GET /api/v4/admin/ci/variables': admin,
  'GET /api/v4/admin/ci/variables/:key': admin,
  'POST /api/v4/admin/ci/variables': withBody(admin, { key: 'ANOTHER_VAR', value: 'v' }),
  'PUT /api/v4/admin/ci/variables/:key': withBody(admin, { value: 'changed' }),
  'DELETE /api/v4/admin/ci/variables/:key': admin,

  // --- epics (group) --------------------------------------------------------------------------
  ...epicRows('/groups/:id/epics'),
  ...epicRows('/groups/:id/-/epics'),

  // --- transfers, stars, project groups (change_namespace: Owner; read_project for the rest) ------
  'POST /api/v4/groups/:id/transfer': group('owner'),
  'GET /api/v4/users/:user_id/starred_projects': anyone,
  'GET /api/v4/projects/:id/groups': project('guest'),
  // Sharing with groups. POST .../projects/:id/share: authorize! :admin_project, then the invited group
  // (an unknown one: 404 Not Found for those past the guard).
  'POST /api/v4/projects/:id/share': withBody(project('maintainer'), { group_id: 999999, group_access: 30 }),
  'DELETE /api/v4/projects/:id/share/:group_id': project('maintainer'),
  'GET /api/v4/projects/:id/share_locations': project('guest'),
  'GET /api/v4/projects/:id/invited_groups': project('guest'),
  // POST .../groups/:id/share guards only read_group (find_group!); Groups::GroupLinks::CreateService refuses
  // non-Owners with 404 "Not Found" (group-links.test.ts). Shared with itself here, so the group is readable.
  'POST /api/v4/groups/:id/share': withBody(group('guest'), { group_id: '$group', group_access: 30 }),
  // No guard but read_group: a missing link's 404 first; DestroyService deletes only for Owners (group-links.test.ts).
  'DELETE /api/v4/groups/:id/share/:group_id': group('guest'),
  'GET /api/v4/groups/:id/groups/shared': group('guest'),
  'GET /api/v4/groups/:id/invited_groups': group('guest'),
  'PUT /api/v4/projects/:id/transfer': project('owner'),
  'POST /api/v4/projects/:id/star': project('guest'),
  'POST /api/v4/projects/:id/unstar': project('guest'),
  'GET /api/v4/projects/:id/starrers': project('guest'),

  // --- custom attributes (admin only), SSH keys and e-mails (own: signed in; others': admin) --
  'GET /api/v4/users/:id/custom_attributes': admin,
  'GET /api/v4/users/:id/custom_attributes/:key': admin,
  'PUT /api/v4/users/:id/custom_attributes/:key': admin,
  'DELETE /api/v4/users/:id/custom_attributes/:key': admin,
  'GET /api/v4/groups/:id/custom_attributes': admin,
  'GET /api/v4/groups/:id/custom_attributes/:key': admin,
  'PUT /api/v4/groups/:id/custom_attributes/:key': admin,
  'DELETE /api/v4/groups/:id/custom_attributes/:key': admin,
  'GET /api/v4/projects/:id/custom_attributes': admin,
  'GET /api/v4/projects/:id/custom_attributes/:key': admin,
  'PUT /api/v4/projects/:id/custom_attributes/:key': admin,
  'DELETE /api/v4/projects/:id/custom_attributes/:key': admin,
  'GET /api/v4/user/keys': signedIn,
  'POST /api/v4/user/keys': signedIn,
  'GET /api/v4/user/keys/:key_id': signedIn,
  'DELETE /api/v4/user/keys/:key_id': signedIn,
  'GET /api/v4/users/:id/keys': anyone,
  'GET /api/v4/users/:id/keys/:key_id': anyone,
  'POST /api/v4/users/:id/keys': admin,
  'DELETE /api/v4/users/:id/keys/:key_id': admin,
  'GET /api/v4/keys': admin,
  'GET /api/v4/keys/:key_id': admin,
  'GET /api/v4/user/emails': signedIn,
  'POST /api/v4/user/emails': signedIn,
  'GET /api/v4/user/emails/:email_id': signedIn,
  'DELETE /api/v4/user/emails/:email_id': signedIn,
  'GET /api/v4/users/:id/emails': admin,
  'POST /api/v4/users/:id/emails': admin,
  'DELETE /api/v4/users/:id/emails/:email_id': admin,
};

/**
 * Notes: any reader comments; editing and deleting someone else's note (the world's are root's)
 * takes `update` / `remove` (a Maintainer, or 'author' where only its author may).
 */
function notesRows(base: string, update: Role | 'author' = 'maintainer', remove: Role | 'author' = 'maintainer', on: 'project' | 'group' = 'project'): Record<string, Row> {
  const p = `/api/v4${base}/notes`;
  const role = on === 'project' ? project : group;
  return {
    [`GET ${p}`]: role('guest'),
    [`GET ${p}/:note_id`]: role('guest'),
    [`POST ${p}`]: role('guest'),
    [`PUT ${p}/:note_id`]: withBody(role(update), { body: 'changed' }),
    [`DELETE ${p}/:note_id`]: role(remove),
  };
}

/** Snippet threads have no `GET .../:discussion_id/notes` nor `PUT .../:discussion_id` (resolve). */
function discussionRows(base: string, resolvable = true): Record<string, Row> {
  const p = `/api/v4${base}/discussions`;
  const rows: Record<string, Row> = {
    [`GET ${p}`]: project('guest'),
    [`GET ${p}/:discussion_id`]: project('guest'),
    [`POST ${p}`]: project('guest'),
    [`GET ${p}/:discussion_id/notes`]: project('guest'),
    [`POST ${p}/:discussion_id/notes`]: project('guest'),
    [`PUT ${p}/:discussion_id`]: project('guest'),
    [`GET ${p}/:discussion_id/notes/:note_id`]: project('guest'),
    [`PUT ${p}/:discussion_id/notes/:note_id`]: project('guest'),
    [`DELETE ${p}/:discussion_id/notes/:note_id`]: project('guest'),
  };
  if (!resolvable) {
    delete rows[`GET ${p}/:discussion_id/notes`];
    delete rows[`PUT ${p}/:discussion_id`];
  }
  return rows;
}

/** Threads on a commit: every call reads the commit's code first (Reporter on a private project). */
function commitDiscussionRows(base: string): Record<string, Row> {
  return Object.fromEntries(Object.entries(discussionRows(base)).map(([route, row]) => [route, { ...row, ...project('reporter') }]));
}

function epicRows(base: string): Record<string, Row> {
  const p = `/api/v4${base}`;
  return {
    [`GET ${p}`]: group('guest'),
    [`GET ${p}/:epic_iid`]: group('guest'),
    [`POST ${p}`]: withBody(group('reporter'), { title: 'another epic' }),
    [`PUT ${p}/:epic_iid`]: group('guest'),
    [`DELETE ${p}/:epic_iid`]: group('owner'),
    [`POST ${p}/:epic_iid/todo`]: group('guest'),
    [`GET ${p}/:epic_iid/award_emoji`]: group('guest'),
    [`POST ${p}/:epic_iid/award_emoji`]: group('guest'),
    // Only whoever awarded it (root here) removes an award.
    [`DELETE ${p}/:epic_iid/award_emoji/:award_id`]: group('author'),
    [`GET ${p}/:epic_id/resource_label_events`]: group('guest'),
    [`GET ${p}/:epic_id/resource_label_events/:event_id`]: group('guest'),
    ...notesRows(`${base}/:epic_id`, 'author', 'maintainer', 'group'),
    [`GET ${p}/:epic_iid/issues`]: group('guest'),
    [`POST ${p}/:epic_iid/issues/:issue_id`]: group('reporter'),
    [`DELETE ${p}/:epic_iid/issues/:epic_issue_id`]: group('reporter'),
    [`PUT ${p}/:epic_iid/issues/:epic_issue_id`]: group('reporter'),
  };
}

function resourceEventRows(issuables: 'issues' | 'merge_requests', kinds: string[]): Record<string, Row> {
  const rows: Record<string, Row> = {};
  for (const kind of kinds) {
    const p = `/api/v4/projects/:id/${issuables}/:eventable_id/resource_${kind}_events`;
    rows[`GET ${p}`] = project('guest');
    rows[`GET ${p}/:event_id`] = project('guest');
  }
  return rows;
}

/** The world's awards are root's: everyone else's DELETE answers 401, as GitLab's `unauthorized!`. */
function awardRows(base: string): Record<string, Row> {
  const p = `/api/v4${base}/award_emoji`;
  return {
    [`GET ${p}`]: project('guest'),
    [`GET ${p}/:award_id`]: project('guest'),
    [`POST ${p}`]: withBody(project('guest'), { name: 'tada' }),
    [`DELETE ${p}/:award_id`]: project('author', 401),
  };
}
