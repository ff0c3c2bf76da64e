import type { ServiceContext } from '../../../context';
import type { JobContext } from '../../../jobs/runner';
import { ApiError } from '../../../http/errors';
import type { MergeRequestRow, NoteRow } from '../../core/entities';
import { insertImportedIssue, insertImportedMergeRequest, insertImportedNote } from '../../core/imported';
import { createLabel } from '../../labels/labels';
import { importLocator, importedRecord, rememberRecord } from '../imports';
import { type BCComment, type BCIssue, type BCPull, type BCUser, ProviderBCloudClient } from '../providers/providerb_cloud';
import { ImportRun } from './run';
import { importRepository } from './repository';
import { type Stage, providerOptions, runStages } from './stages';
import type { SourceUser } from './users';

/**
 * Provider B cloud (Bitbucket Cloud) into a project, as GitLab's Bitbucket importer does: issues
 * (labelled by their kind) with their comments, then pull requests as merge requests with their
 * comments (inline ones as diff notes, replies in their thread). Bitbucket Cloud shows no
 * e-mails, so every contribution goes to the placeholder user with its author named.
 */

export interface ProviderBCloudLocator {
  username: string;
  repo_path: string;
  has_issues: boolean;
}

const PAGE_LEN = 100;

/** The labels GitLab gives Bitbucket issue kinds. */
const KIND_LABELS: Record<string, string> = { bug: '#FF0000', enhancement: '#428BCA', proposal: '#69D100', task: '#7F8C8D' };
const CLOSED_STATES = ['closed', 'duplicate', 'invalid', 'resolved', 'wontfix'];

const sourceUser = (u: BCUser | null | undefined): SourceUser | null =>
  u ? { key: u.uuid ?? u.account_id ?? u.nickname ?? u.username ?? 'unknown', name: u.nickname ?? u.username ?? u.display_name ?? 'unknown' } : null;

export async function importFromProviderBCloud(svc: ServiceContext, job: JobContext<{ projectId: number }>): Promise<void> {
  const run = ImportRun.load(svc, job);
  const where = importLocator<ProviderBCloudLocator>(run.row);
  const client = new ProviderBCloudClient(run.row.api_url, where.username, job.secret(), PAGE_LEN, providerOptions(svc, job));
  const stages: Stage[] = [
    { name: 'repository', run: () => importRepository(run, { username: where.username, password: job.secret() }) },
    ...(where.has_issues
      ? [
          { name: 'issues', run: () => importIssues(run, client, where.repo_path) },
          { name: 'issue_notes', run: () => importIssueNotes(run, client, where.repo_path) },
        ]
      : []),
    { name: 'pull_requests', run: () => importPullRequests(run, client, where.repo_path) },
    { name: 'pull_request_notes', run: () => importPullRequestNotes(run, client, where.repo_path) },
  ];
  await runStages(run, stages);
}

function importIssues(run: ImportRun, client: ProviderBCloudClient, repo: string): Promise<void> {
  return run.eachPage<BCIssue>({
    stage: 'issues',
    objectType: 'issue',
    first: client.lists.issues(repo),
    fetchPage: (url) => client.page(url),
    prepare: (issues) => run.users.prepare(issues.flatMap((i) => [sourceUser(i.reporter), sourceUser(i.assignee)])),
    identify: (i) => i.id,
    each: (i) => {
      if (importedRecord(run.svc, run.projectId, 'issue', i.id) !== undefined) return 'skipped';
      const kindLabel = ensureKindLabel(run, i.kind);
      const closed = CLOSED_STATES.includes(i.state);
      const issue = insertImportedIssue(run.svc, run.projectId, {
        iid: i.id,
        title: i.title,
        description: run.users.body(sourceUser(i.reporter), i.content?.raw),
        state: closed ? 'closed' : 'opened',
        authorId: run.users.author(sourceUser(i.reporter)).id,
        assigneeIds: run.users.matchedIds([sourceUser(i.assignee)]),
        labels: kindLabel ? [kindLabel] : [],
        closedAt: closed ? i.updated_on : null,
        createdAt: i.created_on,
        updatedAt: i.updated_on,
        importedFrom: 'bitbucket',
      });
      rememberRecord(run.svc, run.projectId, 'issue', i.id, issue.id);
      return 'imported';
    },
  });
}

/** The label of an issue kind, created the first time an issue needs it. */
function ensureKindLabel(run: ImportRun, kind: string): string | null {
  const color = KIND_LABELS[kind];
  if (!color) return null;
  if (importedRecord(run.svc, run.projectId, 'label', kind) === undefined) {
    try {
      const label = createLabel(run.svc, { kind: 'project', project: run.project }, { title: kind, color });
      rememberRecord(run.svc, run.projectId, 'label', kind, label.id);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409)) throw err;
    }
  }
  return kind;
}

function importedIds(run: ImportRun, kind: 'issue' | 'pull_request'): number[] {
  return (
    run.svc.db.prepare('SELECT CAST(source_id AS INTEGER) AS n FROM project_import_records WHERE project_id = ? AND kind = ? ORDER BY n').all(run.projectId, kind) as {
      n: number;
    }[]
  ).map((r) => r.n);
}

async function importIssueNotes(run: ImportRun, client: ProviderBCloudClient, repo: string): Promise<void> {
  for (const id of importedIds(run, 'issue')) {
    const issueId = importedRecord(run.svc, run.projectId, 'issue', id)!;
    await run.eachPage<BCComment>({
      stage: `issue_notes:${id}`,
      objectType: 'note',
      first: client.lists.issueComments(repo, id),
      fetchPage: (url) => client.page(url),
      prepare: (comments) => run.users.prepare(comments.map((c) => sourceUser(c.user))),
      identify: (c) => c.id,
      each: (c) => {
        if (!c.content?.raw || importedRecord(run.svc, run.projectId, 'note', c.id) !== undefined) return 'skipped';
        const note = insertImportedNote(run.svc, run.projectId, {
          noteableType: 'Issue',
          noteableId: issueId,
          authorId: run.users.author(sourceUser(c.user)).id,
          body: run.users.body(sourceUser(c.user), c.content.raw),
          createdAt: c.created_on,
          updatedAt: c.updated_on,
          importedFrom: 'bitbucket',
        });
        rememberRecord(run.svc, run.projectId, 'note', c.id, note.id);
        return 'imported';
      },
    });
  }
}

function importPullRequests(run: ImportRun, client: ProviderBCloudClient, repo: string): Promise<void> {
  return run.eachPage<BCPull>({
    stage: 'pull_requests',
    objectType: 'pull_request',
    first: client.lists.pullRequests(repo),
    fetchPage: (url) => client.page(url),
    prepare: (pulls) => run.users.prepare(pulls.flatMap((p) => [sourceUser(p.author), sourceUser(p.closed_by)])),
    identify: (p) => p.id,
    each: (pr) => {
      if (importedRecord(run.svc, run.projectId, 'pull_request', pr.id) !== undefined) return 'skipped';
      const state = pr.state === 'MERGED' ? 'merged' : pr.state === 'OPEN' ? 'opened' : 'closed';
      const mr = insertImportedMergeRequest(run.svc, run.projectId, {
        iid: pr.id,
        title: pr.title,
        description: run.users.body(sourceUser(pr.author), pr.description),
        state,
        authorId: run.users.author(sourceUser(pr.author)).id,
        sourceBranch: pr.source.branch.name,
        targetBranch: pr.destination.branch.name,
        baseSha: pr.destination.commit?.hash ?? '',
        headSha: pr.source.commit?.hash ?? '',
        mergedAt: state === 'merged' ? pr.updated_on : null,
        mergedById: state === 'merged' && pr.closed_by ? run.users.author(sourceUser(pr.closed_by)).id : null,
        closedAt: state === 'opened' ? null : pr.updated_on,
        createdAt: pr.created_on,
        updatedAt: pr.updated_on,
        importedFrom: 'bitbucket',
      });
      rememberRecord(run.svc, run.projectId, 'pull_request', pr.id, mr.id);
      return 'imported';
    },
  });
}

async function importPullRequestNotes(run: ImportRun, client: ProviderBCloudClient, repo: string): Promise<void> {
  for (const id of importedIds(run, 'pull_request')) {
    const mr = run.svc.db.prepare('SELECT * FROM merge_requests WHERE id = ?').get(importedRecord(run.svc, run.projectId, 'pull_request', id)) as MergeRequestRow;
    await run.eachPage<BCComment>({
      stage: `pull_request_notes:${id}`,
      objectType: 'note',
      first: client.lists.pullComments(repo, id),
      fetchPage: (url) => client.page(url),
      prepare: (comments) => run.users.prepare(comments.map((c) => sourceUser(c.user))),
      identify: (c) => c.id,
      each: (c) => {
        if (c.deleted || !c.content?.raw || importedRecord(run.svc, run.projectId, 'note', c.id) !== undefined) return 'skipped';
        const parentId = c.parent ? importedRecord(run.svc, run.projectId, 'note', c.parent.id) : undefined;
        const parent = parentId === undefined ? undefined : (run.svc.db.prepare('SELECT * FROM notes WHERE id = ?').get(parentId) as NoteRow | undefined);
        // A comment with a reply is the start of a thread; a reply on a line stays on that line.
        if (parent && !parent.type) run.svc.db.prepare("UPDATE notes SET type = 'DiscussionNote' WHERE id = ?").run(parent.id);
        const position = c.inline ? diffPosition(mr, c.inline) : parent?.type === 'DiffNote' && parent.position ? (JSON.parse(parent.position) as Record<string, unknown>) : null;
        const note = insertImportedNote(run.svc, run.projectId, {
          noteableType: 'MergeRequest',
          noteableId: mr.id,
          authorId: run.users.author(sourceUser(c.user)).id,
          body: run.users.body(sourceUser(c.user), c.content.raw),
          discussionId: parent?.discussion_id,
          type: position ? 'DiffNote' : parent ? 'DiscussionNote' : null,
          position,
          createdAt: c.created_on,
          updatedAt: c.updated_on,
          importedFrom: 'bitbucket',
        });
        rememberRecord(run.svc, run.projectId, 'note', c.id, note.id);
        return 'imported';
      },
    });
  }
}

/** Where an inline comment sits in the merge request's diff: `from` is the old line, `to` the new one. */
function diffPosition(mr: MergeRequestRow, inline: { path: string; from: number | null; to: number | null }): Record<string, unknown> {
  return {
    base_sha: mr.base_sha,
    start_sha: mr.start_sha,
    head_sha: mr.head_sha,
    old_path: inline.path,
    new_path: inline.path,
    position_type: 'text',
    old_line: inline.to === null ? inline.from : null,
    new_line: inline.to,
    line_range: null,
  };
}
