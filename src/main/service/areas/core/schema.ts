import type { Migration } from '../../db/migrations';
import { featureAccessMigration, featureLevelsVersionMigration } from './feature-access';
import { projectsListedVersionMigration } from './project-list-version';
import { labelRowAuthorsMigration } from './label-row-mirrors';
import { projectWritesMigration } from './project-rows';
import { idDateZonesMigration } from './id-date-zones';
import { issueUserAgentDetailsMigration } from './user-agent-details';
import { groupLinksMigration } from './group-links';

/**
 * core/071's lag bucket of a record (created_at, updated_at), as its indexes hold it: frozen with
 * the migration (its text is hashed). db/date-lag.ts's dateLag('') writes the same (a test checks).
 */
export const DATE_LAG_071 = `(CASE WHEN created_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]Z' AND strftime('%Y-%m-%dT%H:%M:%fZ', created_at) = created_at AND updated_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]Z' AND strftime('%Y-%m-%dT%H:%M:%fZ', updated_at) = updated_at THEN CASE WHEN updated_at < created_at THEN -1 WHEN updated_at = created_at THEN 0 ELSE min(13, 1 + max(0, CAST(log(8, (julianday(updated_at) - julianday(created_at)) * 86400) AS INTEGER))) END END)`;

/**
 * The ground every area stands on: users, tokens, namespaces, projects, members, issues, MRs, notes, events.
 * Ids are AUTOINCREMENT in every area: GitLab never hands a deleted record's id to a new one.
 */
/** The characters JavaScript's `\s` matches (isDraftTitle's leading white space), as an SQL string. */
const WHITE_SPACE_090 = 'char(9, 10, 11, 12, 13, 32, 160, 5760, 8192, 8193, 8194, 8195, 8196, 8197, 8198, 8199, 8200, 8201, 8202, 8232, 8233, 8239, 8287, 12288, 65279)';

/**
 * isDraftTitle (entities.ts) in SQL on a title column (`draft:`, `[draft]`, `(draft)`, `draft - `,
 * any case, after white space): core/090's partial index holds the drafts, and a query that spells
 * the same condition on its alias may read them by it. A landed migration's text: never change it.
 */
export function draftTitleSql090(column: string): string {
  const t = `ltrim(${column}, ${WHITE_SPACE_090})`;
  // Every draft title holds "draft": GLOB rules out the other titles before the functions run.
  return `(${column} GLOB '*[dD][rR][aA][fF][tT]*' AND (lower(substr(${t}, 1, 7)) IN ('[draft]', '(draft)') OR lower(substr(${t}, 1, 6)) = 'draft:' OR (lower(substr(${t}, 1, 5)) = 'draft' AND substr(${t}, 7, 1) = '-' AND length(${t}) >= 8 AND instr(${WHITE_SPACE_090}, substr(${t}, 6, 1)) > 0 AND instr(${WHITE_SPACE_090}, substr(${t}, 8, 1)) > 0)))`;
}

/** core/099's tables (a landed migration's text: never edit, add a migration for another table). */
const TABLE_VERSIONED_099 = ['users', 'personal_access_tokens', 'projects', 'namespaces', 'milestones'];
/** core/109's tables: what an issue or merge request list row counts (a landed migration's text once landed: never edit). */
const TABLE_VERSIONED_109 = ['user_note_counts', 'award_emoji', 'merge_requests_closing_issues'];
/** core/173's tables: what the issue, merge request, event, member and note lists read (a landed migration's text once landed: never edit). */
const TABLE_VERSIONED_173 = [
  'issues', 'merge_requests', 'issuable_labels', 'issuable_users', 'issuable_id_zones', 'issuable_list_writes', 'issuable_state_counts',
  'issue_filter_counts', 'merge_request_filter_counts', 'issue_list_versions', 'merge_request_list_versions', 'instance_list_versions',
  'issue_order_inserts', 'issue_order_versions', 'issue_links', 'project_issue_counts', 'merge_request_branch_counts', 'merge_request_mentions',
  'label_counts', 'label_pair_counts', 'label_author_counts', 'label_milestone_counts',
  'members', 'member_list_counts', 'project_stars', 'project_list_writes', 'project_statistics', 'topics',
  'events', 'event_list_versions', 'event_counts', 'event_author_counts', 'event_target_counts', 'event_time_exceptions', 'event_time_order',
  'notes', 'note_authors', 'note_discussions', 'note_list_versions', 'resource_label_events', 'resource_milestone_events', 'resource_state_events',
  'subscriptions', 'todos',
];

/** core/187's tables: what the user, key and note search lists and the job queue read (a landed migration's text once landed: never edit). */
const TABLE_VERSIONED_187 = ['identities', 'emails', 'ssh_keys', 'user_statuses', 'notes_search_versions', 'jobs'];

export const coreMigrations: Migration[] = [
  {
    name: 'core/001_initial',
    sql: `
CREATE TABLE users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  username TEXT NOT NULL,
  name TEXT NOT NULL,
  email TEXT NOT NULL,
  public_email TEXT,
  password_digest TEXT,
  state TEXT NOT NULL DEFAULT 'active',
  admin INTEGER NOT NULL DEFAULT 0,
  bot INTEGER NOT NULL DEFAULT 0,
  user_type TEXT NOT NULL DEFAULT 'human',
  external INTEGER NOT NULL DEFAULT 0,
  private_profile INTEGER NOT NULL DEFAULT 0,
  bio TEXT NOT NULL DEFAULT '',
  location TEXT NOT NULL DEFAULT '',
  website_url TEXT NOT NULL DEFAULT '',
  organization TEXT NOT NULL DEFAULT '',
  job_title TEXT NOT NULL DEFAULT '',
  note TEXT,
  projects_limit INTEGER NOT NULL DEFAULT 100000,
  can_create_group INTEGER NOT NULL DEFAULT 1,
  created_by_id INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  last_activity_on TEXT
);
CREATE UNIQUE INDEX users_username ON users (lower(username));
CREATE UNIQUE INDEX users_email ON users (lower(email));

CREATE TABLE identities (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  provider TEXT NOT NULL,
  extern_uid TEXT NOT NULL,
  saml_group_id INTEGER REFERENCES namespaces(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX identities_provider_uid ON identities (provider, extern_uid, ifnull(saml_group_id, 0));

CREATE TABLE personal_access_tokens (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT,
  token_digest TEXT NOT NULL UNIQUE,
  scopes TEXT NOT NULL,
  expires_at TEXT,
  revoked INTEGER NOT NULL DEFAULT 0,
  previous_token_id INTEGER,
  created_at TEXT NOT NULL,
  last_used_at TEXT
);
CREATE INDEX personal_access_tokens_user ON personal_access_tokens (user_id);

-- Groups and users' personal namespaces. full_path is kept up to date on rename/transfer.
CREATE TABLE namespaces (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('group', 'user')),
  name TEXT NOT NULL,
  path TEXT NOT NULL,
  full_path TEXT NOT NULL,
  parent_id INTEGER REFERENCES namespaces(id) ON DELETE CASCADE,
  owner_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
  description TEXT NOT NULL DEFAULT '',
  visibility TEXT NOT NULL DEFAULT 'private',
  request_access_enabled INTEGER NOT NULL DEFAULT 1,
  settings TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX namespaces_full_path ON namespaces (lower(full_path));
CREATE INDEX namespaces_parent ON namespaces (parent_id);

CREATE TABLE projects (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  namespace_id INTEGER NOT NULL REFERENCES namespaces(id) ON DELETE CASCADE,
  creator_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  name TEXT NOT NULL,
  path TEXT NOT NULL,
  description TEXT,
  visibility TEXT NOT NULL DEFAULT 'private',
  default_branch TEXT NOT NULL DEFAULT 'main',
  archived INTEGER NOT NULL DEFAULT 0,
  request_access_enabled INTEGER NOT NULL DEFAULT 1,
  topics TEXT NOT NULL DEFAULT '[]',
  settings TEXT NOT NULL DEFAULT '{}',
  import_url TEXT,
  import_type TEXT,
  import_status TEXT NOT NULL DEFAULT 'none',
  import_error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  last_activity_at TEXT NOT NULL
);
CREATE UNIQUE INDEX projects_namespace_path ON projects (namespace_id, lower(path));

-- Memberships of groups (source_type 'Namespace') and projects ('Project'). As in GitLab, the
-- same table holds access requests (requested_at set) and pending invitations (user_id NULL).
CREATE TABLE members (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  source_type TEXT NOT NULL CHECK (source_type IN ('Namespace', 'Project')),
  source_id INTEGER NOT NULL,
  user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
  access_level INTEGER NOT NULL,
  expires_at TEXT,
  created_by_id INTEGER,
  member_role_id INTEGER,
  requested_at TEXT,
  invite_email TEXT,
  invite_token TEXT,
  invite_accepted_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX members_source_user ON members (source_type, source_id, user_id) WHERE user_id IS NOT NULL;
CREATE UNIQUE INDEX members_source_invite ON members (source_type, source_id, lower(invite_email)) WHERE invite_email IS NOT NULL AND user_id IS NULL;
CREATE INDEX members_user ON members (user_id);

CREATE TABLE issues (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  iid INTEGER NOT NULL,
  title TEXT NOT NULL,
  description TEXT,
  state TEXT NOT NULL DEFAULT 'opened',
  author_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  assignee_ids TEXT NOT NULL DEFAULT '[]',
  labels TEXT NOT NULL DEFAULT '[]',
  confidential INTEGER NOT NULL DEFAULT 0,
  discussion_locked INTEGER,
  due_date TEXT,
  weight INTEGER,
  issue_type TEXT NOT NULL DEFAULT 'issue',
  closed_at TEXT,
  closed_by_id INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX issues_project_iid ON issues (project_id, iid);

CREATE TABLE merge_requests (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  iid INTEGER NOT NULL,
  title TEXT NOT NULL,
  description TEXT,
  state TEXT NOT NULL DEFAULT 'opened',
  author_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  assignee_ids TEXT NOT NULL DEFAULT '[]',
  reviewer_ids TEXT NOT NULL DEFAULT '[]',
  labels TEXT NOT NULL DEFAULT '[]',
  source_branch TEXT NOT NULL,
  target_branch TEXT NOT NULL,
  source_project_id INTEGER NOT NULL,
  target_project_id INTEGER NOT NULL,
  squash INTEGER NOT NULL DEFAULT 0,
  remove_source_branch INTEGER,
  discussion_locked INTEGER,
  base_sha TEXT NOT NULL,
  start_sha TEXT NOT NULL,
  head_sha TEXT NOT NULL,
  merged_by_id INTEGER,
  merged_at TEXT,
  closed_by_id INTEGER,
  closed_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX merge_requests_project_iid ON merge_requests (project_id, iid);

-- Notes on any noteable (Issue, MergeRequest; areas add Snippet, Epic, ...).
CREATE TABLE notes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
  noteable_type TEXT NOT NULL,
  noteable_id INTEGER NOT NULL,
  discussion_id TEXT NOT NULL,
  type TEXT,
  author_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  body TEXT NOT NULL,
  system INTEGER NOT NULL DEFAULT 0,
  internal INTEGER NOT NULL DEFAULT 0,
  resolvable INTEGER NOT NULL DEFAULT 0,
  resolved_at TEXT,
  resolved_by_id INTEGER,
  position TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX notes_noteable ON notes (noteable_type, noteable_id);
CREATE INDEX notes_discussion ON notes (discussion_id);

-- Activity events (GitLab's events table): written in the same transaction as their action.
CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
  group_id INTEGER REFERENCES namespaces(id) ON DELETE CASCADE,
  author_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  action TEXT NOT NULL,
  target_type TEXT,
  target_id INTEGER,
  target_iid INTEGER,
  target_title TEXT,
  data TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX events_project ON events (project_id, id);
CREATE INDEX events_author ON events (author_id, id);
`,
  },
  {
    // Issues, merge requests and notes brought in by an importer (a provider import, a migration)
    // say where from, as GitLab's `imported_from` enum does; 'none' for everything made here.
    name: 'core/002_imported_from',
    sql: `
ALTER TABLE issues ADD COLUMN imported_from TEXT NOT NULL DEFAULT 'none';
ALTER TABLE merge_requests ADD COLUMN imported_from TEXT NOT NULL DEFAULT 'none';
ALTER TABLE notes ADD COLUMN imported_from TEXT NOT NULL DEFAULT 'none';
`,
  },
  {
    name: 'core/003_milestones',
    sql: `
-- Milestones of a project or of a group (exactly one is set); iids count per project or group.
CREATE TABLE milestones (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  iid INTEGER NOT NULL,
  project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
  group_id INTEGER REFERENCES namespaces(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  description TEXT,
  state TEXT NOT NULL DEFAULT 'active',
  start_date TEXT,
  due_date TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK ((group_id IS NULL) != (project_id IS NULL))
);
CREATE INDEX milestones_project ON milestones (project_id);
CREATE INDEX milestones_group ON milestones (group_id);

ALTER TABLE issues ADD COLUMN milestone_id INTEGER REFERENCES milestones(id) ON DELETE SET NULL;
ALTER TABLE merge_requests ADD COLUMN milestone_id INTEGER REFERENCES milestones(id) ON DELETE SET NULL;
CREATE INDEX issues_milestone ON issues (milestone_id);
CREATE INDEX merge_requests_milestone ON merge_requests (milestone_id);

-- Resource milestone events of issues and merge requests: one row per milestone added or removed.
CREATE TABLE resource_milestone_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  issuable_type TEXT NOT NULL CHECK (issuable_type IN ('Issue', 'MergeRequest')),
  issuable_id INTEGER NOT NULL,
  user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  milestone_id INTEGER NOT NULL REFERENCES milestones(id) ON DELETE CASCADE,
  action TEXT NOT NULL CHECK (action IN ('add', 'remove')),
  state TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX resource_milestone_events_issuable ON resource_milestone_events (issuable_type, issuable_id, id);
CREATE TRIGGER issues_milestone_events_cleanup AFTER DELETE ON issues BEGIN
  DELETE FROM resource_milestone_events WHERE issuable_type = 'Issue' AND issuable_id = OLD.id;
END;
CREATE TRIGGER merge_requests_milestone_events_cleanup AFTER DELETE ON merge_requests BEGIN
  DELETE FROM resource_milestone_events WHERE issuable_type = 'MergeRequest' AND issuable_id = OLD.id;
END;
`,
  },
  {
    name: 'core/004_award_emoji',
    sql: `
-- Award emoji (reactions) on issues, merge requests, snippets and notes. Awardables are polymorphic,
-- so triggers remove an awardable's reactions with it (snippets add theirs in the snippets area).
CREATE TABLE award_emoji (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  awardable_type TEXT NOT NULL,
  awardable_id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX award_emoji_unique ON award_emoji (awardable_type, awardable_id, user_id, name);
CREATE INDEX award_emoji_awardable ON award_emoji (awardable_type, awardable_id, id);
CREATE INDEX award_emoji_user ON award_emoji (user_id, awardable_type);
CREATE TRIGGER issues_award_emoji_cleanup AFTER DELETE ON issues BEGIN
  DELETE FROM award_emoji WHERE awardable_type = 'Issue' AND awardable_id = OLD.id;
END;
CREATE TRIGGER merge_requests_award_emoji_cleanup AFTER DELETE ON merge_requests BEGIN
  DELETE FROM award_emoji WHERE awardable_type = 'MergeRequest' AND awardable_id = OLD.id;
END;
CREATE TRIGGER notes_award_emoji_cleanup AFTER DELETE ON notes BEGIN
  DELETE FROM award_emoji WHERE awardable_type = 'Note' AND awardable_id = OLD.id;
END;
`,
  },
  {
    name: 'core/005_issuable_relations',
    sql: `
-- Issue links (relates_to, blocks); "is_blocked_by" is stored as the other issue blocking this one.
CREATE TABLE issue_links (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  source_id INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  target_id INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  link_type TEXT NOT NULL DEFAULT 'relates_to' CHECK (link_type IN ('relates_to', 'blocks')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX issue_links_pair ON issue_links (source_id, target_id);
CREATE INDEX issue_links_target ON issue_links (target_id);

-- Issues a merge request closes when merged ("Closes #1" in its description), kept as GitLab does.
CREATE TABLE merge_requests_closing_issues (
  merge_request_id INTEGER NOT NULL REFERENCES merge_requests(id) ON DELETE CASCADE,
  issue_id INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (merge_request_id, issue_id)
);
CREATE INDEX merge_requests_closing_issues_issue ON merge_requests_closing_issues (issue_id);

-- Explicit (un)subscriptions to issues and merge requests; without a row, participants are subscribed.
CREATE TABLE subscriptions (
  subscribable_type TEXT NOT NULL,
  subscribable_id INTEGER NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  subscribed INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (subscribable_type, subscribable_id, user_id)
);

-- To-do items. action: GitLab's codes (1 assigned, 2 mentioned, 4 marked, 7 directly addressed, 9 review requested, ...).
CREATE TABLE todos (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  author_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
  group_id INTEGER REFERENCES namespaces(id) ON DELETE CASCADE,
  target_type TEXT NOT NULL,
  target_id INTEGER NOT NULL,
  action INTEGER NOT NULL,
  note_id INTEGER REFERENCES notes(id) ON DELETE SET NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX todos_user ON todos (user_id, state, id);
CREATE INDEX todos_target ON todos (target_type, target_id);

-- Resource events of issues and merge requests (what GitLab shows instead of system notes).
CREATE TABLE resource_label_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  issuable_type TEXT NOT NULL CHECK (issuable_type IN ('Issue', 'MergeRequest')),
  issuable_id INTEGER NOT NULL,
  user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  label_id INTEGER,
  action TEXT NOT NULL CHECK (action IN ('add', 'remove')),
  created_at TEXT NOT NULL
);
CREATE INDEX resource_label_events_issuable ON resource_label_events (issuable_type, issuable_id, id);
CREATE TABLE resource_state_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  issuable_type TEXT NOT NULL CHECK (issuable_type IN ('Issue', 'MergeRequest')),
  issuable_id INTEGER NOT NULL,
  user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  state TEXT NOT NULL,
  source_commit TEXT,
  source_merge_request_id INTEGER REFERENCES merge_requests(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX resource_state_events_issuable ON resource_state_events (issuable_type, issuable_id, id);
CREATE TABLE resource_weight_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  issue_id INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  weight INTEGER,
  created_at TEXT NOT NULL
);
CREATE INDEX resource_weight_events_issue ON resource_weight_events (issue_id, id);

CREATE TRIGGER issues_relations_cleanup AFTER DELETE ON issues BEGIN
  DELETE FROM subscriptions WHERE subscribable_type = 'Issue' AND subscribable_id = OLD.id;
  DELETE FROM todos WHERE target_type = 'Issue' AND target_id = OLD.id;
  DELETE FROM resource_label_events WHERE issuable_type = 'Issue' AND issuable_id = OLD.id;
  DELETE FROM resource_state_events WHERE issuable_type = 'Issue' AND issuable_id = OLD.id;
END;
CREATE TRIGGER merge_requests_relations_cleanup AFTER DELETE ON merge_requests BEGIN
  DELETE FROM subscriptions WHERE subscribable_type = 'MergeRequest' AND subscribable_id = OLD.id;
  DELETE FROM todos WHERE target_type = 'MergeRequest' AND target_id = OLD.id;
  DELETE FROM resource_label_events WHERE issuable_type = 'MergeRequest' AND issuable_id = OLD.id;
  DELETE FROM resource_state_events WHERE issuable_type = 'MergeRequest' AND issuable_id = OLD.id;
END;
`,
  },
  {
    name: 'core/006_topics',
    sql: `
-- Project topics (GitLab's topics table); projects keep their topic names, rows appear as they are used.
CREATE TABLE topics (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  title TEXT NOT NULL,
  description TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX topics_name ON topics (lower(name));
`,
  },
  {
    name: 'core/007_user_statuses',
    sql: `
-- A user's status (emoji, message, availability), cleared at clear_status_at when one is set.
CREATE TABLE user_statuses (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  emoji TEXT NOT NULL DEFAULT 'speech_balloon',
  message TEXT,
  availability TEXT NOT NULL DEFAULT 'not_set',
  clear_status_at TEXT
);
`,
  },
  {
    // Lists read a page in index order instead of sorting every row: one index per default or
    // offered order (an index serves both sorts), the id last as the tie-breaker; and the lookups
    // every row of a list makes.
    name: 'core/008_list_order_indexes',
    sql: `
CREATE INDEX projects_created ON projects (created_at, id);
CREATE INDEX projects_updated ON projects (updated_at, id);
CREATE INDEX projects_last_activity ON projects (last_activity_at, id);
CREATE INDEX projects_name ON projects (name, id);
CREATE INDEX projects_path ON projects (path, id);
CREATE INDEX projects_namespace_created ON projects (namespace_id, created_at, id);
CREATE INDEX namespaces_kind_name ON namespaces (kind, name, id);
CREATE INDEX namespaces_kind_path ON namespaces (kind, path, id);
CREATE INDEX users_name ON users (name, id);
CREATE INDEX users_username_order ON users (username, id);
CREATE INDEX users_created ON users (created_at, id);
CREATE INDEX users_updated ON users (updated_at, id);
CREATE INDEX notes_noteable_created ON notes (noteable_type, noteable_id, created_at, id);
CREATE INDEX notes_noteable_updated ON notes (noteable_type, noteable_id, updated_at, id);
DROP INDEX notes_noteable;
-- A user's personal namespace and identities, read for every user an admin lists and by every
-- project visibility check.
CREATE INDEX namespaces_owner ON namespaces (owner_id, kind);
CREATE INDEX identities_user ON identities (user_id);
`,
  },
  {
    // A project's open-issue count (the Project entity's open_issues_count) kept by triggers, so
    // no read counts a million issues. Every write path, cascades included, goes through them.
    name: 'core/009_project_issue_counts',
    sql: `
CREATE TABLE project_issue_counts (
  project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  opened INTEGER NOT NULL DEFAULT 0
);
INSERT INTO project_issue_counts (project_id, opened)
  SELECT project_id, count(*) FROM issues WHERE state = 'opened' GROUP BY project_id;
CREATE TRIGGER issues_count_insert AFTER INSERT ON issues WHEN NEW.state = 'opened' BEGIN
  INSERT INTO project_issue_counts (project_id, opened) VALUES (NEW.project_id, 1)
    ON CONFLICT (project_id) DO UPDATE SET opened = opened + 1;
END;
CREATE TRIGGER issues_count_delete AFTER DELETE ON issues WHEN OLD.state = 'opened' BEGIN
  UPDATE project_issue_counts SET opened = opened - 1 WHERE project_id = OLD.project_id;
END;
CREATE TRIGGER issues_count_update AFTER UPDATE OF state, project_id ON issues
  WHEN (OLD.state = 'opened') != (NEW.state = 'opened') OR OLD.project_id != NEW.project_id BEGIN
  UPDATE project_issue_counts SET opened = opened - 1 WHERE project_id = OLD.project_id AND OLD.state = 'opened';
  INSERT INTO project_issue_counts (project_id, opened) SELECT NEW.project_id, 1 WHERE NEW.state = 'opened'
    ON CONFLICT (project_id) DO UPDATE SET opened = opened + 1;
END;
`,
  },
  {
    // Issue and merge request lists at scale: order indexes, labels as rows, full-text search.
    name: 'core/010_issuable_lists',
    sql: `
-- Lists of a project's issues and merge requests read a page in index order: one index per
-- offered order, the id last as the tie-breaker.
CREATE INDEX issues_project_created ON issues (project_id, created_at, id);
CREATE INDEX issues_project_updated ON issues (project_id, updated_at, id);
CREATE INDEX issues_project_title ON issues (project_id, title, id);
CREATE INDEX issues_project_due ON issues (project_id, due_date, id);
CREATE INDEX issues_author ON issues (author_id, created_at, id);
CREATE INDEX merge_requests_project_created ON merge_requests (project_id, created_at, id);
CREATE INDEX merge_requests_project_updated ON merge_requests (project_id, updated_at, id);
CREATE INDEX merge_requests_project_title ON merge_requests (project_id, title, id);
CREATE INDEX merge_requests_project_merged ON merge_requests (project_id, merged_at, id);
CREATE INDEX merge_requests_author ON merge_requests (author_id, created_at, id);

-- The labels of issues, merge requests (and epics, from their area) as rows, one per label title,
-- so a label filter or count reads an index instead of parsing every record's list. Triggers keep
-- it equal to each record's labels list through every write path (cascades included).
CREATE TABLE issuable_labels (
  issuable_type TEXT NOT NULL,
  issuable_id INTEGER NOT NULL,
  title TEXT NOT NULL,
  PRIMARY KEY (issuable_type, issuable_id, title)
) WITHOUT ROWID;
-- Label filters match titles case-insensitively (ASCII, as SQLite's lower()).
CREATE INDEX issuable_labels_title ON issuable_labels (issuable_type, title COLLATE NOCASE, issuable_id);
INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title)
  SELECT 'Issue', i.id, j.value FROM issues i, json_each(i.labels) j WHERE i.labels != '[]';
INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title)
  SELECT 'MergeRequest', m.id, j.value FROM merge_requests m, json_each(m.labels) j WHERE m.labels != '[]';
CREATE TRIGGER issues_labels_insert AFTER INSERT ON issues WHEN NEW.labels != '[]' BEGIN
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title) SELECT 'Issue', NEW.id, value FROM json_each(NEW.labels);
END;
CREATE TRIGGER issues_labels_update AFTER UPDATE OF labels ON issues WHEN NEW.labels != OLD.labels BEGIN
  DELETE FROM issuable_labels WHERE issuable_type = 'Issue' AND issuable_id = OLD.id;
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title) SELECT 'Issue', NEW.id, value FROM json_each(NEW.labels);
END;
CREATE TRIGGER issues_labels_delete AFTER DELETE ON issues WHEN OLD.labels != '[]' BEGIN
  DELETE FROM issuable_labels WHERE issuable_type = 'Issue' AND issuable_id = OLD.id;
END;
CREATE TRIGGER merge_requests_labels_insert AFTER INSERT ON merge_requests WHEN NEW.labels != '[]' BEGIN
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title) SELECT 'MergeRequest', NEW.id, value FROM json_each(NEW.labels);
END;
CREATE TRIGGER merge_requests_labels_update AFTER UPDATE OF labels ON merge_requests WHEN NEW.labels != OLD.labels BEGIN
  DELETE FROM issuable_labels WHERE issuable_type = 'MergeRequest' AND issuable_id = OLD.id;
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title) SELECT 'MergeRequest', NEW.id, value FROM json_each(NEW.labels);
END;
CREATE TRIGGER merge_requests_labels_delete AFTER DELETE ON merge_requests WHEN OLD.labels != '[]' BEGIN
  DELETE FROM issuable_labels WHERE issuable_type = 'MergeRequest' AND issuable_id = OLD.id;
END;

-- Search over titles and descriptions through SQLite's full-text index with its trigram
-- tokenizer (substring matches, as GitLab's trigram indexes serve ILIKE), kept by triggers.
CREATE VIRTUAL TABLE issues_search USING fts5(title, description, content = 'issues', content_rowid = 'id', tokenize = 'trigram');
INSERT INTO issues_search (issues_search) VALUES ('rebuild');
CREATE TRIGGER issues_search_insert AFTER INSERT ON issues BEGIN
  INSERT INTO issues_search (rowid, title, description) VALUES (NEW.id, NEW.title, NEW.description);
END;
CREATE TRIGGER issues_search_update AFTER UPDATE OF title, description ON issues BEGIN
  INSERT INTO issues_search (issues_search, rowid, title, description) VALUES ('delete', OLD.id, OLD.title, OLD.description);
  INSERT INTO issues_search (rowid, title, description) VALUES (NEW.id, NEW.title, NEW.description);
END;
CREATE TRIGGER issues_search_delete AFTER DELETE ON issues BEGIN
  INSERT INTO issues_search (issues_search, rowid, title, description) VALUES ('delete', OLD.id, OLD.title, OLD.description);
END;
CREATE VIRTUAL TABLE merge_requests_search USING fts5(title, description, content = 'merge_requests', content_rowid = 'id', tokenize = 'trigram');
INSERT INTO merge_requests_search (merge_requests_search) VALUES ('rebuild');
CREATE TRIGGER merge_requests_search_insert AFTER INSERT ON merge_requests BEGIN
  INSERT INTO merge_requests_search (rowid, title, description) VALUES (NEW.id, NEW.title, NEW.description);
END;
CREATE TRIGGER merge_requests_search_update AFTER UPDATE OF title, description ON merge_requests BEGIN
  INSERT INTO merge_requests_search (merge_requests_search, rowid, title, description) VALUES ('delete', OLD.id, OLD.title, OLD.description);
  INSERT INTO merge_requests_search (rowid, title, description) VALUES (NEW.id, NEW.title, NEW.description);
END;
CREATE TRIGGER merge_requests_search_delete AFTER DELETE ON merge_requests BEGIN
  INSERT INTO merge_requests_search (merge_requests_search, rowid, title, description) VALUES ('delete', OLD.id, OLD.title, OLD.description);
END;
`,
  },
  {
    name: 'core/011_custom_attributes_keys_emails',
    sql: `
-- Administrators' key/value custom attributes on users, groups and projects (GitLab keeps one table each).
CREATE TABLE user_custom_attributes (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (user_id, key)
);
CREATE TABLE group_custom_attributes (
  group_id INTEGER NOT NULL REFERENCES namespaces(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (group_id, key)
);
CREATE TABLE project_custom_attributes (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (project_id, key)
);

-- Users' SSH public keys; fingerprints are unique across the instance.
CREATE TABLE ssh_keys (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  fingerprint_sha256 TEXT NOT NULL UNIQUE,
  usage_type TEXT NOT NULL,
  expires_at TEXT,
  last_used_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX ssh_keys_user ON ssh_keys (user_id);

-- Users' secondary email addresses.
CREATE TABLE emails (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  confirmed_at TEXT,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX emails_email ON emails (lower(email));
CREATE INDEX emails_user ON emails (user_id);
`,
  },
  {
    name: 'core/012_project_stars',
    sql: `
-- Who starred which project, and since when (GitLab's users_star_projects).
CREATE TABLE project_stars (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (project_id, user_id)
);
CREATE INDEX project_stars_user ON project_stars (user_id);
`,
  },
  {
    name: 'core/013_avatars',
    sql: `
-- The file name of each owner's avatar (GitLab's Avatarable \`avatar\` column); the file is under <dataDir>/avatars/.
ALTER TABLE users ADD COLUMN avatar TEXT;
ALTER TABLE namespaces ADD COLUMN avatar TEXT;
ALTER TABLE projects ADD COLUMN avatar TEXT;
ALTER TABLE topics ADD COLUMN avatar TEXT;
`,
  },
  {
    // Filtered lists at scale. Each common filter of a project's issues (state, author, milestone)
    // and merge requests (state) has an index that leads with the project and the filter and keeps
    // the default order, so a page reads matching rows in order and the capped count
    // (COUNT_LIMIT + 1 rows) reads index entries only. Lists over many projects (a group, the
    // instance) walk the instance-wide order indexes. Label rows carry their record's project and
    // state, so a label filter counts from the label index and label counts never read the records.
    name: 'core/014_list_filter_indexes',
    sql: `
CREATE INDEX issues_project_state_created ON issues (project_id, state, created_at, id);
CREATE INDEX issues_project_author_created ON issues (project_id, author_id, created_at, id);
CREATE INDEX issues_project_milestone_created ON issues (project_id, milestone_id, created_at, id);
CREATE INDEX issues_created ON issues (created_at, id);
CREATE INDEX issues_updated ON issues (updated_at, id);
CREATE INDEX merge_requests_project_state_created ON merge_requests (project_id, state, created_at, id);
CREATE INDEX merge_requests_created ON merge_requests (created_at, id);
CREATE INDEX merge_requests_updated ON merge_requests (updated_at, id);

ALTER TABLE issuable_labels ADD COLUMN project_id INTEGER;
ALTER TABLE issuable_labels ADD COLUMN state TEXT;
UPDATE issuable_labels SET (project_id, state) = (SELECT project_id, state FROM issues WHERE id = issuable_id) WHERE issuable_type = 'Issue';
UPDATE issuable_labels SET (project_id, state) = (SELECT project_id, state FROM merge_requests WHERE id = issuable_id) WHERE issuable_type = 'MergeRequest';
CREATE INDEX issuable_labels_project ON issuable_labels (issuable_type, project_id, title COLLATE NOCASE, state, issuable_id);

DROP TRIGGER issues_labels_insert;
CREATE TRIGGER issues_labels_insert AFTER INSERT ON issues WHEN NEW.labels != '[]' BEGIN
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state)
    SELECT 'Issue', NEW.id, value, NEW.project_id, NEW.state FROM json_each(NEW.labels);
END;
DROP TRIGGER issues_labels_update;
CREATE TRIGGER issues_labels_update AFTER UPDATE OF labels ON issues WHEN NEW.labels != OLD.labels BEGIN
  DELETE FROM issuable_labels WHERE issuable_type = 'Issue' AND issuable_id = OLD.id;
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state)
    SELECT 'Issue', NEW.id, value, NEW.project_id, NEW.state FROM json_each(NEW.labels);
END;
CREATE TRIGGER issues_labels_scope AFTER UPDATE OF project_id, state ON issues
  WHEN NEW.project_id != OLD.project_id OR NEW.state != OLD.state BEGIN
  UPDATE issuable_labels SET project_id = NEW.project_id, state = NEW.state WHERE issuable_type = 'Issue' AND issuable_id = NEW.id;
END;
DROP TRIGGER merge_requests_labels_insert;
CREATE TRIGGER merge_requests_labels_insert AFTER INSERT ON merge_requests WHEN NEW.labels != '[]' BEGIN
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state)
    SELECT 'MergeRequest', NEW.id, value, NEW.project_id, NEW.state FROM json_each(NEW.labels);
END;
DROP TRIGGER merge_requests_labels_update;
CREATE TRIGGER merge_requests_labels_update AFTER UPDATE OF labels ON merge_requests WHEN NEW.labels != OLD.labels BEGIN
  DELETE FROM issuable_labels WHERE issuable_type = 'MergeRequest' AND issuable_id = OLD.id;
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state)
    SELECT 'MergeRequest', NEW.id, value, NEW.project_id, NEW.state FROM json_each(NEW.labels);
END;
CREATE TRIGGER merge_requests_labels_scope AFTER UPDATE OF project_id, state ON merge_requests
  WHEN NEW.project_id != OLD.project_id OR NEW.state != OLD.state BEGIN
  UPDATE issuable_labels SET project_id = NEW.project_id, state = NEW.state WHERE issuable_type = 'MergeRequest' AND issuable_id = NEW.id;
END;
`,
  },
  {
    // Search scoped to a project. The full-text index's rowid is the record's scoped key,
    // (project_id << 32) + id, so one project's matches are a rowid range the
    // index seeks to instead of every match of the instance; the index keeps no copy of the text
    // (contentless, deletable by rowid), and a move between projects re-files the record. Built
    // once from the records and merged into one segment ('optimize'): a lookup of one record then
    // reads one doclist per trigram instead of one per segment.
    name: 'core/015_project_scoped_search',
    sql: `
DROP TRIGGER issues_search_insert;
DROP TRIGGER issues_search_update;
DROP TRIGGER issues_search_delete;
DROP TABLE issues_search;
CREATE VIRTUAL TABLE issues_search USING fts5(title, description, content = '', contentless_delete = 1, tokenize = 'trigram');
INSERT INTO issues_search (rowid, title, description) SELECT (project_id << 32) + id, title, description FROM issues;
INSERT INTO issues_search (issues_search) VALUES ('optimize');
CREATE TRIGGER issues_search_insert AFTER INSERT ON issues BEGIN
  INSERT INTO issues_search (rowid, title, description) VALUES ((NEW.project_id << 32) + NEW.id, NEW.title, NEW.description);
END;
CREATE TRIGGER issues_search_update AFTER UPDATE OF project_id, title, description ON issues BEGIN
  DELETE FROM issues_search WHERE rowid = (OLD.project_id << 32) + OLD.id;
  INSERT INTO issues_search (rowid, title, description) VALUES ((NEW.project_id << 32) + NEW.id, NEW.title, NEW.description);
END;
CREATE TRIGGER issues_search_delete AFTER DELETE ON issues BEGIN
  DELETE FROM issues_search WHERE rowid = (OLD.project_id << 32) + OLD.id;
END;

DROP TRIGGER merge_requests_search_insert;
DROP TRIGGER merge_requests_search_update;
DROP TRIGGER merge_requests_search_delete;
DROP TABLE merge_requests_search;
CREATE VIRTUAL TABLE merge_requests_search USING fts5(title, description, content = '', contentless_delete = 1, tokenize = 'trigram');
INSERT INTO merge_requests_search (rowid, title, description) SELECT (project_id << 32) + id, title, description FROM merge_requests;
INSERT INTO merge_requests_search (merge_requests_search) VALUES ('optimize');
CREATE TRIGGER merge_requests_search_insert AFTER INSERT ON merge_requests BEGIN
  INSERT INTO merge_requests_search (rowid, title, description) VALUES ((NEW.project_id << 32) + NEW.id, NEW.title, NEW.description);
END;
CREATE TRIGGER merge_requests_search_update AFTER UPDATE OF project_id, title, description ON merge_requests BEGIN
  DELETE FROM merge_requests_search WHERE rowid = (OLD.project_id << 32) + OLD.id;
  INSERT INTO merge_requests_search (rowid, title, description) VALUES ((NEW.project_id << 32) + NEW.id, NEW.title, NEW.description);
END;
CREATE TRIGGER merge_requests_search_delete AFTER DELETE ON merge_requests BEGIN
  DELETE FROM merge_requests_search WHERE rowid = (OLD.project_id << 32) + OLD.id;
END;
`,
  },  {
    // Label counts (GET labels?with_counts=true) without counting label rows: a counter per
    // record type, project, exact title, state and confidentiality, kept by triggers on the label
    // rows (which follow every label, state, project and delete change of their records, renamed
    // and deleted labels included). Label rows of issues carry the issue's confidentiality too, and
    // the confidential ones have their own small index: what a caller below Planner may see of
    // them (their own, their assigned) is counted from it.
    name: 'core/016_label_counts',
    sql: `
ALTER TABLE issuable_labels ADD COLUMN confidential INTEGER NOT NULL DEFAULT 0;
UPDATE issuable_labels SET confidential = 1
  WHERE issuable_type = 'Issue' AND issuable_id IN (SELECT id FROM issues WHERE confidential = 1);
CREATE INDEX issuable_labels_confidential ON issuable_labels (issuable_type, project_id, title, state) WHERE confidential = 1;

DROP TRIGGER issues_labels_insert;
CREATE TRIGGER issues_labels_insert AFTER INSERT ON issues WHEN NEW.labels != '[]' BEGIN
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state, confidential)
    SELECT 'Issue', NEW.id, value, NEW.project_id, NEW.state, NEW.confidential FROM json_each(NEW.labels);
END;
DROP TRIGGER issues_labels_update;
CREATE TRIGGER issues_labels_update AFTER UPDATE OF labels ON issues WHEN NEW.labels != OLD.labels BEGIN
  DELETE FROM issuable_labels WHERE issuable_type = 'Issue' AND issuable_id = OLD.id;
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state, confidential)
    SELECT 'Issue', NEW.id, value, NEW.project_id, NEW.state, NEW.confidential FROM json_each(NEW.labels);
END;
CREATE TRIGGER issues_labels_confidential AFTER UPDATE OF confidential ON issues WHEN NEW.confidential != OLD.confidential BEGIN
  UPDATE issuable_labels SET confidential = NEW.confidential WHERE issuable_type = 'Issue' AND issuable_id = NEW.id;
END;

CREATE TABLE label_counts (
  issuable_type TEXT NOT NULL,
  project_id INTEGER NOT NULL,
  title TEXT NOT NULL,
  state TEXT NOT NULL,
  confidential INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (issuable_type, project_id, title, state, confidential)
) WITHOUT ROWID;
INSERT INTO label_counts (issuable_type, project_id, title, state, confidential, n)
  SELECT issuable_type, project_id, title, state, confidential, count(*) FROM issuable_labels
  WHERE project_id IS NOT NULL GROUP BY issuable_type, project_id, title, state, confidential;
CREATE TRIGGER issuable_labels_count_insert AFTER INSERT ON issuable_labels WHEN NEW.project_id IS NOT NULL BEGIN
  INSERT INTO label_counts (issuable_type, project_id, title, state, confidential, n)
    VALUES (NEW.issuable_type, NEW.project_id, NEW.title, NEW.state, NEW.confidential, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER issuable_labels_count_delete AFTER DELETE ON issuable_labels WHEN OLD.project_id IS NOT NULL BEGIN
  UPDATE label_counts SET n = n - 1 WHERE issuable_type = OLD.issuable_type AND project_id = OLD.project_id
    AND title = OLD.title AND state = OLD.state AND confidential = OLD.confidential;
END;
CREATE TRIGGER issuable_labels_count_update AFTER UPDATE OF project_id, state, confidential, title ON issuable_labels BEGIN
  UPDATE label_counts SET n = n - 1 WHERE issuable_type = OLD.issuable_type AND project_id = OLD.project_id
    AND title = OLD.title AND state = OLD.state AND confidential = OLD.confidential;
  INSERT INTO label_counts (issuable_type, project_id, title, state, confidential, n)
    SELECT NEW.issuable_type, NEW.project_id, NEW.title, NEW.state, NEW.confidential, 1 WHERE NEW.project_id IS NOT NULL
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
`,
  },
  {
    // A project's issues and merge requests counted per state by triggers, so the count of an
    // unfiltered or state-filtered list (X-Total, up to 10,000) reads one row instead of walking
    // 10,001 index entries. Every write path, cascades included, goes through the triggers.
    name: 'core/017_issuable_state_counts',
    sql: `
CREATE TABLE issuable_state_counts (
  issuable_type TEXT NOT NULL,
  project_id INTEGER NOT NULL,
  state TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (issuable_type, project_id, state)
) WITHOUT ROWID;
INSERT INTO issuable_state_counts (issuable_type, project_id, state, n) SELECT 'Issue', project_id, state, count(*) FROM issues GROUP BY project_id, state;
INSERT INTO issuable_state_counts (issuable_type, project_id, state, n) SELECT 'MergeRequest', project_id, state, count(*) FROM merge_requests GROUP BY project_id, state;
CREATE TRIGGER issues_state_count_insert AFTER INSERT ON issues BEGIN
  INSERT INTO issuable_state_counts (issuable_type, project_id, state, n) VALUES ('Issue', NEW.project_id, NEW.state, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER issues_state_count_delete AFTER DELETE ON issues BEGIN
  UPDATE issuable_state_counts SET n = n - 1 WHERE issuable_type = 'Issue' AND project_id = OLD.project_id AND state = OLD.state;
END;
CREATE TRIGGER issues_state_count_update AFTER UPDATE OF project_id, state ON issues
  WHEN NEW.project_id != OLD.project_id OR NEW.state != OLD.state BEGIN
  UPDATE issuable_state_counts SET n = n - 1 WHERE issuable_type = 'Issue' AND project_id = OLD.project_id AND state = OLD.state;
  INSERT INTO issuable_state_counts (issuable_type, project_id, state, n) VALUES ('Issue', NEW.project_id, NEW.state, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER merge_requests_state_count_insert AFTER INSERT ON merge_requests BEGIN
  INSERT INTO issuable_state_counts (issuable_type, project_id, state, n) VALUES ('MergeRequest', NEW.project_id, NEW.state, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER merge_requests_state_count_delete AFTER DELETE ON merge_requests BEGIN
  UPDATE issuable_state_counts SET n = n - 1 WHERE issuable_type = 'MergeRequest' AND project_id = OLD.project_id AND state = OLD.state;
END;
CREATE TRIGGER merge_requests_state_count_update AFTER UPDATE OF project_id, state ON merge_requests
  WHEN NEW.project_id != OLD.project_id OR NEW.state != OLD.state BEGIN
  UPDATE issuable_state_counts SET n = n - 1 WHERE issuable_type = 'MergeRequest' AND project_id = OLD.project_id AND state = OLD.state;
  INSERT INTO issuable_state_counts (issuable_type, project_id, state, n) VALUES ('MergeRequest', NEW.project_id, NEW.state, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
`,
  },
  {
    // A project's issues counted per author, milestone, state and confidentiality by triggers, so
    // the capped count of an author or milestone filter (alone or with a state) reads a few
    // counter rows instead of walking 10,001 index entries. No author or no milestone is kept
    // as 0 (a key column cannot be NULL); every write path, cascades and the SET NULL of a
    // deleted author or milestone included, goes through the triggers. The columns are `author`
    // and `milestone`, not `author_id`: a deleted user's contributions (columns named
    // author_id) move to the ghost user table by table, and these counters follow the issues instead.
    name: 'core/018_issue_filter_counts',
    sql: `
CREATE TABLE issue_filter_counts (
  project_id INTEGER NOT NULL,
  author INTEGER NOT NULL,
  milestone INTEGER NOT NULL,
  state TEXT NOT NULL,
  confidential INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (project_id, author, milestone, state, confidential)
) WITHOUT ROWID;
CREATE INDEX issue_filter_counts_milestone ON issue_filter_counts (project_id, milestone);
INSERT INTO issue_filter_counts (project_id, author, milestone, state, confidential, n)
  SELECT project_id, ifnull(author_id, 0), ifnull(milestone_id, 0), state, confidential, count(*) FROM issues
  GROUP BY project_id, ifnull(author_id, 0), ifnull(milestone_id, 0), state, confidential;
CREATE TRIGGER issues_filter_count_insert AFTER INSERT ON issues BEGIN
  INSERT INTO issue_filter_counts (project_id, author, milestone, state, confidential, n)
    VALUES (NEW.project_id, ifnull(NEW.author_id, 0), ifnull(NEW.milestone_id, 0), NEW.state, NEW.confidential, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER issues_filter_count_delete AFTER DELETE ON issues BEGIN
  UPDATE issue_filter_counts SET n = n - 1 WHERE project_id = OLD.project_id AND author = ifnull(OLD.author_id, 0)
    AND milestone = ifnull(OLD.milestone_id, 0) AND state = OLD.state AND confidential = OLD.confidential;
END;
CREATE TRIGGER issues_filter_count_update AFTER UPDATE OF project_id, author_id, milestone_id, state, confidential ON issues
  WHEN NEW.project_id != OLD.project_id OR NEW.author_id IS NOT OLD.author_id OR NEW.milestone_id IS NOT OLD.milestone_id
    OR NEW.state != OLD.state OR NEW.confidential != OLD.confidential BEGIN
  UPDATE issue_filter_counts SET n = n - 1 WHERE project_id = OLD.project_id AND author = ifnull(OLD.author_id, 0)
    AND milestone = ifnull(OLD.milestone_id, 0) AND state = OLD.state AND confidential = OLD.confidential;
  INSERT INTO issue_filter_counts (project_id, author, milestone, state, confidential, n)
    VALUES (NEW.project_id, ifnull(NEW.author_id, 0), ifnull(NEW.milestone_id, 0), NEW.state, NEW.confidential, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
`,
  },
  {
    // Deep pages of a project's issues start after a row an earlier page read (PageAnchors) while
    // the project's issues stay as they were: a version per project, moved on by every insert,
    // update and delete of its issues (a move moves both projects'), tells the anchors apart.
    name: 'core/019_issue_list_versions',
    sql: `
CREATE TABLE issue_list_versions (project_id INTEGER PRIMARY KEY, version INTEGER NOT NULL);
CREATE TRIGGER issues_list_version_insert AFTER INSERT ON issues BEGIN
  INSERT INTO issue_list_versions (project_id, version) VALUES (NEW.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER issues_list_version_delete AFTER DELETE ON issues BEGIN
  INSERT INTO issue_list_versions (project_id, version) VALUES (OLD.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER issues_list_version_update AFTER UPDATE ON issues BEGIN
  INSERT INTO issue_list_versions (project_id, version) VALUES (NEW.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
  INSERT INTO issue_list_versions (project_id, version) SELECT OLD.project_id, 1 WHERE OLD.project_id != NEW.project_id
    ON CONFLICT DO UPDATE SET version = version + 1;
END;
`,
  },
  {
    // The same for merge requests: deep pages (PageAnchors) and a project's remembered search
    // counts hold while the project's merge requests stay as they were.
    name: 'core/020_merge_request_list_versions',
    sql: `
CREATE TABLE merge_request_list_versions (project_id INTEGER PRIMARY KEY, version INTEGER NOT NULL);
CREATE TRIGGER merge_requests_list_version_insert AFTER INSERT ON merge_requests BEGIN
  INSERT INTO merge_request_list_versions (project_id, version) VALUES (NEW.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER merge_requests_list_version_delete AFTER DELETE ON merge_requests BEGIN
  INSERT INTO merge_request_list_versions (project_id, version) VALUES (OLD.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER merge_requests_list_version_update AFTER UPDATE ON merge_requests BEGIN
  INSERT INTO merge_request_list_versions (project_id, version) VALUES (NEW.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
  INSERT INTO merge_request_list_versions (project_id, version) SELECT OLD.project_id, 1 WHERE OLD.project_id != NEW.project_id
    ON CONFLICT DO UPDATE SET version = version + 1;
END;
`,
  },
  {
    // A project's events filtered by action (`?action=closed`) read their own index entries in id
    // order: the page and the capped count of 10,001 no longer read every event's row to check it.
    name: 'core/021_project_event_actions',
    sql: `CREATE INDEX events_project_action ON events (project_id, action, id);`,
  },
  {
    // Deep pages of a project's events and of a record's notes start after a row an earlier page
    // read (PageAnchors) while those events or notes stay as they were: a version per project
    // (events) and per noteable (notes), moved on by every insert, update and delete (cascades included).
    name: 'core/022_event_and_note_list_versions',
    sql: `
CREATE TABLE event_list_versions (project_id INTEGER PRIMARY KEY, version INTEGER NOT NULL);
CREATE TRIGGER events_list_version_insert AFTER INSERT ON events WHEN NEW.project_id IS NOT NULL BEGIN
  INSERT INTO event_list_versions (project_id, version) VALUES (NEW.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER events_list_version_delete AFTER DELETE ON events WHEN OLD.project_id IS NOT NULL BEGIN
  INSERT INTO event_list_versions (project_id, version) VALUES (OLD.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER events_list_version_update AFTER UPDATE ON events BEGIN
  INSERT INTO event_list_versions (project_id, version) SELECT NEW.project_id, 1 WHERE NEW.project_id IS NOT NULL
    ON CONFLICT DO UPDATE SET version = version + 1;
  INSERT INTO event_list_versions (project_id, version) SELECT OLD.project_id, 1 WHERE OLD.project_id IS NOT NULL AND OLD.project_id IS NOT NEW.project_id
    ON CONFLICT DO UPDATE SET version = version + 1;
END;
CREATE TABLE note_list_versions (
  noteable_type TEXT NOT NULL,
  noteable_id INTEGER NOT NULL,
  version INTEGER NOT NULL,
  PRIMARY KEY (noteable_type, noteable_id)
) WITHOUT ROWID;
CREATE TRIGGER notes_list_version_insert AFTER INSERT ON notes BEGIN
  INSERT INTO note_list_versions (noteable_type, noteable_id, version) VALUES (NEW.noteable_type, NEW.noteable_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER notes_list_version_delete AFTER DELETE ON notes BEGIN
  INSERT INTO note_list_versions (noteable_type, noteable_id, version) VALUES (OLD.noteable_type, OLD.noteable_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER notes_list_version_update AFTER UPDATE ON notes BEGIN
  INSERT INTO note_list_versions (noteable_type, noteable_id, version) VALUES (NEW.noteable_type, NEW.noteable_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
  INSERT INTO note_list_versions (noteable_type, noteable_id, version) SELECT OLD.noteable_type, OLD.noteable_id, 1
    WHERE OLD.noteable_type != NEW.noteable_type OR OLD.noteable_id != NEW.noteable_id
    ON CONFLICT DO UPDATE SET version = version + 1;
END;
`,
  },
  {
    // An issue's or merge request's user_notes_count (its notes that are not system notes) read
    // from a counter per record kept by triggers, instead of counting the record's notes on every
    // list page: a page holding an issue with 200,000 notes counted them all (~130 ms).
    name: 'core/023_user_note_counts',
    sql: `
CREATE TABLE user_note_counts (
  noteable_type TEXT NOT NULL,
  noteable_id INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (noteable_type, noteable_id)
) WITHOUT ROWID;
INSERT INTO user_note_counts (noteable_type, noteable_id, n)
  SELECT noteable_type, noteable_id, count(*) FROM notes WHERE system = 0 GROUP BY noteable_type, noteable_id;
CREATE TRIGGER notes_user_count_insert AFTER INSERT ON notes WHEN NEW.system = 0 BEGIN
  INSERT INTO user_note_counts (noteable_type, noteable_id, n) VALUES (NEW.noteable_type, NEW.noteable_id, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER notes_user_count_delete AFTER DELETE ON notes WHEN OLD.system = 0 BEGIN
  UPDATE user_note_counts SET n = n - 1 WHERE noteable_type = OLD.noteable_type AND noteable_id = OLD.noteable_id;
END;
CREATE TRIGGER notes_user_count_update AFTER UPDATE OF noteable_type, noteable_id, system ON notes
  WHEN NEW.noteable_type != OLD.noteable_type OR NEW.noteable_id != OLD.noteable_id OR NEW.system != OLD.system BEGIN
  UPDATE user_note_counts SET n = n - 1 WHERE OLD.system = 0 AND noteable_type = OLD.noteable_type AND noteable_id = OLD.noteable_id;
  INSERT INTO user_note_counts (noteable_type, noteable_id, n) SELECT NEW.noteable_type, NEW.noteable_id, 1 WHERE NEW.system = 0
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
`,
  },
  {
    // Deep pages of a project's issues by created_at or title start after an anchor row while the
    // project's issues keep their rows and order (PageAnchors): a version per project moved on only
    // by a write that may add, drop or move a row of such a list: an insert, a delete, a move, or
    // a change to a column those lists filter or sort on (issuableListAnchors). Editing a
    // description, labels or a due date no longer sends the next deep page back to the start.
    name: 'core/024_issue_order_versions',
    sql: `
CREATE TABLE issue_order_versions (project_id INTEGER PRIMARY KEY, version INTEGER NOT NULL);
CREATE TRIGGER issues_order_version_insert AFTER INSERT ON issues BEGIN
  INSERT INTO issue_order_versions (project_id, version) VALUES (NEW.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER issues_order_version_delete AFTER DELETE ON issues BEGIN
  INSERT INTO issue_order_versions (project_id, version) VALUES (OLD.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER issues_order_version_update AFTER UPDATE ON issues
  WHEN NEW.id != OLD.id OR NEW.project_id != OLD.project_id OR NEW.created_at != OLD.created_at OR NEW.title != OLD.title
    OR NEW.state != OLD.state OR NEW.author_id IS NOT OLD.author_id OR NEW.confidential != OLD.confidential
    OR NEW.assignee_ids != OLD.assignee_ids BEGIN
  INSERT INTO issue_order_versions (project_id, version) VALUES (NEW.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
  INSERT INTO issue_order_versions (project_id, version) SELECT OLD.project_id, 1 WHERE OLD.project_id != NEW.project_id
    ON CONFLICT DO UPDATE SET version = version + 1;
END;
`,
  },
  {
    // Which issue each of a project's recent inserts added (core/024's version it made): anchors of
    // an earlier version are moved along by the new rows in their list instead of dropped when
    // inserts are all that happened since (PageAnchors.inserted). The log keeps the last 100 per project.
    name: 'core/025_issue_order_inserts',
    sql: `
CREATE TABLE issue_order_inserts (
  project_id INTEGER NOT NULL,
  version INTEGER NOT NULL,
  issue_id INTEGER NOT NULL,
  PRIMARY KEY (project_id, version)
) WITHOUT ROWID;
DROP TRIGGER issues_order_version_insert;
CREATE TRIGGER issues_order_version_insert AFTER INSERT ON issues BEGIN
  INSERT INTO issue_order_versions (project_id, version) VALUES (NEW.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
  INSERT INTO issue_order_inserts (project_id, version, issue_id)
    SELECT project_id, version, NEW.id FROM issue_order_versions WHERE project_id = NEW.project_id;
  DELETE FROM issue_order_inserts WHERE project_id = NEW.project_id
    AND version <= (SELECT version - 100 FROM issue_order_versions WHERE project_id = NEW.project_id);
END;
`,
  },
  {
    // A project's merge requests filtered by author or milestone (alone or with a state), as
    // core/014 and core/018 did for issues: an index per filter that keeps the default order, so a
    // page reads matching rows in order, and counters kept by triggers, so the capped count reads
    // a few counter rows instead of walking 10,001 index entries. No author or no milestone is
    // kept as 0; the columns are `author` and `milestone` for the reason core/018 gives.
    name: 'core/028_merge_request_filter_counts',
    sql: `
CREATE INDEX merge_requests_project_author_created ON merge_requests (project_id, author_id, created_at, id);
CREATE INDEX merge_requests_project_milestone_created ON merge_requests (project_id, milestone_id, created_at, id);
CREATE TABLE merge_request_filter_counts (
  project_id INTEGER NOT NULL,
  author INTEGER NOT NULL,
  milestone INTEGER NOT NULL,
  state TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (project_id, author, milestone, state)
) WITHOUT ROWID;
CREATE INDEX merge_request_filter_counts_milestone ON merge_request_filter_counts (project_id, milestone);
INSERT INTO merge_request_filter_counts (project_id, author, milestone, state, n)
  SELECT project_id, ifnull(author_id, 0), ifnull(milestone_id, 0), state, count(*) FROM merge_requests
  GROUP BY project_id, ifnull(author_id, 0), ifnull(milestone_id, 0), state;
CREATE TRIGGER merge_requests_filter_count_insert AFTER INSERT ON merge_requests BEGIN
  INSERT INTO merge_request_filter_counts (project_id, author, milestone, state, n)
    VALUES (NEW.project_id, ifnull(NEW.author_id, 0), ifnull(NEW.milestone_id, 0), NEW.state, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER merge_requests_filter_count_delete AFTER DELETE ON merge_requests BEGIN
  UPDATE merge_request_filter_counts SET n = n - 1 WHERE project_id = OLD.project_id AND author = ifnull(OLD.author_id, 0)
    AND milestone = ifnull(OLD.milestone_id, 0) AND state = OLD.state;
END;
CREATE TRIGGER merge_requests_filter_count_update AFTER UPDATE OF project_id, author_id, milestone_id, state ON merge_requests
  WHEN NEW.project_id != OLD.project_id OR NEW.author_id IS NOT OLD.author_id OR NEW.milestone_id IS NOT OLD.milestone_id
    OR NEW.state != OLD.state BEGIN
  UPDATE merge_request_filter_counts SET n = n - 1 WHERE project_id = OLD.project_id AND author = ifnull(OLD.author_id, 0)
    AND milestone = ifnull(OLD.milestone_id, 0) AND state = OLD.state;
  INSERT INTO merge_request_filter_counts (project_id, author, milestone, state, n)
    VALUES (NEW.project_id, ifnull(NEW.author_id, 0), ifnull(NEW.milestone_id, 0), NEW.state, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
`,
  },
  {
    // A project's merge requests by source or target branch (GET ...?source_branch=, what a
    // client asks to find the request of a branch): an index per branch side that keeps the
    // default order, so the page and its capped count read the branch's entries instead of
    // walking every merge request of the project checking the branch (~650 ms at a million).
    name: 'core/029_merge_request_branch_indexes',
    sql: `
CREATE INDEX merge_requests_project_source_branch ON merge_requests (project_id, source_branch, created_at, id);
CREATE INDEX merge_requests_project_target_branch ON merge_requests (project_id, target_branch, created_at, id);
`,
  },
  {
    // A project's merge requests by one label in the default order (created_at) read from the
    // label's rows in that order: merge-request label rows carry their record's created_at (kept
    // by the label triggers, and on a created_at change), indexed after project and title, so page
    // 1 reads its rows from the index instead of walking the list in order probing each record's
    // labels (the newest records may hold none of the label). The state rides along in the index
    // for state=...&labels=.... A second index without the project serves a group's or the
    // instance's list the same way. Issue label rows leave created_at NULL (outside the indexes).
    name: 'core/030_merge_request_label_dates',
    sql: `
ALTER TABLE issuable_labels ADD COLUMN created_at TEXT;
UPDATE issuable_labels SET created_at = (SELECT created_at FROM merge_requests WHERE id = issuable_id) WHERE issuable_type = 'MergeRequest';
CREATE INDEX issuable_labels_created ON issuable_labels (issuable_type, project_id, title COLLATE NOCASE, created_at, issuable_id, state)
  WHERE created_at IS NOT NULL;
CREATE INDEX issuable_labels_title_created ON issuable_labels (issuable_type, title COLLATE NOCASE, created_at, issuable_id, state)
  WHERE created_at IS NOT NULL;

DROP TRIGGER merge_requests_labels_insert;
CREATE TRIGGER merge_requests_labels_insert AFTER INSERT ON merge_requests WHEN NEW.labels != '[]' BEGIN
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state, created_at)
    SELECT 'MergeRequest', NEW.id, value, NEW.project_id, NEW.state, NEW.created_at FROM json_each(NEW.labels);
END;
DROP TRIGGER merge_requests_labels_update;
CREATE TRIGGER merge_requests_labels_update AFTER UPDATE OF labels ON merge_requests WHEN NEW.labels != OLD.labels BEGIN
  DELETE FROM issuable_labels WHERE issuable_type = 'MergeRequest' AND issuable_id = OLD.id;
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state, created_at)
    SELECT 'MergeRequest', NEW.id, value, NEW.project_id, NEW.state, NEW.created_at FROM json_each(NEW.labels);
END;
CREATE TRIGGER merge_requests_labels_created AFTER UPDATE OF created_at ON merge_requests WHEN NEW.created_at != OLD.created_at BEGIN
  UPDATE issuable_labels SET created_at = NEW.created_at WHERE issuable_type = 'MergeRequest' AND issuable_id = NEW.id;
END;
`,
  },
  {
    // Project search (\`search\` on name, path and description) through a trigram full-text index,
    // kept by triggers, as labels/002 does for labels: a term few projects hold no longer reads
    // every project of the instance with LIKE (see db/trigram.ts). Contentless: no copy of the text.
    name: 'core/032_project_search',
    sql: `
CREATE VIRTUAL TABLE projects_search USING fts5(name, path, description, content = '', contentless_delete = 1, tokenize = 'trigram');
INSERT INTO projects_search (rowid, name, path, description) SELECT id, name, path, description FROM projects;
INSERT INTO projects_search (projects_search) VALUES ('optimize');
CREATE TRIGGER projects_search_insert AFTER INSERT ON projects BEGIN
  INSERT INTO projects_search (rowid, name, path, description) VALUES (NEW.id, NEW.name, NEW.path, NEW.description);
END;
CREATE TRIGGER projects_search_update AFTER UPDATE OF id, name, path, description ON projects BEGIN
  DELETE FROM projects_search WHERE rowid = OLD.id;
  INSERT INTO projects_search (rowid, name, path, description) VALUES (NEW.id, NEW.name, NEW.path, NEW.description);
END;
CREATE TRIGGER projects_search_delete AFTER DELETE ON projects BEGIN
  DELETE FROM projects_search WHERE rowid = OLD.id;
END;
`,
  },
  {
    // User search as core/032 does for projects: users by username and name (the exact e-mail
    // match reads its own index). Groups (2,000 at scale) are left to LIKE: their few rows read
    // faster than the index finds a common trigram's.
    name: 'core/033_user_search',
    sql: `
CREATE VIRTUAL TABLE users_search USING fts5(username, name, content = '', contentless_delete = 1, tokenize = 'trigram');
INSERT INTO users_search (rowid, username, name) SELECT id, username, name FROM users;
INSERT INTO users_search (users_search) VALUES ('optimize');
CREATE TRIGGER users_search_insert AFTER INSERT ON users BEGIN
  INSERT INTO users_search (rowid, username, name) VALUES (NEW.id, NEW.username, NEW.name);
END;
CREATE TRIGGER users_search_update AFTER UPDATE OF id, username, name ON users BEGIN
  DELETE FROM users_search WHERE rowid = OLD.id;
  INSERT INTO users_search (rowid, username, name) VALUES (NEW.id, NEW.username, NEW.name);
END;
CREATE TRIGGER users_search_delete AFTER DELETE ON users BEGIN
  DELETE FROM users_search WHERE rowid = OLD.id;
END;
`,
  },
  {
    // The label counters (core/016) by title: a label filter over many projects (a group's list,
    // the instance's) sums the title's counters of the projects in scope, reading the title's
    // rows instead of looking up every project of the scope.
    name: 'core/031_label_counts_by_title',
    sql: `
CREATE INDEX label_counts_title ON label_counts (issuable_type, title COLLATE NOCASE, state, project_id);
`,
  },
  {
    // Issues and merge requests by a milestone's title and one label (`milestone=v1&labels=bug`):
    // no counter held the pair, so the capped count walked the milestone's records probing each
    // one's labels (~64,000 records at a million). Label rows now carry their record's milestone
    // (kept by the label triggers and on a milestone change, the SET NULL of a deleted milestone
    // included), counted per record type, project, milestone, exact title, state and
    // confidentiality as core/016 counts labels; an index reads the pair's rows for an exact count
    // when there are few. Epic label rows and records without a milestone stay out of both.
    name: 'core/034_label_milestone_counts',
    sql: `
ALTER TABLE issuable_labels ADD COLUMN milestone INTEGER;
UPDATE issuable_labels SET milestone = m.milestone_id FROM issues m
  WHERE issuable_labels.issuable_type = 'Issue' AND m.id = issuable_labels.issuable_id AND m.milestone_id IS NOT NULL;
UPDATE issuable_labels SET milestone = m.milestone_id FROM merge_requests m
  WHERE issuable_labels.issuable_type = 'MergeRequest' AND m.id = issuable_labels.issuable_id AND m.milestone_id IS NOT NULL;
CREATE INDEX issuable_labels_milestone ON issuable_labels (issuable_type, project_id, milestone, title COLLATE NOCASE, state, issuable_id)
  WHERE milestone IS NOT NULL;

DROP TRIGGER issues_labels_insert;
CREATE TRIGGER issues_labels_insert AFTER INSERT ON issues WHEN NEW.labels != '[]' BEGIN
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state, confidential, milestone)
    SELECT 'Issue', NEW.id, value, NEW.project_id, NEW.state, NEW.confidential, NEW.milestone_id FROM json_each(NEW.labels);
END;
DROP TRIGGER issues_labels_update;
CREATE TRIGGER issues_labels_update AFTER UPDATE OF labels ON issues WHEN NEW.labels != OLD.labels BEGIN
  DELETE FROM issuable_labels WHERE issuable_type = 'Issue' AND issuable_id = OLD.id;
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state, confidential, milestone)
    SELECT 'Issue', NEW.id, value, NEW.project_id, NEW.state, NEW.confidential, NEW.milestone_id FROM json_each(NEW.labels);
END;
CREATE TRIGGER issues_labels_milestone AFTER UPDATE OF milestone_id ON issues WHEN NEW.milestone_id IS NOT OLD.milestone_id BEGIN
  UPDATE issuable_labels SET milestone = NEW.milestone_id WHERE issuable_type = 'Issue' AND issuable_id = NEW.id;
END;
DROP TRIGGER merge_requests_labels_insert;
CREATE TRIGGER merge_requests_labels_insert AFTER INSERT ON merge_requests WHEN NEW.labels != '[]' BEGIN
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state, created_at, milestone)
    SELECT 'MergeRequest', NEW.id, value, NEW.project_id, NEW.state, NEW.created_at, NEW.milestone_id FROM json_each(NEW.labels);
END;
DROP TRIGGER merge_requests_labels_update;
CREATE TRIGGER merge_requests_labels_update AFTER UPDATE OF labels ON merge_requests WHEN NEW.labels != OLD.labels BEGIN
  DELETE FROM issuable_labels WHERE issuable_type = 'MergeRequest' AND issuable_id = OLD.id;
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state, created_at, milestone)
    SELECT 'MergeRequest', NEW.id, value, NEW.project_id, NEW.state, NEW.created_at, NEW.milestone_id FROM json_each(NEW.labels);
END;
CREATE TRIGGER merge_requests_labels_milestone AFTER UPDATE OF milestone_id ON merge_requests WHEN NEW.milestone_id IS NOT OLD.milestone_id BEGIN
  UPDATE issuable_labels SET milestone = NEW.milestone_id WHERE issuable_type = 'MergeRequest' AND issuable_id = NEW.id;
END;

CREATE TABLE label_milestone_counts (
  issuable_type TEXT NOT NULL,
  project_id INTEGER NOT NULL,
  milestone INTEGER NOT NULL,
  title TEXT NOT NULL,
  state TEXT NOT NULL,
  confidential INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (issuable_type, project_id, milestone, title, state, confidential)
) WITHOUT ROWID;
INSERT INTO label_milestone_counts (issuable_type, project_id, milestone, title, state, confidential, n)
  SELECT issuable_type, project_id, milestone, title, state, confidential, count(*) FROM issuable_labels
  WHERE project_id IS NOT NULL AND milestone IS NOT NULL GROUP BY issuable_type, project_id, milestone, title, state, confidential;
CREATE TRIGGER issuable_labels_milestone_count_insert AFTER INSERT ON issuable_labels
  WHEN NEW.project_id IS NOT NULL AND NEW.milestone IS NOT NULL BEGIN
  INSERT INTO label_milestone_counts (issuable_type, project_id, milestone, title, state, confidential, n)
    VALUES (NEW.issuable_type, NEW.project_id, NEW.milestone, NEW.title, NEW.state, NEW.confidential, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER issuable_labels_milestone_count_delete AFTER DELETE ON issuable_labels
  WHEN OLD.project_id IS NOT NULL AND OLD.milestone IS NOT NULL BEGIN
  UPDATE label_milestone_counts SET n = n - 1 WHERE issuable_type = OLD.issuable_type AND project_id = OLD.project_id
    AND milestone = OLD.milestone AND title = OLD.title AND state = OLD.state AND confidential = OLD.confidential;
END;
CREATE TRIGGER issuable_labels_milestone_count_update AFTER UPDATE OF project_id, milestone, state, confidential, title ON issuable_labels BEGIN
  UPDATE label_milestone_counts SET n = n - 1 WHERE OLD.project_id IS NOT NULL AND OLD.milestone IS NOT NULL
    AND issuable_type = OLD.issuable_type AND project_id = OLD.project_id AND milestone = OLD.milestone
    AND title = OLD.title AND state = OLD.state AND confidential = OLD.confidential;
  INSERT INTO label_milestone_counts (issuable_type, project_id, milestone, title, state, confidential, n)
    SELECT NEW.issuable_type, NEW.project_id, NEW.milestone, NEW.title, NEW.state, NEW.confidential, 1
    WHERE NEW.project_id IS NOT NULL AND NEW.milestone IS NOT NULL
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
`,
  },
  {
    // Merge requests by state over many projects (a group's list, the instance's) read their page
    // from an instance-wide (state, created_at) index instead of walking every merge request in
    // date order past the ones in other states. And a project's merge requests by target branch
    // (alone or with a state) counted per branch and state by triggers, as core/017 counts states:
    // the capped count read 10,001 index entries of a common branch (main) for every page.
    name: 'core/036_merge_request_state_branch_counts',
    sql: `
CREATE INDEX merge_requests_state_created ON merge_requests (state, created_at, id);
CREATE TABLE merge_request_branch_counts (
  project_id INTEGER NOT NULL,
  target_branch TEXT NOT NULL,
  state TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (project_id, target_branch, state)
) WITHOUT ROWID;
INSERT INTO merge_request_branch_counts (project_id, target_branch, state, n)
  SELECT project_id, target_branch, state, count(*) FROM merge_requests GROUP BY project_id, target_branch, state;
CREATE TRIGGER merge_requests_branch_count_insert AFTER INSERT ON merge_requests BEGIN
  INSERT INTO merge_request_branch_counts (project_id, target_branch, state, n) VALUES (NEW.project_id, NEW.target_branch, NEW.state, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER merge_requests_branch_count_delete AFTER DELETE ON merge_requests BEGIN
  UPDATE merge_request_branch_counts SET n = n - 1 WHERE project_id = OLD.project_id AND target_branch = OLD.target_branch AND state = OLD.state;
END;
CREATE TRIGGER merge_requests_branch_count_update AFTER UPDATE OF project_id, target_branch, state ON merge_requests
  WHEN NEW.project_id != OLD.project_id OR NEW.target_branch != OLD.target_branch OR NEW.state != OLD.state BEGIN
  UPDATE merge_request_branch_counts SET n = n - 1 WHERE project_id = OLD.project_id AND target_branch = OLD.target_branch AND state = OLD.state;
  INSERT INTO merge_request_branch_counts (project_id, target_branch, state, n) VALUES (NEW.project_id, NEW.target_branch, NEW.state, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
`,
  },
  {
    // Each project's events counted by triggers (project_id 0: events outside any project), so a
    // project's unfiltered events list, or an administrator's list of every project's, takes its
    // total from here instead of walking 10,001 index entries to learn it has more than 10,000.
    name: 'core/035_event_counts',
    sql: `
CREATE TABLE event_counts (project_id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
INSERT INTO event_counts (project_id, n) SELECT coalesce(project_id, 0), count(*) FROM events GROUP BY coalesce(project_id, 0);
CREATE TRIGGER events_count_insert AFTER INSERT ON events BEGIN
  INSERT INTO event_counts (project_id, n) VALUES (coalesce(NEW.project_id, 0), 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER events_count_delete AFTER DELETE ON events BEGIN
  UPDATE event_counts SET n = n - 1 WHERE project_id = coalesce(OLD.project_id, 0);
END;
CREATE TRIGGER events_count_move AFTER UPDATE OF project_id ON events WHEN OLD.project_id IS NOT NEW.project_id BEGIN
  UPDATE event_counts SET n = n - 1 WHERE project_id = coalesce(OLD.project_id, 0);
  INSERT INTO event_counts (project_id, n) VALUES (coalesce(NEW.project_id, 0), 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;
`,
  },
  {
    // An administrator's events of every project (\`/events?scope=all\`) and a member's of their
    // projects read the list newest first joined to projects: events outside any project (group
    // memberships: the 12,000 newest at scale) were walked and dropped one by one before a page of
    // 20 was found. The events in a project, by id, are read directly here instead.
    name: 'core/037_events_in_projects',
    sql: `
CREATE INDEX events_in_projects ON events (id) WHERE project_id IS NOT NULL;
`,
  },
  {
    // Issues by one label in the default order (created_at) read from the label's rows in that
    // order, as core/030 made merge requests do: issue label rows now carry their record's
    // created_at too (kept by the label triggers, core/034's redefined, and on a created_at
    // change), so they enter the same two partial indexes. Before, the page walked the issues in
    // list order probing each one's labels (every issue newer than the label's newest).
    name: 'core/038_issue_label_dates',
    sql: `
-- The two indexes are built again after the rows are filled (cheaper than 664,000 inserts into them at scale).
DROP INDEX issuable_labels_created;
DROP INDEX issuable_labels_title_created;
UPDATE issuable_labels SET created_at = m.created_at FROM issues m
  WHERE issuable_labels.issuable_type = 'Issue' AND m.id = issuable_labels.issuable_id;
CREATE INDEX issuable_labels_created ON issuable_labels (issuable_type, project_id, title COLLATE NOCASE, created_at, issuable_id, state)
  WHERE created_at IS NOT NULL;
CREATE INDEX issuable_labels_title_created ON issuable_labels (issuable_type, title COLLATE NOCASE, created_at, issuable_id, state)
  WHERE created_at IS NOT NULL;

DROP TRIGGER issues_labels_insert;
CREATE TRIGGER issues_labels_insert AFTER INSERT ON issues WHEN NEW.labels != '[]' BEGIN
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state, confidential, milestone, created_at)
    SELECT 'Issue', NEW.id, value, NEW.project_id, NEW.state, NEW.confidential, NEW.milestone_id, NEW.created_at FROM json_each(NEW.labels);
END;
DROP TRIGGER issues_labels_update;
CREATE TRIGGER issues_labels_update AFTER UPDATE OF labels ON issues WHEN NEW.labels != OLD.labels BEGIN
  DELETE FROM issuable_labels WHERE issuable_type = 'Issue' AND issuable_id = OLD.id;
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state, confidential, milestone, created_at)
    SELECT 'Issue', NEW.id, value, NEW.project_id, NEW.state, NEW.confidential, NEW.milestone_id, NEW.created_at FROM json_each(NEW.labels);
END;
CREATE TRIGGER issues_labels_created AFTER UPDATE OF created_at ON issues WHEN NEW.created_at IS NOT OLD.created_at BEGIN
  UPDATE issuable_labels SET created_at = NEW.created_at WHERE issuable_type = 'Issue' AND issuable_id = NEW.id;
END;
`,
  },
  {
    // Each author's events in a project counted, and a version per author moved on by every
    // insert, update and delete of their events (cascades included), kept by triggers: an
    // administrator's list of a user's events (`/users/:id/events`, their own `/events`) takes
    // its total from here instead of walking 10,001 events to learn it has more than 10,000, and
    // its deep pages (and those of every project's events, whose version is the authors' sum)
    // start after a row an earlier page read while the version stays.
    name: 'core/045_event_author_counts',
    sql: `
CREATE TABLE event_author_counts (author_id INTEGER PRIMARY KEY, n INTEGER NOT NULL, version INTEGER NOT NULL);
INSERT INTO event_author_counts (author_id, n, version) SELECT author_id, count(*), 1 FROM events GROUP BY author_id;
WITH outside AS (SELECT author_id, count(*) AS c FROM events WHERE project_id IS NULL GROUP BY author_id)
UPDATE event_author_counts SET n = n - outside.c FROM outside WHERE outside.author_id = event_author_counts.author_id;
CREATE TRIGGER events_author_count_insert AFTER INSERT ON events BEGIN
  INSERT INTO event_author_counts (author_id, n, version) VALUES (NEW.author_id, NEW.project_id IS NOT NULL, 1)
    ON CONFLICT DO UPDATE SET n = n + excluded.n, version = version + 1;
END;
CREATE TRIGGER events_author_count_delete AFTER DELETE ON events BEGIN
  UPDATE event_author_counts SET n = n - (OLD.project_id IS NOT NULL), version = version + 1 WHERE author_id = OLD.author_id;
END;
CREATE TRIGGER events_author_count_update AFTER UPDATE ON events BEGIN
  UPDATE event_author_counts SET n = n - (OLD.project_id IS NOT NULL), version = version + 1 WHERE author_id = OLD.author_id;
  INSERT INTO event_author_counts (author_id, n, version) VALUES (NEW.author_id, NEW.project_id IS NOT NULL, 1)
    ON CONFLICT DO UPDATE SET n = n + excluded.n, version = version + 1;
END;
`,
  },
  {
    // Each project's events counted per target type (project_id 0: events outside any project),
    // kept by triggers as core/035 counts them all: a project's events by `target_type`, or an
    // administrator's of every project, take their total from here instead of reading 10,001
    // events (each one's row, for its type) to learn there are more than 10,000.
    name: 'core/046_event_target_counts',
    sql: `
CREATE TABLE event_target_counts (
  target_type TEXT NOT NULL,
  project_id INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (target_type, project_id)
) WITHOUT ROWID;
INSERT INTO event_target_counts (target_type, project_id, n)
  SELECT target_type, coalesce(project_id, 0), count(*) FROM events WHERE target_type IS NOT NULL GROUP BY target_type, coalesce(project_id, 0);
CREATE TRIGGER events_target_count_insert AFTER INSERT ON events WHEN NEW.target_type IS NOT NULL BEGIN
  INSERT INTO event_target_counts (target_type, project_id, n) VALUES (NEW.target_type, coalesce(NEW.project_id, 0), 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER events_target_count_delete AFTER DELETE ON events WHEN OLD.target_type IS NOT NULL BEGIN
  UPDATE event_target_counts SET n = n - 1 WHERE target_type = OLD.target_type AND project_id = coalesce(OLD.project_id, 0);
END;
CREATE TRIGGER events_target_count_update AFTER UPDATE OF project_id, target_type ON events
  WHEN OLD.project_id IS NOT NEW.project_id OR OLD.target_type IS NOT NEW.target_type BEGIN
  UPDATE event_target_counts SET n = n - 1 WHERE OLD.target_type IS NOT NULL AND target_type = OLD.target_type AND project_id = coalesce(OLD.project_id, 0);
  INSERT INTO event_target_counts (target_type, project_id, n) SELECT NEW.target_type, coalesce(NEW.project_id, 0), 1 WHERE NEW.target_type IS NOT NULL
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
`,
  },
  {
    // Which record each write to a project's issues or merge requests touched, one row per move
    // of core/019's and core/020's list versions (the same events: every insert, update and
    // delete; a move logs in both projects): a remembered search walk is patched by the records
    // written since instead of walked again from the start (searchWalkRows). The log keeps the
    // last 1,000 writes of the instance; a walk whose writes it no longer holds all of (fewer rows
    // than its version moved) walks again.
    name: 'core/041_issuable_list_writes',
    sql: `
CREATE TABLE issuable_list_writes (
  seq INTEGER PRIMARY KEY,
  issuable_type TEXT NOT NULL,
  project_id INTEGER NOT NULL,
  issuable_id INTEGER NOT NULL
);
CREATE INDEX issuable_list_writes_project ON issuable_list_writes (issuable_type, project_id, seq);
CREATE TRIGGER issues_list_write_insert AFTER INSERT ON issues BEGIN
  INSERT INTO issuable_list_writes (issuable_type, project_id, issuable_id) VALUES ('Issue', NEW.project_id, NEW.id);
  DELETE FROM issuable_list_writes WHERE seq <= last_insert_rowid() - 1000;
END;
CREATE TRIGGER issues_list_write_delete AFTER DELETE ON issues BEGIN
  INSERT INTO issuable_list_writes (issuable_type, project_id, issuable_id) VALUES ('Issue', OLD.project_id, OLD.id);
  DELETE FROM issuable_list_writes WHERE seq <= last_insert_rowid() - 1000;
END;
CREATE TRIGGER issues_list_write_update AFTER UPDATE ON issues BEGIN
  INSERT INTO issuable_list_writes (issuable_type, project_id, issuable_id) VALUES ('Issue', NEW.project_id, NEW.id);
  INSERT INTO issuable_list_writes (issuable_type, project_id, issuable_id) SELECT 'Issue', OLD.project_id, OLD.id WHERE OLD.project_id != NEW.project_id;
  DELETE FROM issuable_list_writes WHERE seq <= last_insert_rowid() - 1000;
END;
CREATE TRIGGER merge_requests_list_write_insert AFTER INSERT ON merge_requests BEGIN
  INSERT INTO issuable_list_writes (issuable_type, project_id, issuable_id) VALUES ('MergeRequest', NEW.project_id, NEW.id);
  DELETE FROM issuable_list_writes WHERE seq <= last_insert_rowid() - 1000;
END;
CREATE TRIGGER merge_requests_list_write_delete AFTER DELETE ON merge_requests BEGIN
  INSERT INTO issuable_list_writes (issuable_type, project_id, issuable_id) VALUES ('MergeRequest', OLD.project_id, OLD.id);
  DELETE FROM issuable_list_writes WHERE seq <= last_insert_rowid() - 1000;
END;
CREATE TRIGGER merge_requests_list_write_update AFTER UPDATE ON merge_requests BEGIN
  INSERT INTO issuable_list_writes (issuable_type, project_id, issuable_id) VALUES ('MergeRequest', NEW.project_id, NEW.id);
  INSERT INTO issuable_list_writes (issuable_type, project_id, issuable_id)
    SELECT 'MergeRequest', OLD.project_id, OLD.id WHERE OLD.project_id != NEW.project_id;
  DELETE FROM issuable_list_writes WHERE seq <= last_insert_rowid() - 1000;
END;
`,
  },
  {
    // Issues and merge requests by a milestone's title and one label, in the default order
    // (created_at): the label's rows on the milestone in that order, as core/030 and core/038 made
    // a label alone read (labelRowsPage). Before, a deep page walked the milestone's records and
    // probed each one's labels. Rows without a milestone stay out of it.
    name: 'core/042_issuable_label_milestone_dates',
    sql: `
CREATE INDEX issuable_labels_milestone_created ON issuable_labels (issuable_type, project_id, milestone, title COLLATE NOCASE, created_at, issuable_id, state)
  WHERE milestone IS NOT NULL AND created_at IS NOT NULL;
`,
  },
  {
    // A group's or project's direct members in GitLab's order (id): a page reads its rows in that
    // order instead of sorting every member in a temporary B-tree (a deep page of a group with
    // 2,000 members sorted all of them). memberListSql steers direct lists to it.
    name: 'core/048_members_source_order',
    sql: `
CREATE INDEX members_source_order ON members (source_type, source_id, id);
`,
  },
  {
    // Events by `target_type` (exact class name, as GitLab matches it) read their own index
    // entries in id order: a project's page, and every project's, no longer walk all the events
    // newest first to find the few of that type. target_type leads both indexes so that a
    // project's unfiltered list keeps events_project (with (project_id, target_type, id) SQLite
    // took that one for project_id alone and sorted the project's events).
    name: 'core/047_event_target_types',
    sql: `
CREATE INDEX events_target_project ON events (target_type, project_id, id);
CREATE INDEX events_target ON events (target_type, id);
`,
  },
  {
    // core/047's indexes made partial (target_type IS NOT NULL, which "target_type = ?" implies):
    // once a data dir has statistics for them (PRAGMA optimize, as bench/build-scale.ts runs),
    // SQLite read a project's unfiltered events by a skip-scan of events_target_project and sorted
    // them (0.12 -> 11.6 ms on snap8). A list without the filter can no longer use them.
    name: 'core/047_event_target_types_partial',
    sql: `
DROP INDEX events_target_project;
DROP INDEX events_target;
CREATE INDEX events_target_project ON events (target_type, project_id, id) WHERE target_type IS NOT NULL;
CREATE INDEX events_target ON events (target_type, id) WHERE target_type IS NOT NULL;
`,
  },
  {
    // Sandlab keeps no planner statistics: without sqlite_stat1 SQLite plans every query from its
    // shape alone, the same on a ten-row test and a million-row data dir, so what the tests pin is
    // what users run. The service never ran ANALYZE; only data dirs built by bench/build-scale.ts
    // before this migration carry statistics (its closing PRAGMA optimize), and they steered lists
    // onto indexes the tests never saw chosen (core/047_event_target_types_partial).
    name: 'core/049_no_planner_statistics',
    sql: `
DROP TABLE IF EXISTS sqlite_stat1;
DROP TABLE IF EXISTS sqlite_stat4;
`,
  },
  {
    // Events' ids follow their created_at (each is written at the time it records), so a date
    // filter (`before`/`after`) is an id range that the id-ordered lists read from their own
    // index (eventTimeSplit) instead of walking every event to compare dates. Nothing forces a
    // clock forward, so an event whose created_at is below one written before it (a clock set
    // back, an updated row) is kept here as an exception, with the highest created_at written so
    // far; a date whose split an exception would cross is filtered by created_at as before.
    name: 'core/058_event_time_order',
    sql: `
CREATE TABLE event_time_order (id INTEGER PRIMARY KEY CHECK (id = 1), max_created_at TEXT NOT NULL);
INSERT INTO event_time_order (id, max_created_at) VALUES (1, coalesce((SELECT max(created_at) FROM events), ''));
CREATE TABLE event_time_exceptions (id INTEGER PRIMARY KEY, created_at TEXT NOT NULL);
INSERT INTO event_time_exceptions (id, created_at)
  SELECT id, created_at FROM (
    SELECT id, created_at, max(created_at) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier FROM events
  ) WHERE created_at < earlier;
CREATE TRIGGER events_time_insert AFTER INSERT ON events BEGIN
  INSERT INTO event_time_exceptions (id, created_at) SELECT NEW.id, NEW.created_at FROM event_time_order WHERE NEW.created_at < max_created_at;
  UPDATE event_time_order SET max_created_at = NEW.created_at WHERE NEW.created_at > max_created_at;
END;
CREATE TRIGGER events_time_update AFTER UPDATE OF id, created_at ON events
  WHEN NEW.id IS NOT OLD.id OR NEW.created_at IS NOT OLD.created_at BEGIN
  DELETE FROM event_time_exceptions WHERE id = OLD.id;
  INSERT OR REPLACE INTO event_time_exceptions (id, created_at) VALUES (NEW.id, NEW.created_at);
  UPDATE event_time_order SET max_created_at = NEW.created_at WHERE NEW.created_at > max_created_at;
END;
CREATE TRIGGER events_time_delete AFTER DELETE ON events BEGIN
  DELETE FROM event_time_exceptions WHERE id = OLD.id;
END;
`,
  },
  {
    // A user's events in projects (`/users/:id/events`, one's own `/events`: the join to projects
    // implies project_id IS NOT NULL) read only those: events_author also holds their events
    // outside any project (group memberships, epics), and a page walked all of those newer than
    // it and dropped them one by one (the bench's administrator: 10,000 of them).
    name: 'core/059_events_author_in_projects',
    sql: `
CREATE INDEX events_author_in_projects ON events (author_id, id) WHERE project_id IS NOT NULL;
`,
  },
  {
    // Users with any text not printable ASCII (username, name, e-mail): members by `query` take
    // as candidates the users the search index (core/033) finds, those whose e-mail is the query,
    // and these, whose case JavaScript folds in ways the index may not (memberQueryCandidates).
    // The expression is the members filter's own, so SQLite reads this index for it.
    name: 'core/060_users_not_ascii',
    sql: `
CREATE INDEX users_not_ascii ON users (id) WHERE (coalesce(username, '') || coalesce(name, '') || coalesce(email, '')) GLOB '*[^ -~]*';
`,
  },
  {
    // Each group's and project's active direct members (a user, no access request) counted, and a
    // version per source moved on by every insert, update and delete of its members, kept by
    // triggers: a direct members list takes its total from here instead of reading every member
    // (2,001 at scale) on each request, and its deep pages start after a row an earlier page read
    // while the version stays (PageAnchors) instead of walking to them.
    name: 'core/061_member_list_counts',
    sql: `
CREATE TABLE member_list_counts (
  source_type TEXT NOT NULL,
  source_id INTEGER NOT NULL,
  n INTEGER NOT NULL,
  version INTEGER NOT NULL,
  PRIMARY KEY (source_type, source_id)
) WITHOUT ROWID;
INSERT INTO member_list_counts (source_type, source_id, n, version)
  SELECT source_type, source_id, sum(user_id IS NOT NULL AND requested_at IS NULL), 1 FROM members GROUP BY source_type, source_id;
CREATE TRIGGER members_list_count_insert AFTER INSERT ON members BEGIN
  INSERT INTO member_list_counts (source_type, source_id, n, version)
    VALUES (NEW.source_type, NEW.source_id, NEW.user_id IS NOT NULL AND NEW.requested_at IS NULL, 1)
    ON CONFLICT DO UPDATE SET n = n + excluded.n, version = version + 1;
END;
CREATE TRIGGER members_list_count_delete AFTER DELETE ON members BEGIN
  UPDATE member_list_counts SET n = n - (OLD.user_id IS NOT NULL AND OLD.requested_at IS NULL), version = version + 1
    WHERE source_type = OLD.source_type AND source_id = OLD.source_id;
END;
CREATE TRIGGER members_list_count_update AFTER UPDATE ON members BEGIN
  UPDATE member_list_counts SET n = n - (OLD.user_id IS NOT NULL AND OLD.requested_at IS NULL), version = version + 1
    WHERE source_type = OLD.source_type AND source_id = OLD.source_id;
  INSERT INTO member_list_counts (source_type, source_id, n, version)
    VALUES (NEW.source_type, NEW.source_id, NEW.user_id IS NOT NULL AND NEW.requested_at IS NULL, 1)
    ON CONFLICT DO UPDATE SET n = n + excluded.n, version = version + 1;
END;
`,
  },
  {
    // The instance lists' filters counted from index entries instead of whole rows (/projects
    // visibility= and archived=, /users active= and blocked=, /groups top_level_only=), and groups
    // in id order without sorting them all. Lists read their pages in the order's index with these
    // conditions written `+column` (ListWhere.walk) and count through them (ListWhere.narrow);
    // visibleProjectsSql writes `+p.visibility` so no other list of projects is planned through
    // projects_visibility. Groups' id order is partial (kind = 'group'): a plain (kind) index was
    // taken for users' personal namespaces in id order (`kind = 'user' AND owner_id IN (...)
    // ORDER BY id`), walking every user's.
    name: 'core/050_instance_list_filters',
    sql: `
CREATE INDEX projects_visibility ON projects (visibility);
CREATE INDEX projects_archived ON projects (archived);
CREATE INDEX users_state ON users (state);
CREATE INDEX namespaces_group_ids ON namespaces (kind, id) WHERE kind = 'group';
CREATE INDEX namespaces_kind_parent ON namespaces (kind, parent_id);
`,
  },
  {
    // Group search (/groups?search=, on name and path) as core/032 and core/033 do for projects
    // and users: a term few groups hold reads the candidates the trigram index finds and checks
    // them with the same LIKE, instead of two LIKEs over every group's row to count and to page
    // (2,000 groups: ~0.5 ms). Groups only (kind never changes); contentless.
    name: 'core/051_group_search',
    sql: `
CREATE VIRTUAL TABLE groups_search USING fts5(name, path, content = '', contentless_delete = 1, tokenize = 'trigram');
INSERT INTO groups_search (rowid, name, path) SELECT id, name, path FROM namespaces WHERE kind = 'group';
INSERT INTO groups_search (groups_search) VALUES ('optimize');
CREATE TRIGGER groups_search_insert AFTER INSERT ON namespaces WHEN NEW.kind = 'group' BEGIN
  INSERT INTO groups_search (rowid, name, path) VALUES (NEW.id, NEW.name, NEW.path);
END;
CREATE TRIGGER groups_search_update AFTER UPDATE OF id, name, path ON namespaces WHEN OLD.kind = 'group' BEGIN
  DELETE FROM groups_search WHERE rowid = OLD.id;
  INSERT INTO groups_search (rowid, name, path) VALUES (NEW.id, NEW.name, NEW.path);
END;
CREATE TRIGGER groups_search_delete AFTER DELETE ON namespaces WHEN OLD.kind = 'group' BEGIN
  DELETE FROM groups_search WHERE rowid = OLD.id;
END;
`,
  },
  {
    // Which issue numbers each merge request's title, description and comments mention (every
    // `#<digits>`, the digits as text): an issue's related merge requests (#N anywhere in them)
    // read their own rows (the numbers starting with N, as the LIKE '%#N%' they replace matched)
    // instead of scanning every merge request's text and every comment on one. Kept by triggers
    // on every write path; json_each splits the text at each '#' (CTEs are not allowed in
    // triggers). note_id 0: the merge request's own title and description.
    name: 'core/062_merge_request_mentions',
    sql: `
CREATE TABLE merge_request_mentions (
  number TEXT NOT NULL,
  merge_request_id INTEGER NOT NULL,
  note_id INTEGER NOT NULL,
  PRIMARY KEY (number, merge_request_id, note_id)
) WITHOUT ROWID;
CREATE INDEX merge_request_mentions_source ON merge_request_mentions (merge_request_id, note_id);
INSERT OR IGNORE INTO merge_request_mentions (number, merge_request_id, note_id)
  SELECT substr(j.value, 1, length(j.value) - length(ltrim(j.value, '0123456789'))), m.id, 0
    FROM merge_requests m, json_each('[' || replace(json_quote(m.title || ' ' || ifnull(m.description, '')), '#', '","') || ']') j
    WHERE (instr(m.title, '#') > 0 OR instr(m.description, '#') > 0) AND j.key > 0 AND j.value GLOB '[0-9]*';
INSERT OR IGNORE INTO merge_request_mentions (number, merge_request_id, note_id)
  SELECT substr(j.value, 1, length(j.value) - length(ltrim(j.value, '0123456789'))), n.noteable_id, n.id
    FROM notes n, json_each('[' || replace(json_quote(n.body), '#', '","') || ']') j
    WHERE n.noteable_type = 'MergeRequest' AND instr(n.body, '#') > 0 AND j.key > 0 AND j.value GLOB '[0-9]*';
CREATE TRIGGER merge_requests_mentions_insert AFTER INSERT ON merge_requests BEGIN
  INSERT OR IGNORE INTO merge_request_mentions (number, merge_request_id, note_id)
    SELECT substr(j.value, 1, length(j.value) - length(ltrim(j.value, '0123456789'))), NEW.id, 0
      FROM json_each('[' || replace(json_quote(NEW.title || ' ' || ifnull(NEW.description, '')), '#', '","') || ']') j
      WHERE j.key > 0 AND j.value GLOB '[0-9]*';
END;
CREATE TRIGGER merge_requests_mentions_update AFTER UPDATE OF title, description ON merge_requests BEGIN
  DELETE FROM merge_request_mentions WHERE merge_request_id = OLD.id AND note_id = 0;
  INSERT OR IGNORE INTO merge_request_mentions (number, merge_request_id, note_id)
    SELECT substr(j.value, 1, length(j.value) - length(ltrim(j.value, '0123456789'))), NEW.id, 0
      FROM json_each('[' || replace(json_quote(NEW.title || ' ' || ifnull(NEW.description, '')), '#', '","') || ']') j
      WHERE j.key > 0 AND j.value GLOB '[0-9]*';
END;
CREATE TRIGGER merge_requests_mentions_delete AFTER DELETE ON merge_requests BEGIN
  DELETE FROM merge_request_mentions WHERE merge_request_id = OLD.id;
END;
CREATE TRIGGER notes_mentions_insert AFTER INSERT ON notes WHEN NEW.noteable_type = 'MergeRequest' BEGIN
  INSERT OR IGNORE INTO merge_request_mentions (number, merge_request_id, note_id)
    SELECT substr(j.value, 1, length(j.value) - length(ltrim(j.value, '0123456789'))), NEW.noteable_id, NEW.id
      FROM json_each('[' || replace(json_quote(NEW.body), '#', '","') || ']') j
      WHERE j.key > 0 AND j.value GLOB '[0-9]*';
END;
CREATE TRIGGER notes_mentions_update AFTER UPDATE OF body, noteable_type, noteable_id ON notes
  WHEN OLD.noteable_type = 'MergeRequest' OR NEW.noteable_type = 'MergeRequest' BEGIN
  DELETE FROM merge_request_mentions WHERE merge_request_id = OLD.noteable_id AND note_id = OLD.id;
  INSERT OR IGNORE INTO merge_request_mentions (number, merge_request_id, note_id)
    SELECT substr(j.value, 1, length(j.value) - length(ltrim(j.value, '0123456789'))), NEW.noteable_id, NEW.id
      FROM json_each('[' || replace(json_quote(NEW.body), '#', '","') || ']') j
      WHERE NEW.noteable_type = 'MergeRequest' AND j.key > 0 AND j.value GLOB '[0-9]*';
END;
CREATE TRIGGER notes_mentions_delete AFTER DELETE ON notes WHEN OLD.noteable_type = 'MergeRequest' BEGIN
  DELETE FROM merge_request_mentions WHERE merge_request_id = OLD.noteable_id AND note_id = OLD.id;
END;
`,
  },
  {
    // Assignees and reviewers as rows (as labels are: issuable_labels), kept by triggers from the
    // records' JSON lists: a filter by user (assignee_id, reviewer_id, assigned_to_me) reads the
    // user's rows from an index instead of parsing every record's list. Only numbers are kept (the
    // filters compare with numbers); a list that is not JSON holds none.
    name: 'core/066_issuable_users',
    sql: `
CREATE TABLE issuable_users (
  issuable_type TEXT NOT NULL,
  role TEXT NOT NULL,
  user_id INTEGER NOT NULL,
  project_id INTEGER NOT NULL,
  issuable_id INTEGER NOT NULL,
  PRIMARY KEY (issuable_type, role, user_id, project_id, issuable_id)
) WITHOUT ROWID;
INSERT OR IGNORE INTO issuable_users (issuable_type, role, user_id, project_id, issuable_id)
  SELECT 'Issue', 'assignee', j.value, x.project_id, x.id FROM issues x, json_each(CASE WHEN json_valid(x.assignee_ids) THEN x.assignee_ids ELSE '[]' END) j
  WHERE x.assignee_ids != '[]' AND j.type IN ('integer', 'real');
INSERT OR IGNORE INTO issuable_users (issuable_type, role, user_id, project_id, issuable_id)
  SELECT 'MergeRequest', 'assignee', j.value, x.project_id, x.id FROM merge_requests x, json_each(CASE WHEN json_valid(x.assignee_ids) THEN x.assignee_ids ELSE '[]' END) j
  WHERE x.assignee_ids != '[]' AND j.type IN ('integer', 'real');
INSERT OR IGNORE INTO issuable_users (issuable_type, role, user_id, project_id, issuable_id)
  SELECT 'MergeRequest', 'reviewer', j.value, x.project_id, x.id FROM merge_requests x, json_each(CASE WHEN json_valid(x.reviewer_ids) THEN x.reviewer_ids ELSE '[]' END) j
  WHERE x.reviewer_ids != '[]' AND j.type IN ('integer', 'real');
${issuableUserTriggers('issues', 'Issue', 'assignee', 'assignee_ids')}
${issuableUserTriggers('merge_requests', 'MergeRequest', 'assignee', 'assignee_ids')}
${issuableUserTriggers('merge_requests', 'MergeRequest', 'reviewer', 'reviewer_ids')}
`,
  },
  {
    // Confidential issues (few) in list order, a project's and every project's: confidential=true
    // reads them instead of walking every issue to find them (a million read to find none).
    // Partial: the filter names the value (`x.confidential = 1`), which implies the index's WHERE.
    name: 'core/067_confidential_issues',
    sql: `
CREATE INDEX issues_project_confidential_created ON issues (project_id, created_at, id) WHERE confidential = 1;
CREATE INDEX issues_confidential_created ON issues (created_at, id) WHERE confidential = 1;
`,
  },
  {
    // A project's records updated before they were created (a write or an import that set the
    // dates so; normally none), in created_at order: updated_before by created_at reads the records
    // created by the date and only these after it (updatedBeforeList), instead of walking every
    // record created after the date.
    name: 'core/068_updated_before_created',
    sql: `
CREATE INDEX issues_project_updated_early ON issues (project_id, created_at, id) WHERE updated_at < created_at;
CREATE INDEX merge_requests_project_updated_early ON merge_requests (project_id, created_at, id) WHERE updated_at < created_at;
`,
  },
  {
    // Label rows carry their record's author and updated_at too (kept by the label triggers,
    // redefined here, and on an author or updated_at change, a deleted author's SET NULL
    // included), for two lists that walked: a label with an author (\`author_id=&labels=\`) is
    // counted from counters per record type, project, author, exact title, state and
    // confidentiality kept on the label rows as core/016 counts labels (the count read the
    // author's 50,000 records probing each one's labels at a million); and a label by updated_at
    // reads the label's rows in that order from their own indexes, as core/030/038 made the
    // default order (created_at) do (the page walked the records newest updated first past those
    // without the label). Epic label rows leave both NULL, outside the counters and indexes.
    name: 'core/054_issuable_label_authors_updated',
    sql: `
ALTER TABLE issuable_labels ADD COLUMN author_id INTEGER;
ALTER TABLE issuable_labels ADD COLUMN updated_at TEXT;
UPDATE issuable_labels SET author_id = m.author_id, updated_at = m.updated_at FROM issues m
  WHERE issuable_labels.issuable_type = 'Issue' AND m.id = issuable_labels.issuable_id;
UPDATE issuable_labels SET author_id = m.author_id, updated_at = m.updated_at FROM merge_requests m
  WHERE issuable_labels.issuable_type = 'MergeRequest' AND m.id = issuable_labels.issuable_id;
CREATE INDEX issuable_labels_updated ON issuable_labels (issuable_type, project_id, title COLLATE NOCASE, updated_at, issuable_id, state)
  WHERE updated_at IS NOT NULL;
CREATE INDEX issuable_labels_title_updated ON issuable_labels (issuable_type, title COLLATE NOCASE, updated_at, issuable_id, state)
  WHERE updated_at IS NOT NULL;

DROP TRIGGER issues_labels_insert;
CREATE TRIGGER issues_labels_insert AFTER INSERT ON issues WHEN NEW.labels != '[]' BEGIN
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state, confidential, milestone, created_at, author_id, updated_at)
    SELECT 'Issue', NEW.id, value, NEW.project_id, NEW.state, NEW.confidential, NEW.milestone_id, NEW.created_at, NEW.author_id, NEW.updated_at FROM json_each(NEW.labels);
END;
DROP TRIGGER issues_labels_update;
CREATE TRIGGER issues_labels_update AFTER UPDATE OF labels ON issues WHEN NEW.labels != OLD.labels BEGIN
  DELETE FROM issuable_labels WHERE issuable_type = 'Issue' AND issuable_id = OLD.id;
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state, confidential, milestone, created_at, author_id, updated_at)
    SELECT 'Issue', NEW.id, value, NEW.project_id, NEW.state, NEW.confidential, NEW.milestone_id, NEW.created_at, NEW.author_id, NEW.updated_at FROM json_each(NEW.labels);
END;
CREATE TRIGGER issues_labels_author AFTER UPDATE OF author_id ON issues WHEN NEW.author_id IS NOT OLD.author_id BEGIN
  UPDATE issuable_labels SET author_id = NEW.author_id WHERE issuable_type = 'Issue' AND issuable_id = NEW.id;
END;
CREATE TRIGGER issues_labels_updated AFTER UPDATE OF updated_at ON issues WHEN NEW.updated_at IS NOT OLD.updated_at BEGIN
  UPDATE issuable_labels SET updated_at = NEW.updated_at WHERE issuable_type = 'Issue' AND issuable_id = NEW.id;
END;
DROP TRIGGER merge_requests_labels_insert;
CREATE TRIGGER merge_requests_labels_insert AFTER INSERT ON merge_requests WHEN NEW.labels != '[]' BEGIN
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state, created_at, milestone, author_id, updated_at)
    SELECT 'MergeRequest', NEW.id, value, NEW.project_id, NEW.state, NEW.created_at, NEW.milestone_id, NEW.author_id, NEW.updated_at FROM json_each(NEW.labels);
END;
DROP TRIGGER merge_requests_labels_update;
CREATE TRIGGER merge_requests_labels_update AFTER UPDATE OF labels ON merge_requests WHEN NEW.labels != OLD.labels BEGIN
  DELETE FROM issuable_labels WHERE issuable_type = 'MergeRequest' AND issuable_id = OLD.id;
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, project_id, state, created_at, milestone, author_id, updated_at)
    SELECT 'MergeRequest', NEW.id, value, NEW.project_id, NEW.state, NEW.created_at, NEW.milestone_id, NEW.author_id, NEW.updated_at FROM json_each(NEW.labels);
END;
CREATE TRIGGER merge_requests_labels_author AFTER UPDATE OF author_id ON merge_requests WHEN NEW.author_id IS NOT OLD.author_id BEGIN
  UPDATE issuable_labels SET author_id = NEW.author_id WHERE issuable_type = 'MergeRequest' AND issuable_id = NEW.id;
END;
CREATE TRIGGER merge_requests_labels_updated AFTER UPDATE OF updated_at ON merge_requests WHEN NEW.updated_at IS NOT OLD.updated_at BEGIN
  UPDATE issuable_labels SET updated_at = NEW.updated_at WHERE issuable_type = 'MergeRequest' AND issuable_id = NEW.id;
END;

CREATE TABLE label_author_counts (
  issuable_type TEXT NOT NULL,
  project_id INTEGER NOT NULL,
  author_id INTEGER NOT NULL,
  title TEXT NOT NULL,
  state TEXT NOT NULL,
  confidential INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (issuable_type, project_id, author_id, title, state, confidential)
) WITHOUT ROWID;
INSERT INTO label_author_counts (issuable_type, project_id, author_id, title, state, confidential, n)
  SELECT issuable_type, project_id, author_id, title, state, confidential, count(*) FROM issuable_labels
  WHERE project_id IS NOT NULL AND author_id IS NOT NULL GROUP BY issuable_type, project_id, author_id, title, state, confidential;
CREATE TRIGGER issuable_labels_author_count_insert AFTER INSERT ON issuable_labels
  WHEN NEW.project_id IS NOT NULL AND NEW.author_id IS NOT NULL BEGIN
  INSERT INTO label_author_counts (issuable_type, project_id, author_id, title, state, confidential, n)
    VALUES (NEW.issuable_type, NEW.project_id, NEW.author_id, NEW.title, NEW.state, NEW.confidential, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER issuable_labels_author_count_delete AFTER DELETE ON issuable_labels
  WHEN OLD.project_id IS NOT NULL AND OLD.author_id IS NOT NULL BEGIN
  UPDATE label_author_counts SET n = n - 1 WHERE issuable_type = OLD.issuable_type AND project_id = OLD.project_id
    AND author_id = OLD.author_id AND title = OLD.title AND state = OLD.state AND confidential = OLD.confidential;
END;
CREATE TRIGGER issuable_labels_author_count_update AFTER UPDATE OF project_id, author_id, state, confidential, title ON issuable_labels BEGIN
  UPDATE label_author_counts SET n = n - 1 WHERE OLD.project_id IS NOT NULL AND OLD.author_id IS NOT NULL
    AND issuable_type = OLD.issuable_type AND project_id = OLD.project_id AND author_id = OLD.author_id
    AND title = OLD.title AND state = OLD.state AND confidential = OLD.confidential;
  INSERT INTO label_author_counts (issuable_type, project_id, author_id, title, state, confidential, n)
    SELECT NEW.issuable_type, NEW.project_id, NEW.author_id, NEW.title, NEW.state, NEW.confidential, 1
    WHERE NEW.project_id IS NOT NULL AND NEW.author_id IS NOT NULL
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
`,
  },
  {
    // A version of the instance's users and of its groups, moved on by every insert and delete and
    // by an update of a column the lists filter or order on (not a user's last activity): /users and
    // /groups (an administrator's or anonymous: conditions on the table's own columns) anchor their
    // deep pages on it (PageAnchors) and start after a row an earlier page read instead of walking
    // every row before it.
    name: 'core/052_instance_list_versions',
    sql: `
CREATE TABLE instance_list_versions (list TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO instance_list_versions (list, version) VALUES ('users', 1), ('namespaces', 1);
CREATE TRIGGER users_list_version_insert AFTER INSERT ON users BEGIN
  UPDATE instance_list_versions SET version = version + 1 WHERE list = 'users';
END;
CREATE TRIGGER users_list_version_delete AFTER DELETE ON users BEGIN
  UPDATE instance_list_versions SET version = version + 1 WHERE list = 'users';
END;
CREATE TRIGGER users_list_version_update AFTER UPDATE ON users
  WHEN NEW.id IS NOT OLD.id OR NEW.username IS NOT OLD.username OR NEW.name IS NOT OLD.name OR NEW.email IS NOT OLD.email
    OR NEW.state IS NOT OLD.state OR NEW.admin IS NOT OLD.admin OR NEW.external IS NOT OLD.external OR NEW.user_type IS NOT OLD.user_type
    OR NEW.created_at IS NOT OLD.created_at OR NEW.updated_at IS NOT OLD.updated_at BEGIN
  UPDATE instance_list_versions SET version = version + 1 WHERE list = 'users';
END;
CREATE TRIGGER namespaces_list_version_insert AFTER INSERT ON namespaces BEGIN
  UPDATE instance_list_versions SET version = version + 1 WHERE list = 'namespaces';
END;
CREATE TRIGGER namespaces_list_version_delete AFTER DELETE ON namespaces BEGIN
  UPDATE instance_list_versions SET version = version + 1 WHERE list = 'namespaces';
END;
CREATE TRIGGER namespaces_list_version_update AFTER UPDATE ON namespaces
  WHEN NEW.id IS NOT OLD.id OR NEW.kind IS NOT OLD.kind OR NEW.name IS NOT OLD.name OR NEW.path IS NOT OLD.path
    OR NEW.parent_id IS NOT OLD.parent_id OR NEW.visibility IS NOT OLD.visibility BEGIN
  UPDATE instance_list_versions SET version = version + 1 WHERE list = 'namespaces';
END;
`,
  },
  {
    // A project's assignee rows (core/066) counted without naming a user: assignee_id=None is
    // "more than 10,000" when the project's records less its assignee rows clear that (labelBoundCount).
    name: 'core/069_issuable_users_project',
    sql: `
CREATE INDEX issuable_users_project ON issuable_users (issuable_type, role, project_id);
`,
  },
  {
    // iids[] on a group's or the instance's lists: the records of those iids in any project, read by
    // id (workItemFilters' IdSet), instead of every record of the scope walked to find them.
    name: 'core/070_issuable_iids',
    sql: `
CREATE INDEX issues_iid ON issues (iid, project_id);
CREATE INDEX merge_requests_iid ON merge_requests (iid, project_id);
`,
  },
  {
    // A list ordered by one date and filtered by the other (db/date-lag.ts): each record's lag from
    // created_at to updated_at as a bucket (powers of 8 seconds; NULL for a date not written as the
    // service writes them), between the scope's column and the order's, so each bucket is walked in
    // list order from where its lag bounds the other date; the other date last, so that it is checked
    // (and a list filtered by dates alone counted) from the index. A project's, and the instance's (a big
    // group's or the instance's lists walk the instance's order). core/068's indexes (records updated
    // before they were created: bucket -1 now) are no longer read; kept, as an older build reads them.
    name: 'core/071_date_lag',
    sql: `
CREATE INDEX issues_project_lag_created ON issues (project_id, ${DATE_LAG_071}, created_at, id, updated_at);
CREATE INDEX issues_project_lag_updated ON issues (project_id, ${DATE_LAG_071}, updated_at, id, created_at);
CREATE INDEX issues_lag_created ON issues (${DATE_LAG_071}, created_at, id, updated_at);
CREATE INDEX issues_lag_updated ON issues (${DATE_LAG_071}, updated_at, id, created_at);
CREATE INDEX merge_requests_project_lag_created ON merge_requests (project_id, ${DATE_LAG_071}, created_at, id, updated_at);
CREATE INDEX merge_requests_project_lag_updated ON merge_requests (project_id, ${DATE_LAG_071}, updated_at, id, created_at);
CREATE INDEX merge_requests_lag_created ON merge_requests (${DATE_LAG_071}, created_at, id, updated_at);
CREATE INDEX merge_requests_lag_updated ON merge_requests (${DATE_LAG_071}, updated_at, id, created_at);
`,
  },
  {
    // author_id&labels on a group's or the instance's lists: the author's counters of one title in
    // every project (manyProjectsAuthorLabelCount), instead of the author's records walked to count.
    name: 'core/075_label_author_counts_author',
    sql: `
CREATE INDEX label_author_counts_author ON label_author_counts (issuable_type, author_id, title, state);
`,
  },
  {
    // The Search API's notes scope: a project's user notes by the trigram full-text index (rowid
    // (project_id << 32) + id, one range per project, as issues_search), and by updated_at (GitLab's
    // order, ProjectSearchResults#notes_finder), instead of every note of the instance read by id.
    name: 'core/076_notes_search',
    sql: `
CREATE VIRTUAL TABLE notes_search USING fts5(body, content = '', contentless_delete = 1, tokenize = 'trigram');
INSERT INTO notes_search (rowid, body) SELECT (project_id << 32) + id, body FROM notes WHERE project_id IS NOT NULL AND system = 0;
INSERT INTO notes_search (notes_search) VALUES ('optimize');
CREATE TRIGGER notes_search_insert AFTER INSERT ON notes WHEN NEW.project_id IS NOT NULL AND NEW.system = 0 BEGIN
  INSERT INTO notes_search (rowid, body) VALUES ((NEW.project_id << 32) + NEW.id, NEW.body);
END;
CREATE TRIGGER notes_search_update AFTER UPDATE OF id, project_id, body, system ON notes
  WHEN NEW.id IS NOT OLD.id OR NEW.project_id IS NOT OLD.project_id OR NEW.body IS NOT OLD.body OR NEW.system IS NOT OLD.system BEGIN
  DELETE FROM notes_search WHERE OLD.project_id IS NOT NULL AND OLD.system = 0 AND rowid = (OLD.project_id << 32) + OLD.id;
  INSERT INTO notes_search (rowid, body) SELECT (NEW.project_id << 32) + NEW.id, NEW.body WHERE NEW.project_id IS NOT NULL AND NEW.system = 0;
END;
CREATE TRIGGER notes_search_delete AFTER DELETE ON notes WHEN OLD.project_id IS NOT NULL AND OLD.system = 0 BEGIN
  DELETE FROM notes_search WHERE rowid = (OLD.project_id << 32) + OLD.id;
END;
CREATE INDEX notes_project_updated ON notes (project_id, updated_at, id);
`,
  },
  {
    // Whether a user takes part in a record (`subscribed` on its GET) without reading every note
    // of it: their own notes by author, and the system notes (not in the full-text index) on
    // their own when looking for a mention (participants.ts isParticipant).
    name: 'core/087_notes_participant_indexes',
    sql: `
CREATE INDEX notes_noteable_author ON notes (noteable_type, noteable_id, author_id);
CREATE INDEX notes_noteable_system ON notes (noteable_type, noteable_id) WHERE system = 1;
`,
  },
  {
    // A record's discussions in the order of their first notes, as rows: the list read every note
    // of the record and grouped them (260-320 ms for a record with 200,000 notes). first_public_id:
    // the first note a reader who may not see internal notes sees (NULL: none).
    name: 'core/088_note_discussions',
    sql: `
CREATE TABLE note_discussions (
  noteable_type TEXT NOT NULL,
  noteable_id INTEGER NOT NULL,
  discussion_id TEXT NOT NULL,
  first_id INTEGER NOT NULL,
  first_public_id INTEGER,
  PRIMARY KEY (noteable_type, noteable_id, discussion_id)
) WITHOUT ROWID;
INSERT INTO note_discussions (noteable_type, noteable_id, discussion_id, first_id, first_public_id)
  SELECT noteable_type, noteable_id, discussion_id, min(id), min(CASE WHEN internal = 0 THEN id END) FROM notes GROUP BY noteable_type, noteable_id, discussion_id;
CREATE INDEX note_discussions_first ON note_discussions (noteable_type, noteable_id, first_id);
CREATE INDEX note_discussions_first_public ON note_discussions (noteable_type, noteable_id, first_public_id) WHERE first_public_id IS NOT NULL;
CREATE TRIGGER note_discussions_insert AFTER INSERT ON notes BEGIN
  INSERT INTO note_discussions (noteable_type, noteable_id, discussion_id, first_id, first_public_id)
    VALUES (NEW.noteable_type, NEW.noteable_id, NEW.discussion_id, NEW.id, CASE WHEN NEW.internal = 0 THEN NEW.id END)
    ON CONFLICT (noteable_type, noteable_id, discussion_id) DO UPDATE SET
      first_id = min(first_id, excluded.first_id),
      first_public_id = coalesce(min(first_public_id, excluded.first_public_id), first_public_id, excluded.first_public_id);
END;
CREATE TRIGGER note_discussions_update AFTER UPDATE OF id, noteable_type, noteable_id, discussion_id, internal ON notes BEGIN
  DELETE FROM note_discussions WHERE noteable_type = OLD.noteable_type AND noteable_id = OLD.noteable_id AND discussion_id = OLD.discussion_id;
  INSERT INTO note_discussions (noteable_type, noteable_id, discussion_id, first_id, first_public_id)
    SELECT noteable_type, noteable_id, discussion_id, min(id), min(CASE WHEN internal = 0 THEN id END) FROM notes
    WHERE discussion_id = OLD.discussion_id AND noteable_type = OLD.noteable_type AND noteable_id = OLD.noteable_id GROUP BY noteable_type, noteable_id, discussion_id;
  DELETE FROM note_discussions WHERE noteable_type = NEW.noteable_type AND noteable_id = NEW.noteable_id AND discussion_id = NEW.discussion_id;
  INSERT INTO note_discussions (noteable_type, noteable_id, discussion_id, first_id, first_public_id)
    SELECT noteable_type, noteable_id, discussion_id, min(id), min(CASE WHEN internal = 0 THEN id END) FROM notes
    WHERE discussion_id = NEW.discussion_id AND noteable_type = NEW.noteable_type AND noteable_id = NEW.noteable_id GROUP BY noteable_type, noteable_id, discussion_id;
END;
CREATE TRIGGER note_discussions_delete AFTER DELETE ON notes BEGIN
  DELETE FROM note_discussions WHERE noteable_type = OLD.noteable_type AND noteable_id = OLD.noteable_id AND discussion_id = OLD.discussion_id;
  INSERT INTO note_discussions (noteable_type, noteable_id, discussion_id, first_id, first_public_id)
    SELECT noteable_type, noteable_id, discussion_id, min(id), min(CASE WHEN internal = 0 THEN id END) FROM notes
    WHERE discussion_id = OLD.discussion_id AND noteable_type = OLD.noteable_type AND noteable_id = OLD.noteable_id GROUP BY noteable_type, noteable_id, discussion_id;
END;
`,
  },
  {
    // core/087's (noteable, author) index led with the record: SQLite, asked for a record's notes in
    // no order its other indexes give (a count, participants, ORDER BY id), took it and read 200,000
    // notes in author order, one page each (participants 280 -> 400-650 ms, only_comments counts
    // 2 -> 190 ms). Led by the author, it still finds a user's notes on a record and lures nothing.
    name: 'core/080_notes_author_first',
    sql: `
DROP INDEX notes_noteable_author;
CREATE INDEX notes_author_noteable ON notes (author_id, noteable_type, noteable_id);
`,
  },
  {
    // The issues lists' issue_type= and due_date= (issue_filters.ts) read their few records instead
    // of walking a million to find none: the types other than `issue` (most issues are of that one)
    // by type and project; the instance's due dates by date (a project's: issues_project_due).
    name: 'core/089_issue_type_due_indexes',
    sql: `
CREATE INDEX issues_typed ON issues (issue_type, project_id) WHERE issue_type != 'issue';
CREATE INDEX issues_due ON issues (due_date) WHERE due_date IS NOT NULL;
`,
  },
  {
    // Merge request list filters GitLab offers that walked a million records to find a few
    // (merge_request_filters.ts): wip=yes (the drafts, by their titles), source_project_id, and
    // merge_user_id (who merged: merged ones only).
    name: 'core/090_merge_request_filter_indexes',
    sql: `
CREATE INDEX merge_requests_drafts ON merge_requests (project_id) WHERE ${draftTitleSql090('title')};
CREATE INDEX merge_requests_source_project ON merge_requests (source_project_id, project_id);
CREATE INDEX merge_requests_merged_by ON merge_requests (merged_by_id, project_id) WHERE merged_by_id IS NOT NULL;
`,
  },
  {
    // core/090's merge-user index with the state: merge_user_id with a state counted 10,001 merge
    // requests of a user each looked up for its state (25 ms warm, 164 ms cold at a million).
    name: 'core/091_merge_requests_merged_by_state',
    sql: `
DROP INDEX merge_requests_merged_by;
CREATE INDEX merge_requests_merged_by_state ON merge_requests (merged_by_id, project_id, state) WHERE merged_by_id IS NOT NULL;
`,
  },
  {
    // Two label titles carried together by a project's records, counted per record type, the pair
    // (the titles as carried, the binary-lower first), project, state and confidentiality, kept by
    // triggers on the label rows: labels=a,b (and labels=a&not[labels]=b: a's label counter less the
    // pair's) is counted here instead of walking the rarer title's rows and asking each record for
    // the other (two titles on a tenth of a million merge requests walked 50,000 rows to count
    // 10,001: 26 ms; 556 issues of 2,778: 4 ms). A pair is counted under its first title's row
    // (its state, confidentiality, project): a record's rows move together, and while they move
    // one by one each pair follows one of them. Titles compare NOCASE, as the filters match them.
    name: 'core/092_label_pair_counts',
    sql: `
CREATE TABLE label_pair_counts (
  issuable_type TEXT NOT NULL,
  a TEXT NOT NULL COLLATE NOCASE,
  b TEXT NOT NULL COLLATE NOCASE,
  project_id INTEGER NOT NULL,
  state TEXT NOT NULL,
  confidential INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (issuable_type, a, b, project_id, state, confidential)
) WITHOUT ROWID;
INSERT INTO label_pair_counts (issuable_type, a, b, project_id, state, confidential, n)
  SELECT r.issuable_type, r.title, s.title, r.project_id, r.state, r.confidential, count(*) FROM issuable_labels r
    JOIN issuable_labels s ON s.issuable_type = r.issuable_type AND s.issuable_id = r.issuable_id AND s.title > r.title
  WHERE r.project_id IS NOT NULL GROUP BY r.issuable_type, r.title, s.title, r.project_id, r.state, r.confidential
  ON CONFLICT DO UPDATE SET n = n + excluded.n;
CREATE TRIGGER issuable_labels_pair_insert AFTER INSERT ON issuable_labels BEGIN
  INSERT INTO label_pair_counts (issuable_type, a, b, project_id, state, confidential, n)
    SELECT NEW.issuable_type, iif(NEW.title < s.title, NEW.title, s.title), iif(NEW.title < s.title, s.title, NEW.title), iif(NEW.title < s.title, NEW.project_id, s.project_id),
      iif(NEW.title < s.title, NEW.state, s.state), iif(NEW.title < s.title, NEW.confidential, s.confidential), 1
    FROM issuable_labels s WHERE s.issuable_type = NEW.issuable_type AND s.issuable_id = NEW.issuable_id AND s.title != NEW.title
      AND iif(NEW.title < s.title, NEW.project_id, s.project_id) IS NOT NULL
  ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER issuable_labels_pair_delete AFTER DELETE ON issuable_labels BEGIN
  INSERT INTO label_pair_counts (issuable_type, a, b, project_id, state, confidential, n)
    SELECT OLD.issuable_type, iif(OLD.title < s.title, OLD.title, s.title), iif(OLD.title < s.title, s.title, OLD.title), iif(OLD.title < s.title, OLD.project_id, s.project_id),
      iif(OLD.title < s.title, OLD.state, s.state), iif(OLD.title < s.title, OLD.confidential, s.confidential), -1
    FROM issuable_labels s WHERE s.issuable_type = OLD.issuable_type AND s.issuable_id = OLD.issuable_id AND s.title != OLD.title
      AND iif(OLD.title < s.title, OLD.project_id, s.project_id) IS NOT NULL
  ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER issuable_labels_pair_update AFTER UPDATE OF project_id, state, confidential, title ON issuable_labels
  WHEN NEW.project_id IS NOT OLD.project_id OR NEW.state IS NOT OLD.state OR NEW.confidential IS NOT OLD.confidential OR NEW.title IS NOT OLD.title BEGIN
  INSERT INTO label_pair_counts (issuable_type, a, b, project_id, state, confidential, n)
    SELECT OLD.issuable_type, iif(OLD.title < s.title, OLD.title, s.title), iif(OLD.title < s.title, s.title, OLD.title), iif(OLD.title < s.title, OLD.project_id, s.project_id),
      iif(OLD.title < s.title, OLD.state, s.state), iif(OLD.title < s.title, OLD.confidential, s.confidential), -1
    FROM issuable_labels s WHERE s.issuable_type = OLD.issuable_type AND s.issuable_id = OLD.issuable_id AND s.title != NEW.title
      AND iif(OLD.title < s.title, OLD.project_id, s.project_id) IS NOT NULL
  ON CONFLICT DO UPDATE SET n = n + excluded.n;
  INSERT INTO label_pair_counts (issuable_type, a, b, project_id, state, confidential, n)
    SELECT NEW.issuable_type, iif(NEW.title < s.title, NEW.title, s.title), iif(NEW.title < s.title, s.title, NEW.title), iif(NEW.title < s.title, NEW.project_id, s.project_id),
      iif(NEW.title < s.title, NEW.state, s.state), iif(NEW.title < s.title, NEW.confidential, s.confidential), 1
    FROM issuable_labels s WHERE s.issuable_type = NEW.issuable_type AND s.issuable_id = NEW.issuable_id AND s.title != NEW.title
      AND iif(NEW.title < s.title, NEW.project_id, s.project_id) IS NOT NULL
  ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
`,
  },
  {
    // A record's participants read every note of it (grouped by author, then each text holding an
    // @ parsed: 99-160 ms for a record with 200,000 notes). Its commenters kept as rows (each
    // author's first note, and first note a reader without internal notes sees), and the notes
    // holding an @ by a partial index: participants read as many rows as there are commenters and
    // notes that may mention someone. A note without an author (its user deleted) is no one's.
    name: 'core/098_note_authors',
    sql: `
CREATE TABLE note_authors (
  noteable_type TEXT NOT NULL,
  noteable_id INTEGER NOT NULL,
  author_id INTEGER NOT NULL,
  first_id INTEGER NOT NULL,
  first_public_id INTEGER,
  PRIMARY KEY (noteable_type, noteable_id, author_id)
) WITHOUT ROWID;
INSERT INTO note_authors (noteable_type, noteable_id, author_id, first_id, first_public_id)
  SELECT noteable_type, noteable_id, author_id, min(id), min(CASE WHEN internal = 0 THEN id END) FROM notes WHERE author_id IS NOT NULL GROUP BY noteable_type, noteable_id, author_id;
CREATE INDEX notes_mentioning ON notes (noteable_type, noteable_id) WHERE instr(body, '@') > 0;
${noteAuthorTriggers()}
`,
  },
  {
    // A version per table of the rows every request looks up (users, tokens, projects, namespaces,
    // milestones), moved on by every insert, update and delete of its rows: cachedLookup keeps a
    // kind of rows read from these tables across writes to other tables (db/connection.ts), where
    // any write let every remembered row go (~125 us a request after a write: its token, user,
    // project, namespace and the page's users read again).
    name: 'core/099_table_versions',
    sql: `
CREATE TABLE table_versions (name TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID;
${TABLE_VERSIONED_099.map((t) => `INSERT INTO table_versions (name, version) VALUES ('${t}', 0);
CREATE TRIGGER ${t}_table_version_insert AFTER INSERT ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_update AFTER UPDATE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_delete AFTER DELETE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;`).join('\n')}
`,
  },
  {
    // The Search API's notes scope counts a term's matches in a project's range of notes_search
    // (10,001 for a common term, ~2 ms at a million notes); remembered, as issues' match counts are,
    // while the project's notes stay unwritten, and past COUNT_LIMIT through as many writes as the
    // margin counted: each write to a note moves its project's version (both projects' for a move)
    // by one, and that project's matches by at most one.
    name: 'core/095_notes_search_versions',
    sql: `
CREATE TABLE notes_search_versions (project_id INTEGER PRIMARY KEY, version INTEGER NOT NULL);
CREATE TRIGGER notes_search_version_insert AFTER INSERT ON notes WHEN NEW.project_id IS NOT NULL BEGIN
  INSERT INTO notes_search_versions (project_id, version) VALUES (NEW.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER notes_search_version_update AFTER UPDATE OF id, project_id, body, system ON notes
  WHEN NEW.id IS NOT OLD.id OR NEW.project_id IS NOT OLD.project_id OR NEW.body IS NOT OLD.body OR NEW.system IS NOT OLD.system BEGIN
  INSERT INTO notes_search_versions (project_id, version) SELECT OLD.project_id, 1 WHERE OLD.project_id IS NOT NULL ON CONFLICT DO UPDATE SET version = version + 1;
  INSERT INTO notes_search_versions (project_id, version) SELECT NEW.project_id, 1 WHERE NEW.project_id IS NOT NULL AND NEW.project_id IS NOT OLD.project_id
    ON CONFLICT DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER notes_search_version_delete AFTER DELETE ON notes WHEN OLD.project_id IS NOT NULL BEGIN
  INSERT INTO notes_search_versions (project_id, version) VALUES (OLD.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
END;
`,
  },
  {
    // The repository's part of a project's statistics (`statistics=true`, API::Entities::ProjectStatistics),
    // marked stale by every change of branches or tags and measured again when next read (GitLab
    // refreshes its project_statistics after pushes, in the background).
    name: 'core/114_project_statistics',
    sql: `
CREATE TABLE project_statistics (
  project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  commit_count INTEGER NOT NULL,
  repository_size INTEGER NOT NULL,
  stale INTEGER NOT NULL DEFAULT 0,
  refreshed_at TEXT NOT NULL
);
`,
  },
  {
    // Lists in an id order of their own (order_by=relative_position) or read in id order in parts
    // (popularity, milestone_due: order-walk.ts): a project's records of a state in id order, so a
    // page is a walk of the index (the states of a list without one merged), not a sort of them all.
    name: 'core/103_issuables_project_state_id',
    sql: `
CREATE INDEX issues_project_state_id ON issues (project_id, state, id);
CREATE INDEX merge_requests_project_state_id ON merge_requests (project_id, state, id);
`,
  },
  {
    // order_by=popularity: a type's upvoted records (thumbsup awards, few), read whole by record
    // and counted, and a record's upvotes asked by id; partial, so no other award query chooses it.
    name: 'core/104_award_emoji_upvotes',
    sql: `
CREATE INDEX award_emoji_upvotes ON award_emoji (awardable_type, awardable_id) WHERE name = 'thumbsup';
`,
  },
  {
    // milestone_due's segments (order-walk.ts): a milestone's records of a project and a state in
    // id order, the index alone answering the scope and the state (a milestone's own index read
    // each record to check them: page 2500 of a milestone of 250,000 took 40 ms). Partial on
    // `milestone_id > 0`, which only a query that says so implies (milestone ids start at 1): the
    // milestone filters' counts keep their (project, milestone, created_at) index; the records
    // without a milestone, most of them, are not in it.
    name: 'core/105_issuables_milestone_project_state',
    sql: `
CREATE INDEX issues_milestone_project_state ON issues (milestone_id, project_id, state) WHERE milestone_id > 0;
CREATE INDEX merge_requests_milestone_project_state ON merge_requests (milestone_id, project_id, state) WHERE milestone_id > 0;
`,
  },
  {
    // The milestones with a due date (order_by=priority on issue and merge request lists: their
    // records come first, see order-label-priority.ts), read without walking every milestone.
    name: 'core/101_milestones_due',
    sql: `
CREATE INDEX milestones_due ON milestones (due_date) WHERE due_date IS NOT NULL;
`,
  },
  {
    // core/099's versions for the tables a page of issues or merge requests counts from (user notes,
    // thumbs, the merge requests closing each issue): a page's counts are kept across writes to other
    // tables (areas/core/entities.ts issuableCounts), where three statements ran on every page after
    // any write. An issue's closing merge requests show by their project (merge_requests.project_id):
    // a merge request moved or deleted moves the closing table's version too.
    name: 'core/109_issuable_count_versions',
    sql: `
${TABLE_VERSIONED_109.map((t) => `INSERT INTO table_versions (name, version) VALUES ('${t}', 0);
CREATE TRIGGER ${t}_table_version_insert AFTER INSERT ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_update AFTER UPDATE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_delete AFTER DELETE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;`).join('\n')}
CREATE TRIGGER merge_requests_closing_version_move AFTER UPDATE OF project_id ON merge_requests WHEN NEW.project_id IS NOT OLD.project_id BEGIN
  UPDATE table_versions SET version = version + 1 WHERE name = 'merge_requests_closing_issues';
END;
CREATE TRIGGER merge_requests_closing_version_delete AFTER DELETE ON merge_requests BEGIN
  UPDATE table_versions SET version = version + 1 WHERE name = 'merge_requests_closing_issues';
END;
`,
  },
  {
    // A dense filter's deep page (issue_type=issue, due_date=0, wip=no: complement-walk.ts) reads the
    // project's list by its order's index less the few records that fail the filter, each with its
    // place in the order: from these (state and every order column held, the partial condition's
    // column too, so no record is read), where reading the records cost ~1 us each (a due date on
    // 2,000 issues: 2-7 ms a page).
    name: 'core/111_complement_order_indexes',
    sql: `
CREATE INDEX issues_typed_order ON issues (project_id, state, created_at, updated_at, title, issue_type) WHERE issue_type != 'issue';
CREATE INDEX issues_due_order ON issues (project_id, state, created_at, updated_at, title, due_date) WHERE due_date IS NOT NULL;
CREATE INDEX merge_requests_drafts_order ON merge_requests (project_id, state, created_at, updated_at, title) WHERE ${draftTitleSql090('title')};
`,
  },
  {
    // The issues lists' weight= / order_by=weight (areas/core/issue_weight.ts): a project's issues
    // of a weight, or with none, in id order (a weight's few read, not a million walked for them; a
    // project's weighted issues, then those without, in the order's two walks), and the instance's
    // weighted ones (few: a partial index).
    name: 'core/106_issues_weight',
    sql: `
CREATE INDEX issues_project_weight ON issues (project_id, weight, id);
CREATE INDEX issues_weighted ON issues (weight, id) WHERE weight IS NOT NULL;
`,
  },
  {
    // The issues lists' closed_by_id= (areas/core/issue_filters.ts closedByCondition): a user's
    // closed issues, of a project or the instance, read instead of the list walked for them.
    name: 'core/107_issues_closed_by',
    sql: `
CREATE INDEX issues_closed_by ON issues (closed_by_id, project_id) WHERE closed_by_id IS NOT NULL;
`,
  },
  featureAccessMigration,
  projectsListedVersionMigration,
  labelRowAuthorsMigration,
  issueUserAgentDetailsMigration,
  projectWritesMigration,
  groupLinksMigration,
  idDateZonesMigration,
  {
    // A user's events in projects by target type (`/users/:id/events?target_type=`, one's own
    // `/events`): events_author_in_projects walked every event of the author for a type they
    // seldom act on (50,000 events of a user for no milestone: 30-70 ms a page), as a project's
    // list by type reads events_target_project.
    name: 'core/170_events_author_target',
    sql: `
CREATE INDEX events_author_target ON events (author_id, target_type, id) WHERE project_id IS NOT NULL AND target_type IS NOT NULL;
`,
  },
  {
    // Every project's events of one action (`/events?scope=all&action=joined`, an administrator's):
    // events_in_projects walked every event of the instance newest first for an action seldom
    // taken (a million events for a few joined: 170-290 ms a page), as a project's list by action
    // reads events_project_action (core/021). With a target type too, the pair's own entries: the
    // action's index alone would walk every event of a common action for a rare type (created
    // milestones: 60-90 ms) where events_target read them directly.
    name: 'core/171_events_action',
    sql: `
CREATE INDEX events_action ON events (action, id) WHERE project_id IS NOT NULL;
CREATE INDEX events_action_target ON events (action, target_type, id) WHERE project_id IS NOT NULL AND target_type IS NOT NULL;
`,
  },
  {
    // Events in runs of ids whose created_at never goes down (core/058 keeps one order for all
    // events, so events written with older dates than the ones before them are all exceptions:
    // an import or bench/scale-busy.ts's million, and every dated list then compared each
    // event's date). A run starts at first_id and ends where the next begins; min/max_created_at
    // bound its dates (loose after deletes: a deleted event leaves the rest in order). A date is
    // then one split per run (eventRunRanges). An event appended in order extends the last run;
    // one appended out of order starts a new run; one inserted below the last id or whose
    // created_at or id changes is isolated in a run of its own (the run it fell in is split
    // around it: both sides stay in order).
    name: 'core/179_event_time_runs',
    sql: `
CREATE TABLE event_time_runs (first_id INTEGER PRIMARY KEY, min_created_at TEXT NOT NULL, max_created_at TEXT NOT NULL);
INSERT INTO event_time_runs (first_id, min_created_at, max_created_at)
  SELECT min(id), min(created_at), max(created_at) FROM (
    SELECT id, created_at, sum(starts) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) AS run FROM (
      SELECT id, created_at, coalesce(created_at < lag(created_at) OVER (ORDER BY id), 0) AS starts FROM events
    )
  ) GROUP BY run;
CREATE TRIGGER events_time_runs_append AFTER INSERT ON events
  WHEN NEW.id = (SELECT max(id) FROM events) AND NEW.id > coalesce((SELECT max(first_id) FROM event_time_runs), -9223372036854775808)
    AND NEW.created_at >= coalesce((SELECT max_created_at FROM event_time_runs ORDER BY first_id DESC LIMIT 1), NEW.created_at) BEGIN
  INSERT INTO event_time_runs (first_id, min_created_at, max_created_at) SELECT NEW.id, NEW.created_at, NEW.created_at WHERE NOT EXISTS (SELECT 1 FROM event_time_runs);
  UPDATE event_time_runs SET max_created_at = NEW.created_at WHERE first_id = (SELECT max(first_id) FROM event_time_runs);
END;
CREATE TRIGGER events_time_runs_insert AFTER INSERT ON events
  WHEN NOT (NEW.id = (SELECT max(id) FROM events) AND NEW.id > coalesce((SELECT max(first_id) FROM event_time_runs), -9223372036854775808)
    AND NEW.created_at >= coalesce((SELECT max_created_at FROM event_time_runs ORDER BY first_id DESC LIMIT 1), NEW.created_at)) BEGIN
  ${isolateEventRun('NEW')}
END;
CREATE TRIGGER events_time_runs_update AFTER UPDATE OF id, created_at ON events
  WHEN NEW.id IS NOT OLD.id OR NEW.created_at IS NOT OLD.created_at BEGIN
  ${isolateEventRun('NEW')}
END;
`,
  },
  {
    // A user's events of one action (`/users/:id/events?action=`, one's own `/events?action=`):
    // no index held the pair, so a page walked the author's events in projects newest first and
    // compared each one's action (mr17: user 3's 50,000 events for no `joined` one, 25-33 ms).
    name: 'core/180_events_author_action',
    sql: `
CREATE INDEX events_author_action ON events (author_id, action, id) WHERE project_id IS NOT NULL;
`,
  },
  {
    // Versions (core/099) of the tables the lists read: a read statement's remembered answers
    // outlive the writes to tables it does not read (db/connection.ts rememberReads), where every
    // write of any kind let them go. A page of issues after a project's description was written
    // ran its walk, count and row reads again (~0.1-0.3 ms of a 0.2-0.4 ms page).
    name: 'core/173_list_table_versions',
    sql: TABLE_VERSIONED_173.map((t) => `INSERT INTO table_versions (name, version) VALUES ('${t}', 0);
CREATE TRIGGER ${t}_table_version_insert AFTER INSERT ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_update AFTER UPDATE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_delete AFTER DELETE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;`).join('\n'),
  },
  {
    // core/179's runs of events in date order, versioned as core/173's tables: the event lists'
    // statements name it, so their answers went at every write again (project events page 500).
    name: 'core/174_event_time_runs_version',
    sql: `INSERT INTO table_versions (name, version) VALUES ('event_time_runs', 0);
CREATE TRIGGER event_time_runs_table_version_insert AFTER INSERT ON event_time_runs BEGIN UPDATE table_versions SET version = version + 1 WHERE name = 'event_time_runs'; END;
CREATE TRIGGER event_time_runs_table_version_update AFTER UPDATE ON event_time_runs BEGIN UPDATE table_versions SET version = version + 1 WHERE name = 'event_time_runs'; END;
CREATE TRIGGER event_time_runs_table_version_delete AFTER DELETE ON event_time_runs BEGIN UPDATE table_versions SET version = version + 1 WHERE name = 'event_time_runs'; END;
`,
  },
  {
    // core/099's versions for the tables the user lists (identities, emails, statuses), the key
    // lists, a project's note search and the job queue read: their statements' answers outlive
    // writes to other tables, where any write let them go (jobs/001 made its table before core/001).
    name: 'core/187_other_list_table_versions',
    sql: `
${TABLE_VERSIONED_187.map((t) => `INSERT INTO table_versions (name, version) VALUES ('${t}', 0);
CREATE TRIGGER ${t}_table_version_insert AFTER INSERT ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_update AFTER UPDATE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_delete AFTER DELETE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;`).join('\n')}
`,
  },
  {
    // Versions of what the trigram indexes of users (core/033), groups (core/051) and projects
    // (core/032) hold, as core/154's of labels_search: moved by a record created or deleted and by
    // an indexed column changed, not by other writes. A search's candidates from the index are
    // kept until it moves (db/trigram.ts rememberedCandidates): the phrase's doclists were merged
    // again after every write anywhere (a user search, a members query: ~0.3 ms).
    name: 'core/189_user_group_project_search_versions',
    sql: `
INSERT INTO table_versions (name, version) VALUES ('users_search', 0), ('groups_search', 0), ('projects_search', 0);
CREATE TRIGGER users_search_version_insert AFTER INSERT ON users BEGIN UPDATE table_versions SET version = version + 1 WHERE name = 'users_search'; END;
CREATE TRIGGER users_search_version_update AFTER UPDATE OF id, username, name ON users
  WHEN NEW.id IS NOT OLD.id OR NEW.username IS NOT OLD.username OR NEW.name IS NOT OLD.name BEGIN
  UPDATE table_versions SET version = version + 1 WHERE name = 'users_search';
END;
CREATE TRIGGER users_search_version_delete AFTER DELETE ON users BEGIN UPDATE table_versions SET version = version + 1 WHERE name = 'users_search'; END;
CREATE TRIGGER groups_search_version_insert AFTER INSERT ON namespaces WHEN NEW.kind = 'group' BEGIN
  UPDATE table_versions SET version = version + 1 WHERE name = 'groups_search';
END;
CREATE TRIGGER groups_search_version_update AFTER UPDATE OF id, name, path, kind ON namespaces
  WHEN (OLD.kind = 'group' OR NEW.kind = 'group') AND (NEW.id IS NOT OLD.id OR NEW.name IS NOT OLD.name OR NEW.path IS NOT OLD.path OR NEW.kind IS NOT OLD.kind) BEGIN
  UPDATE table_versions SET version = version + 1 WHERE name = 'groups_search';
END;
CREATE TRIGGER groups_search_version_delete AFTER DELETE ON namespaces WHEN OLD.kind = 'group' BEGIN
  UPDATE table_versions SET version = version + 1 WHERE name = 'groups_search';
END;
CREATE TRIGGER projects_search_version_insert AFTER INSERT ON projects BEGIN UPDATE table_versions SET version = version + 1 WHERE name = 'projects_search'; END;
CREATE TRIGGER projects_search_version_update AFTER UPDATE OF id, name, path, description ON projects
  WHEN NEW.id IS NOT OLD.id OR NEW.name IS NOT OLD.name OR NEW.path IS NOT OLD.path OR NEW.description IS NOT OLD.description BEGIN
  UPDATE table_versions SET version = version + 1 WHERE name = 'projects_search';
END;
CREATE TRIGGER projects_search_version_delete AFTER DELETE ON projects BEGIN UPDATE table_versions SET version = version + 1 WHERE name = 'projects_search'; END;
`,
  },
  {
    // Merge requests in a state over many projects (a group's list, the instance's) by updated_at:
    // SQLite chose core/036's (state, created_at) index for the state and sorted every match by the
    // update date (a group's opened merge requests, page 1: 920,000 sorted, 326 ms after every
    // write), where this index reads the page in order.
    name: 'core/184_merge_requests_state_updated',
    sql: `CREATE INDEX merge_requests_state_updated ON merge_requests (state, updated_at, id);`,
  },
  {
    // An author's records by updated_at (author_id, or /issues' and /merge_requests' default, the
    // caller's own: created_by_me) with other filters: SQLite read every one of the author's matches
    // by core's (author_id, created_at) index and sorted them by the update date (an administrator's
    // closed issues without label-1, page 1 of 100: 950,000 read and sorted, 340 ms), where this index
    // reads the page in order.
    name: 'core/208_author_updated',
    sql: `CREATE INDEX issues_author_updated ON issues (author_id, updated_at, id);
CREATE INDEX merge_requests_author_updated ON merge_requests (author_id, updated_at, id);`,
  },
  {
    // An author's filter counters over every project (filter-plan.ts countersHold: /issues' and
    // /merge_requests' default scope, the caller's own records, with a milestone filter and a state),
    // where the counters are keyed by project first. Their rows change in this index only when a
    // combination first appears or goes (a count moving is not in it).
    name: 'core/223_filter_counts_author',
    sql: `CREATE INDEX issue_filter_counts_author ON issue_filter_counts (author, state, milestone);
CREATE INDEX merge_request_filter_counts_author ON merge_request_filter_counts (author, state, milestone);`,
  },
  featureLevelsVersionMigration,
  {
    // A project's merge requests of one state by merged_at (state=opened or closed: none merged, so
    // every one sorts at the NULL end): SQLite walked merge_requests_project_merged across every
    // merged one first and asked each record its state and author (mr17, opened by author 3, page 50
    // of 100: 140,000 records read, 150-190 ms the first time), where this index starts at the state.
    name: 'core/298_merge_requests_project_state_merged',
    sql: `CREATE INDEX merge_requests_project_state_merged ON merge_requests (project_id, state, merged_at, id);`,
  },
  {
    // What each of a project's recent deletes and order-moving updates (core/024's versions that
    // core/025's inserts did not make) found: the issue as it was, in the columns those anchored
    // lists filter and sort on. With core/025's inserts, every version of a recent stretch is then
    // known, and deep pages' anchors move back by a row deleted or moved out of their list (a
    // close, an author changed) instead of being dropped, as they move along by an insert
    // (PageAnchors.moves). The log keeps the last 100 per project; an update that changes an
    // issue's id is not logged (its stretch is then not known).
    name: 'core/295_issue_order_leaves',
    sql: `
CREATE TABLE issue_order_leaves (
  project_id INTEGER NOT NULL,
  version INTEGER NOT NULL,
  id INTEGER NOT NULL,
  was_project_id INTEGER,
  created_at TEXT,
  title TEXT,
  state TEXT,
  author_id INTEGER,
  confidential INTEGER,
  assignee_ids TEXT,
  PRIMARY KEY (project_id, version)
) WITHOUT ROWID;
DROP TRIGGER issues_order_version_delete;
CREATE TRIGGER issues_order_version_delete AFTER DELETE ON issues BEGIN
  INSERT INTO issue_order_versions (project_id, version) VALUES (OLD.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
  ${orderLeave('OLD.project_id', '1 = 1')}
END;
DROP TRIGGER issues_order_version_update;
CREATE TRIGGER issues_order_version_update AFTER UPDATE ON issues
  WHEN NEW.id != OLD.id OR NEW.project_id != OLD.project_id OR NEW.created_at != OLD.created_at OR NEW.title != OLD.title
    OR NEW.state != OLD.state OR NEW.author_id IS NOT OLD.author_id OR NEW.confidential != OLD.confidential
    OR NEW.assignee_ids != OLD.assignee_ids BEGIN
  INSERT INTO issue_order_versions (project_id, version) VALUES (NEW.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
  ${orderLeave('NEW.project_id', 'NEW.id = OLD.id')}
  INSERT INTO issue_order_versions (project_id, version) SELECT OLD.project_id, 1 WHERE OLD.project_id != NEW.project_id
    ON CONFLICT DO UPDATE SET version = version + 1;
  ${orderLeave('OLD.project_id', 'NEW.id = OLD.id AND OLD.project_id != NEW.project_id')}
END;
`,
  },
  {
    // One author's merge requests of a group or the instance by title or merged_at (author_id, the
    // instance's created_by_me): each project an arm walking the author's entries alone
    // (order-scope-arms.ts), where the (project_id, column, id) arms asked every record its author
    // (a twentieth author's by merged_at, none merged: 75 ms for page 1) or the author's records were
    // read and sorted (author_id&milestone=None by title, page 500: 110 ms). The state and milestone
    // ride along: an arm asks them of the entry, not of a record read for it (an author's records
    // are scattered over the table, a page read each).
    name: 'core/319_merge_requests_project_author_orders',
    sql: `CREATE INDEX merge_requests_project_author_title ON merge_requests (project_id, author_id, title, id, state, milestone_id);
CREATE INDEX merge_requests_project_author_merged ON merge_requests (project_id, author_id, merged_at, id, state, milestone_id);`,
  },
  {
    // Who last saved an issue or merge request through its update (GitLab's updated_by): a PUT that
    // changes nothing by that same user saves nothing and leaves updated_at (keepUpdatedAtUnlessChanged).
    // Added columns: no table is rewritten.
    name: 'core/327_issuable_updated_by',
    sql: `ALTER TABLE issues ADD COLUMN updated_by_id INTEGER;
ALTER TABLE merge_requests ADD COLUMN updated_by_id INTEGER;`,
  },
  {
    // The issue a moved issue went to (Issue#moved_to, POST .../issues/:iid/move): Entities::Issue's
    // moved_to_id, and can_move? refuses a second move. An added column: no table is rewritten.
    name: 'core/350_issue_moved_to',
    sql: 'ALTER TABLE issues ADD COLUMN moved_to_id INTEGER;',
  },
  {
    // A deleted note, issue or merge request takes its events with it, as GitLab's
    // `has_many :events, as: :target, dependent:` on Note, Issue and MergeRequest: a comment deleted
    // (or gone with its issue, merge request, snippet or epic) leaves no "commented on" event with a
    // null note. (A milestone's events stay: Milestones::DestroyService keeps them, target_id nulled.)
    // Triggers, so every delete path does it; the index finds a target's events among millions.
    name: 'core/375_events_go_with_their_target',
    sql: `CREATE INDEX events_target_id ON events (target_id, target_type) WHERE target_id IS NOT NULL;
CREATE TRIGGER notes_events_delete AFTER DELETE ON notes BEGIN
  DELETE FROM events WHERE target_id = OLD.id AND target_type IN ('Note', 'DiffNote', 'DiscussionNote');
END;
CREATE TRIGGER issues_events_delete AFTER DELETE ON issues BEGIN
  DELETE FROM events WHERE target_id = OLD.id AND target_type = 'Issue';
END;
CREATE TRIGGER merge_requests_events_delete AFTER DELETE ON merge_requests BEGIN
  DELETE FROM events WHERE target_id = OLD.id AND target_type = 'MergeRequest';
END;`,
  },
  {
    // Deleting (or moving) one comment of a record with 200,000 notes took ~0.5 s: core/088's
    // recompute of its discussion, asked for a discussion_id and a record, read the record's notes
    // (two equal columns lured SQLite from notes_discussion); core/098's author recompute, its
    // min(id) in a subquery with `first_id IS NOT NULL` pushed into it, read all the author's notes
    // there. The same rows, found by the discussion's index and the author index's first entry.
    name: 'core/377_note_recomputes_by_index',
    sql: `DROP TRIGGER note_discussions_update;
DROP TRIGGER note_discussions_delete;
DROP TRIGGER note_authors_update;
DROP TRIGGER note_authors_delete;
${noteRecomputeTriggers()}`,
  },
  {
    // A project's (or a group's projects') merge requests counted by labels=Any, labels=None or
    // not[labels] read each record for its labels, and SQLite (no statistics) walked them by
    // core/298's (project_id, state, merged_at, id), in merge-date order scattered over the table
    // (mr25's group labels=Any count 100-290 ms first). This index answers `labels != '[]'` and
    // `labels = '[]'` itself, no record read (1.5 ms). Not (project_id) alone: its free id order
    // lured `project_id = ? ... ORDER BY id LIMIT 1` (the open merge request of a source branch)
    // off merge_requests_project_source_branch.
    name: 'core/383_merge_requests_project_labels',
    sql: `CREATE INDEX merge_requests_project_labels ON merge_requests (project_id, labels);`,
  },
  {
    // core/383's idea for one author's merge requests: author_id=N&labels=Any (or None) counted
    // each of the author's records by merge_requests_project_author_created for its labels (mr25,
    // author 3's 970,000: 90-105 ms a count). Answered from this index alone (0.8 ms).
    name: 'core/384_merge_requests_project_author_labels',
    sql: `CREATE INDEX merge_requests_project_author_labels ON merge_requests (project_id, author_id, labels);`,
  },
  {
    // GitLab's Event#target_title reads the target's title live (target.try(:title); a note's is its
    // noteable's), so an event shows its issue, merge request or milestone as now named. The events
    // keep their title (the lists read no other table) and a rename writes it to the target's
    // events and its notes' (system notes write none), found by core/375's events_target_id.
    name: 'core/390_event_target_titles',
    sql: `
${retitleEventsTrigger('issues', 'Issue', true)}
${retitleEventsTrigger('merge_requests', 'MergeRequest', true)}
${retitleEventsTrigger('milestones', 'Milestone', false)}
`,
  },
  {
    // A user's events of one action and one target type (`/users/:id/events?action=created&
    // target_type=user`, one's own `/events?...`): with core/170's and core/180's pairs SQLite took
    // the (author, action) one and compared each event's type (user 3's 50,000 created events for
    // no User one: 150-250 ms the first read, 50-85 ms after every write), as core/171 holds the
    // pair for every project's events.
    name: 'core/391_events_author_action_target',
    sql: `
CREATE INDEX events_author_action_target ON events (author_id, action, target_type, id) WHERE project_id IS NOT NULL AND target_type IS NOT NULL;
`,
  },
  {
    // core/384's idea for issues: one author's issues counted by labels=Any or labels=None (with
    // due_date=0, and a Guest's confidentiality check) read each of the author's records by
    // issues_project_author_created for those columns (mr25, author 3's 50,000 in a project:
    // 100-330 ms a first count). Answered from this index alone.
    name: 'core/392_issues_project_author_labels',
    sql: `CREATE INDEX issues_project_author_labels ON issues (project_id, author_id, labels, confidential, due_date);`,
  },
  {
    // A record's notes as a caller below Planner reads them (internal = 0): the order's index held
    // no `internal`, so a deep page read every note's row to skip it (mr25's issue #2, page 9,999 of
    // 200,000 notes: 90-330 ms the first read for a Guest, 30 for an administrator's walk of the
    // index alone). These hold the notes such a caller sees, in each order.
    name: 'core/393_notes_noteable_shown',
    sql: `
CREATE INDEX notes_noteable_created_shown ON notes (noteable_type, noteable_id, created_at, id) WHERE internal = 0;
CREATE INDEX notes_noteable_updated_shown ON notes (noteable_type, noteable_id, updated_at, id) WHERE internal = 0;
`,
  },  {
    // Time tracking (TimeTrackable): an issue's or merge request's estimate on its record, its time
    // spent as GitLab's timelogs rows (one per add, subtraction or reset) and their sum on the record,
    // so a list's entities read time_stats from the row they have. ADD COLUMN with a constant default
    // leaves the existing rows unwritten.
    name: 'core/394_time_tracking',
    sql: `
ALTER TABLE issues ADD COLUMN time_estimate INTEGER NOT NULL DEFAULT 0;
ALTER TABLE issues ADD COLUMN total_time_spent INTEGER NOT NULL DEFAULT 0;
ALTER TABLE merge_requests ADD COLUMN time_estimate INTEGER NOT NULL DEFAULT 0;
ALTER TABLE merge_requests ADD COLUMN total_time_spent INTEGER NOT NULL DEFAULT 0;
CREATE TABLE timelogs (
  id INTEGER PRIMARY KEY,
  issue_id INTEGER REFERENCES issues (id) ON DELETE CASCADE,
  merge_request_id INTEGER REFERENCES merge_requests (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL,
  time_spent INTEGER NOT NULL,
  spent_at TEXT NOT NULL,
  summary TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK ((issue_id IS NULL) != (merge_request_id IS NULL))
);
CREATE INDEX timelogs_issue ON timelogs (issue_id) WHERE issue_id IS NOT NULL;
CREATE INDEX timelogs_merge_request ON timelogs (merge_request_id) WHERE merge_request_id IS NOT NULL;
`,
  },
  {
    // A project's label title with milestone=None (label-row-mirrors.ts labelRowsIndexed): its rows
    // by (project, title, state) held no milestone, so each was read from the table to ask it (mr25,
    // a project's merge requests labels=bug&milestone=None counted to 11,001 through 15,000 rows:
    // 120-240 ms a first count). These are the rows without one, answered by the index alone (the
    // milestone a column too: SQLite asks the table for a condition its index does not hold, implied or not).
    name: 'core/405_issuable_labels_no_milestone',
    sql: `
CREATE INDEX issuable_labels_no_milestone ON issuable_labels (issuable_type, project_id, title COLLATE NOCASE, state, issuable_id, milestone)
  WHERE milestone IS NULL;
`,
  },
];

/** core/390: a rename of a `table` record (events' target_type `type`) retitles its events and, where it has notes, its notes' events. */
export function retitleEventsTrigger(table: string, type: string, noted: boolean): string {
  const notes = noted
    ? `UPDATE events SET target_title = NEW.title WHERE target_id IN (SELECT id FROM notes WHERE noteable_type = '${type}' AND noteable_id = NEW.id AND system = 0)
    AND target_type IN ('Note', 'DiffNote', 'DiscussionNote');`
    : '';
  return `CREATE TRIGGER ${table}_retitle_events AFTER UPDATE OF title ON ${table} WHEN NEW.title IS NOT OLD.title BEGIN
  UPDATE events SET target_title = NEW.title WHERE target_id = NEW.id AND target_type = '${type}';
  ${notes}
END;`;
}

/** core/295: the issue as it was (OLD) logged at the version its write just gave `project` (when `when`), and that project's entries past the last 100 dropped. */
function orderLeave(project: string, when: string): string {
  return `INSERT INTO issue_order_leaves (project_id, version, id, was_project_id, created_at, title, state, author_id, confidential, assignee_ids)
    SELECT project_id, version, OLD.id, OLD.project_id, OLD.created_at, OLD.title, OLD.state, OLD.author_id, OLD.confidential, OLD.assignee_ids
    FROM issue_order_versions WHERE project_id = ${project} AND ${when};
  DELETE FROM issue_order_leaves WHERE project_id = ${project}
    AND version <= (SELECT version - 100 FROM issue_order_versions WHERE project_id = ${project});`;
}

/**
 * core/179: event `rec` in a run of its own. The run it falls in (the last starting at or below
 * its id) goes on after it from id + 1 with the same bounds (unless a run starts there, or no
 * event is above it); then a run at its id holds it alone (replacing one that started there).
 */
function isolateEventRun(rec: 'NEW'): string {
  return `INSERT OR IGNORE INTO event_time_runs (first_id, min_created_at, max_created_at)
    SELECT ${rec}.id + 1, r.min_created_at, r.max_created_at FROM event_time_runs r
    WHERE r.first_id = (SELECT max(first_id) FROM event_time_runs WHERE first_id <= ${rec}.id) AND ${rec}.id < (SELECT max(id) FROM events);
  INSERT OR REPLACE INTO event_time_runs (first_id, min_created_at, max_created_at) VALUES (${rec}.id, ${rec}.created_at, ${rec}.created_at);`;
}


/**
 * core/098's triggers: an author's row on a record is recomputed from the notes' (author, noteable)
 * index (core/080) whenever one of their notes there comes, goes or changes author, record or
 * internal flag; min(id) is the index's first entry, the first public note its first entry not internal.
 */
function noteAuthorTriggers(): string {
  const recompute = (rec: 'NEW' | 'OLD'): string => `DELETE FROM note_authors WHERE noteable_type = ${rec}.noteable_type AND noteable_id = ${rec}.noteable_id AND author_id = ${rec}.author_id;
  INSERT INTO note_authors (noteable_type, noteable_id, author_id, first_id, first_public_id)
    SELECT ${rec}.noteable_type, ${rec}.noteable_id, ${rec}.author_id, f.first_id,
      (SELECT id FROM notes WHERE author_id = ${rec}.author_id AND noteable_type = ${rec}.noteable_type AND noteable_id = ${rec}.noteable_id AND internal = 0 ORDER BY id LIMIT 1)
    FROM (SELECT min(id) AS first_id FROM notes WHERE author_id = ${rec}.author_id AND noteable_type = ${rec}.noteable_type AND noteable_id = ${rec}.noteable_id) f
    WHERE ${rec}.author_id IS NOT NULL AND f.first_id IS NOT NULL;`;
  return `CREATE TRIGGER note_authors_insert AFTER INSERT ON notes WHEN NEW.author_id IS NOT NULL BEGIN
  INSERT INTO note_authors (noteable_type, noteable_id, author_id, first_id, first_public_id)
    VALUES (NEW.noteable_type, NEW.noteable_id, NEW.author_id, NEW.id, CASE WHEN NEW.internal = 0 THEN NEW.id END)
    ON CONFLICT (noteable_type, noteable_id, author_id) DO UPDATE SET
      first_id = min(first_id, excluded.first_id),
      first_public_id = coalesce(min(first_public_id, excluded.first_public_id), first_public_id, excluded.first_public_id);
END;
CREATE TRIGGER note_authors_update AFTER UPDATE OF id, noteable_type, noteable_id, author_id, internal ON notes
  WHEN NEW.id IS NOT OLD.id OR NEW.noteable_type IS NOT OLD.noteable_type OR NEW.noteable_id IS NOT OLD.noteable_id OR NEW.author_id IS NOT OLD.author_id OR NEW.internal IS NOT OLD.internal BEGIN
  ${recompute('OLD')}
  ${recompute('NEW')}
END;
CREATE TRIGGER note_authors_delete AFTER DELETE ON notes WHEN OLD.author_id IS NOT NULL BEGIN
  ${recompute('OLD')}
END;`;
}

/** core/377's update and delete triggers of note_discussions (core/088) and note_authors (core/098): a row recomputed from its own notes only. */
function noteRecomputeTriggers(): string {
  // `+`: the discussion's notes by notes_discussion, never by the record's (every note of it).
  const discussion = (rec: 'NEW' | 'OLD'): string => `DELETE FROM note_discussions WHERE noteable_type = ${rec}.noteable_type AND noteable_id = ${rec}.noteable_id AND discussion_id = ${rec}.discussion_id;
  INSERT INTO note_discussions (noteable_type, noteable_id, discussion_id, first_id, first_public_id)
    SELECT noteable_type, noteable_id, discussion_id, min(id), min(CASE WHEN internal = 0 THEN id END) FROM notes
    WHERE discussion_id = ${rec}.discussion_id AND +noteable_type = ${rec}.noteable_type AND +noteable_id = ${rec}.noteable_id GROUP BY noteable_type, noteable_id, discussion_id;`;
  // The first note is the index's first entry (ORDER BY id LIMIT 1); no author notes left, no row.
  const author = (rec: 'NEW' | 'OLD'): string => `DELETE FROM note_authors WHERE noteable_type = ${rec}.noteable_type AND noteable_id = ${rec}.noteable_id AND author_id = ${rec}.author_id;
  INSERT INTO note_authors (noteable_type, noteable_id, author_id, first_id, first_public_id)
    SELECT n.noteable_type, n.noteable_id, n.author_id, n.id,
      (SELECT id FROM notes WHERE author_id = ${rec}.author_id AND noteable_type = ${rec}.noteable_type AND noteable_id = ${rec}.noteable_id AND internal = 0 ORDER BY id LIMIT 1)
    FROM notes n WHERE n.author_id = ${rec}.author_id AND n.noteable_type = ${rec}.noteable_type AND n.noteable_id = ${rec}.noteable_id ORDER BY n.id LIMIT 1;`;
  return `CREATE TRIGGER note_discussions_update AFTER UPDATE OF id, noteable_type, noteable_id, discussion_id, internal ON notes BEGIN
  ${discussion('OLD')}
  ${discussion('NEW')}
END;
CREATE TRIGGER note_discussions_delete AFTER DELETE ON notes BEGIN
  ${discussion('OLD')}
END;
CREATE TRIGGER note_authors_update AFTER UPDATE OF id, noteable_type, noteable_id, author_id, internal ON notes
  WHEN NEW.id IS NOT OLD.id OR NEW.noteable_type IS NOT OLD.noteable_type OR NEW.noteable_id IS NOT OLD.noteable_id OR NEW.author_id IS NOT OLD.author_id OR NEW.internal IS NOT OLD.internal BEGIN
  ${author('OLD')}
  ${author('NEW')}
END;
CREATE TRIGGER note_authors_delete AFTER DELETE ON notes WHEN OLD.author_id IS NOT NULL BEGIN
  ${author('OLD')}
END;`;
}

/** core/066's triggers for one JSON list of user ids (`column` of `table`): its rows in issuable_users follow the record's list and project. */
function issuableUserTriggers(table: string, type: string, role: string, column: string): string {
  const rows = (rec: 'NEW' | 'OLD'): string =>
    `SELECT '${type}', '${role}', j.value, ${rec}.project_id, ${rec}.id FROM json_each(CASE WHEN json_valid(${rec}.${column}) THEN ${rec}.${column} ELSE '[]' END) j WHERE j.type IN ('integer', 'real')`;
  const insert = `INSERT OR IGNORE INTO issuable_users (issuable_type, role, user_id, project_id, issuable_id) ${rows('NEW')};`;
  const remove = `DELETE FROM issuable_users WHERE issuable_type = '${type}' AND role = '${role}'
    AND user_id IN (SELECT j.value FROM json_each(CASE WHEN json_valid(OLD.${column}) THEN OLD.${column} ELSE '[]' END) j) AND project_id = OLD.project_id AND issuable_id = OLD.id;`;
  return `CREATE TRIGGER ${table}_${role}s_insert AFTER INSERT ON ${table} WHEN NEW.${column} != '[]' BEGIN
  ${insert}
END;
CREATE TRIGGER ${table}_${role}s_update AFTER UPDATE OF ${column}, project_id, id ON ${table}
  WHEN NEW.${column} IS NOT OLD.${column} OR NEW.project_id IS NOT OLD.project_id OR NEW.id IS NOT OLD.id BEGIN
  ${remove}
  ${insert}
END;
CREATE TRIGGER ${table}_${role}s_delete AFTER DELETE ON ${table} WHEN OLD.${column} != '[]' BEGIN
  ${remove}
END;`;
}
