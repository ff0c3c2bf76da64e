import type { ServiceContext } from '../../../context';
import { inTransaction } from '../../../db/connection';
import type { JobContext } from '../../../jobs/runner';
import { ApiError } from '../../../http/errors';
import type { MergeRequestRow, NoteRow } from '../../core/entities';
import { insertImportedIssue, insertImportedMergeRequest, insertImportedNote } from '../../core/imported';
import { isoTime } from '../../core/time';
import { createLabel } from '../../labels/labels';
import { insertImportedMilestone } from '../../bulk_imports/writer';
import { importLocator, importedRecord, rememberRecord } from '../imports';
import { type AComment, type AIssue, type ALabel, type AMilestone, type APull, type AReviewComment, type AUser, ProviderAClient } from '../providers/providera';
import { ImportRun } from './run';
import { importAttachments } from './attachments';
import { importRepository } from './repository';
import { type Stage, runStages, providerOptions } from './stages';
import type { SourceUser } from './users';

/**
 * Provider A (GitHub) into a project, in GitLab's GitHub importer's order: the git repository, labels, milestones, pull requests
 * (as merge requests), collaborators, who merged each pull request, issues (the issues list holds
 * the pull requests too: those are skipped), review comments as diff notes, comments, and the
 * Markdown attachments.
 */

export interface ProviderALocator {
  repo_id: number;
  full_name: string;
}

const sourceUser = (u: AUser | null | undefined): SourceUser | null => (u ? { key: u.login, name: u.login } : null);

export async function importFromProviderA(svc: ServiceContext, job: JobContext<{ projectId: number }>): Promise<void> {
  const base = ImportRun.load(svc, job);
  const client = new ProviderAClient(base.row.api_url, job.secret(), base.settings.pagination_limit, providerOptions(svc, job));
  const run = new ImportRun(svc, job, base.row, async (login) => (await client.userByLogin(login)).email ?? null);
  const repo = importLocator<ProviderALocator>(run.row).full_name;
  const stages: Stage[] = [
    // GitHub takes the token as the username of git's HTTP Basic credentials (GitLab's import_url).
    { name: 'repository', run: () => importRepository(run, { username: job.secret(), password: '' }) },
    { name: 'labels', run: () => importLabels(run, client, repo) },
    { name: 'milestones', run: () => importMilestones(run, client, repo) },
    { name: 'pull_requests', run: () => importPullRequests(run, client, repo) },
    { name: 'collaborators', optional: 'collaborators_import', run: () => importCollaborators(run, client, repo) },
    { name: 'pull_requests_merged_by', run: () => importMergedBy(run, client, repo) },
    { name: 'issues', run: () => importIssues(run, client, repo) },
    { name: 'diff_notes', run: () => importDiffNotes(run, client, repo) },
    { name: 'notes', run: () => importNotes(run, client, repo) },
    { name: 'attachments', optional: 'attachments_import', run: () => importAttachments(run, client.http, new URL(client.apiUrl).origin) },
  ];
  await runStages(run, stages);
}

function importLabels(run: ImportRun, client: ProviderAClient, repo: string): Promise<void> {
  return run.eachPage<ALabel>({
    stage: 'labels',
    objectType: 'label',
    first: client.lists.labels(repo),
    fetchPage: (url) => client.page(url),
    each: (l) => {
      if (importedRecord(run.svc, run.projectId, 'label', l.id) !== undefined) return 'skipped';
      try {
        const label = createLabel(run.svc, { kind: 'project', project: run.project }, { title: l.name, color: `#${l.color}`, description: l.description || null });
        rememberRecord(run.svc, run.projectId, 'label', l.id, label.id);
        return 'imported';
      } catch (err) {
        // A label of that title exists already (the project's or its group's): it is used as is.
        if (err instanceof ApiError && err.status === 409) return 'skipped';
        throw err;
      }
    },
  });
}

/** MilestonesImporter: each milestone with its number as iid, open ones active, the due date's day. */
function importMilestones(run: ImportRun, client: ProviderAClient, repo: string): Promise<void> {
  return run.eachPage<AMilestone>({
    stage: 'milestones',
    objectType: 'milestone',
    first: client.lists.milestones(repo),
    fetchPage: (url) => client.page(url),
    identify: (m) => m.number,
    each: (m) => {
      if (importedRecord(run.svc, run.projectId, 'milestone', m.number) !== undefined) return 'skipped';
      const id = insertImportedMilestone(run.svc, {
        parent: { column: 'project_id', id: run.projectId },
        iid: m.number,
        title: m.title,
        description: m.description,
        state: m.state === 'open' ? 'active' : 'closed',
        startDate: null,
        dueDate: m.due_on ? m.due_on.slice(0, 10) : null,
        // GitLab keeps the times and shows them as its own (milliseconds, UTC).
        createdAt: new Date(m.created_at).toISOString(),
        updatedAt: new Date(m.updated_at).toISOString(),
      });
      rememberRecord(run.svc, run.projectId, 'milestone', m.number, id);
      return 'imported';
    },
  });
}

/** MilestoneFinder: the imported milestone an issue or pull request names by number. */
const milestoneOf = (run: ImportRun, i: AIssue): number | null => (i.milestone ? (importedRecord(run.svc, run.projectId, 'milestone', i.milestone.number) ?? null) : null);

/** GitLab names a branch of a fork `github/fork/<owner>/<branch>`. */
function sourceBranch(pr: APull, repo: string): string {
  const fromFork = !pr.head.repo || pr.head.repo.full_name !== repo;
  return fromFork ? `github/fork/${pr.head.repo?.full_name.split('/')[0] ?? 'deleted'}/${pr.head.ref}` : pr.head.ref;
}

const DRAFT_PREFIX = /^\s*(\[draft\]|\(draft\)|draft:|draft\s-\s)/i;

function importPullRequests(run: ImportRun, client: ProviderAClient, repo: string): Promise<void> {
  return run.eachPage<APull>({
    stage: 'pull_requests',
    objectType: 'pull_request',
    first: client.lists.pulls(repo),
    fetchPage: (url) => client.page(url),
    prepare: (pulls) => run.users.prepare(pulls.flatMap((p) => [sourceUser(p.user), ...(p.assignees ?? []).map(sourceUser)])),
    identify: (p) => p.number,
    each: (pr) => {
      if (importedRecord(run.svc, run.projectId, 'pull_request', pr.number) !== undefined) return 'skipped';
      const author = run.users.author(sourceUser(pr.user));
      const state = pr.merged_at ? 'merged' : pr.state === 'closed' ? 'closed' : 'opened';
      const mr = insertImportedMergeRequest(run.svc, run.projectId, {
        iid: pr.number,
        title: pr.draft && !DRAFT_PREFIX.test(pr.title) ? `Draft: ${pr.title}` : pr.title,
        description: run.users.body(sourceUser(pr.user), pr.body),
        state,
        authorId: author.id,
        assigneeIds: run.users.matchedIds((pr.assignees ?? []).map(sourceUser)),
        labels: (pr.labels ?? []).map((l) => l.name),
        milestoneId: milestoneOf(run, pr),
        sourceBranch: sourceBranch(pr, repo),
        targetBranch: pr.base.ref,
        baseSha: pr.base.sha,
        headSha: pr.head.sha,
        mergedAt: pr.merged_at,
        closedAt: state === 'opened' ? null : pr.closed_at,
        createdAt: pr.created_at,
        updatedAt: pr.updated_at,
        importedFrom: 'github',
      });
      rememberRecord(run.svc, run.projectId, 'pull_request', pr.number, mr.id);
      return 'imported';
    },
  });
}

/** GitHub's collaborator roles as project roles (CollaboratorImporter). */
const ROLE_LEVELS: Record<string, number> = { admin: 50, maintain: 40, write: 30, triage: 20, read: 10 };

function importCollaborators(run: ImportRun, client: ProviderAClient, repo: string): Promise<void> {
  type Collaborator = AUser & { role_name?: string; permissions?: Record<string, boolean> };
  return run.eachPage<Collaborator>({
    stage: 'collaborators',
    objectType: 'collaborator',
    first: client.lists.collaborators(repo),
    fetchPage: (url) => client.page(url),
    prepare: (people) => run.users.prepare(people.map(sourceUser)),
    each: (c) => {
      const [userId] = run.users.matchedIds([sourceUser(c)]);
      const level = ROLE_LEVELS[c.role_name ?? ''] ?? (c.permissions?.admin ? 50 : c.permissions?.push ? 30 : 10);
      if (!userId) return 'skipped';
      const existing = run.svc.db.prepare("SELECT access_level FROM members WHERE source_type = 'Project' AND source_id = ? AND user_id = ?").get(run.projectId, userId) as
        | { access_level: number }
        | undefined;
      if (existing && existing.access_level >= level) return 'skipped';
      const now = isoTime(run.svc.now());
      if (existing) run.svc.db.prepare("UPDATE members SET access_level = ?, updated_at = ? WHERE source_type = 'Project' AND source_id = ? AND user_id = ?").run(level, now, run.projectId, userId);
      else {
        run.svc.db
          .prepare(`INSERT INTO members (source_type, source_id, user_id, access_level, created_by_id, created_at, updated_at) VALUES ('Project', ?, ?, ?, ?, ?, ?)`)
          .run(run.projectId, userId, level, run.row.user_id, now, now);
      }
      return 'imported';
    },
  });
}

/**
 * The pull request list has no `merged_by`: each merged one is read on its own (GitLab's
 * PullRequestsMergedByImporter). A merger without a user here is named in a note.
 */
async function importMergedBy(run: ImportRun, client: ProviderAClient, repo: string): Promise<void> {
  const pending = (): MergeRequestRow[] =>
    run.svc.db
      .prepare(
        `SELECT m.* FROM merge_requests m JOIN project_import_records r ON r.project_id = m.project_id AND r.kind = 'pull_request' AND r.target_id = m.id
         WHERE m.project_id = ? AND m.state = 'merged'
           AND NOT EXISTS (SELECT 1 FROM project_import_records d WHERE d.project_id = m.project_id AND d.kind = 'merged_by' AND d.source_id = m.iid)
         ORDER BY m.iid LIMIT ?`,
      )
      .all(run.projectId, client.perPage) as MergeRequestRow[];
  for (let batch = pending(); batch.length; batch = pending()) {
    await run.job.checkpoint();
    const pulls = await Promise.all(batch.map((mr) => client.pull(repo, mr.iid)));
    await run.users.prepare(pulls.map((p) => sourceUser(p.merged_by)));
    await run.importItems('pull_requests_merged_by', 'pull_request_merged_by', batch, (mr) => {
      const pr = pulls.find((p) => p.number === mr.iid)!;
      if (!pr.merged_by) return 'skipped';
      const merger = run.users.author(sourceUser(pr.merged_by));
      run.svc.db.prepare('UPDATE merge_requests SET merged_by_id = ? WHERE id = ?').run(merger.id, mr.id);
      if (!merger.matched) {
        insertImportedNote(run.svc, run.projectId, {
          noteableType: 'MergeRequest',
          noteableId: mr.id,
          authorId: merger.id,
          body: `*Merged by: ${pr.merged_by.login} at ${pr.merged_at}*`,
          createdAt: pr.merged_at ?? mr.updated_at,
          updatedAt: pr.merged_at ?? mr.updated_at,
          importedFrom: 'github',
        });
      }
      return 'imported';
    });
    // Done with these, imported or failed: the next batch moves on.
    inTransaction(run.svc.db, () => batch.forEach((mr) => rememberRecord(run.svc, run.projectId, 'merged_by', mr.iid, mr.id)));
  }
}

function importIssues(run: ImportRun, client: ProviderAClient, repo: string): Promise<void> {
  return run.eachPage<AIssue>({
    stage: 'issues',
    objectType: 'issue',
    first: client.lists.issues(repo),
    // The issues list holds the pull requests too; those were imported as merge requests.
    fetchPage: async (url) => {
      const page = await client.page<AIssue>(url);
      return { ...page, items: page.items.filter((i) => !i.pull_request) };
    },
    prepare: (issues) => run.users.prepare(issues.flatMap((i) => [sourceUser(i.user), ...(i.assignees ?? []).map(sourceUser)])),
    identify: (i) => i.number,
    each: (i) => {
      if (importedRecord(run.svc, run.projectId, 'issue', i.number) !== undefined) return 'skipped';
      const issue = insertImportedIssue(run.svc, run.projectId, {
        iid: i.number,
        title: i.title,
        description: run.users.body(sourceUser(i.user), i.body),
        state: i.state === 'closed' ? 'closed' : 'opened',
        authorId: run.users.author(sourceUser(i.user)).id,
        assigneeIds: run.users.matchedIds((i.assignees ?? []).map(sourceUser)),
        labels: i.labels.map((l) => l.name),
        milestoneId: milestoneOf(run, i),
        closedAt: i.state === 'closed' ? i.closed_at : null,
        createdAt: i.created_at,
        updatedAt: i.updated_at,
        importedFrom: 'github',
      });
      rememberRecord(run.svc, run.projectId, 'issue', i.number, issue.id);
      return 'imported';
    },
  });
}

const numberAtEnd = (url: string | undefined): number | null => {
  const m = /\/(\d+)$/.exec(url ?? '');
  return m ? Number(m[1]) : null;
};

function findMergeRequest(run: ImportRun, number: number | null): MergeRequestRow {
  const id = number === null ? undefined : importedRecord(run.svc, run.projectId, 'pull_request', number);
  const mr = id === undefined ? undefined : (run.svc.db.prepare('SELECT * FROM merge_requests WHERE id = ?').get(id) as MergeRequestRow | undefined);
  if (!mr) throw new Error(`Pull request ${number} was not imported`);
  return mr;
}

/** Review comments become diff notes on the merge request's diff; replies join their thread. */
function importDiffNotes(run: ImportRun, client: ProviderAClient, repo: string): Promise<void> {
  return run.eachPage<AReviewComment>({
    stage: 'diff_notes',
    objectType: 'diff_note',
    first: client.lists.reviewComments(repo),
    fetchPage: (url) => client.page(url),
    prepare: (comments) => run.users.prepare(comments.map((c) => sourceUser(c.user))),
    identify: (c) => c.id,
    each: (c) => {
      if (importedRecord(run.svc, run.projectId, 'diff_note', c.id) !== undefined) return 'skipped';
      const mr = findMergeRequest(run, numberAtEnd(c.pull_request_url));
      const parentId = c.in_reply_to_id ? importedRecord(run.svc, run.projectId, 'diff_note', c.in_reply_to_id) : undefined;
      const parent = parentId === undefined ? undefined : (run.svc.db.prepare('SELECT * FROM notes WHERE id = ?').get(parentId) as NoteRow | undefined);
      const line = c.line ?? c.original_line ?? null;
      const note = insertImportedNote(run.svc, run.projectId, {
        noteableType: 'MergeRequest',
        noteableId: mr.id,
        authorId: run.users.author(sourceUser(c.user)).id,
        body: run.users.body(sourceUser(c.user), c.body),
        type: 'DiffNote',
        discussionId: parent?.discussion_id,
        position: {
          base_sha: mr.base_sha,
          start_sha: mr.start_sha,
          head_sha: c.commit_id,
          old_path: c.path,
          new_path: c.path,
          position_type: 'text',
          old_line: c.side === 'LEFT' ? line : null,
          new_line: c.side === 'LEFT' ? null : line,
          line_range: null,
        },
        createdAt: c.created_at,
        updatedAt: c.updated_at,
        importedFrom: 'github',
      });
      rememberRecord(run.svc, run.projectId, 'diff_note', c.id, note.id);
      return 'imported';
    },
  });
}

/** Comments on issues and pull requests: the repository-wide list, or (single_endpoint_notes_import) each item's own. */
async function importNotes(run: ImportRun, client: ProviderAClient, repo: string): Promise<void> {
  const each = (c: AComment, number: number | null): 'imported' | 'skipped' => {
    if (importedRecord(run.svc, run.projectId, 'note', c.id) !== undefined) return 'skipped';
    const issueId = number === null ? undefined : importedRecord(run.svc, run.projectId, 'issue', number);
    const noteable = issueId !== undefined ? { type: 'Issue' as const, id: issueId } : { type: 'MergeRequest' as const, id: findMergeRequest(run, number).id };
    const note = insertImportedNote(run.svc, run.projectId, {
      noteableType: noteable.type,
      noteableId: noteable.id,
      authorId: run.users.author(sourceUser(c.user)).id,
      body: run.users.body(sourceUser(c.user), c.body),
      createdAt: c.created_at,
      updatedAt: c.updated_at,
      importedFrom: 'github',
    });
    rememberRecord(run.svc, run.projectId, 'note', c.id, note.id);
    return 'imported';
  };
  const prepare = (comments: AComment[]) => run.users.prepare(comments.map((c) => sourceUser(c.user)));
  if (!run.optionalStage('single_endpoint_notes_import')) {
    await run.eachPage<AComment>({
      stage: 'notes',
      objectType: 'note',
      first: client.lists.issueComments(repo),
      fetchPage: (url) => client.page(url),
      prepare,
      identify: (c) => c.id,
      each: (c) => each(c, numberAtEnd(c.issue_url)),
    });
    return;
  }
  const numbers = (
    run.svc.db
      .prepare("SELECT CAST(source_id AS INTEGER) AS n FROM project_import_records WHERE project_id = ? AND kind IN ('issue', 'pull_request') ORDER BY n")
      .all(run.projectId) as { n: number }[]
  ).map((r) => r.n);
  for (const number of numbers) {
    await run.eachPage<AComment>({
      stage: `notes:${number}`,
      objectType: 'note',
      first: client.lists.commentsOf(repo, number),
      fetchPage: (url) => client.page(url),
      prepare,
      identify: (c) => c.id,
      each: (c) => each(c, number),
    });
  }
}

