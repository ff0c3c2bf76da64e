import type { ServiceContext } from '../../../context';
import type { JobContext } from '../../../jobs/runner';
import type { MergeRequestRow } from '../../core/entities';
import { insertImportedMergeRequest, insertImportedNote } from '../../core/imported';
import { importLocator, importedRecord, rememberRecord } from '../imports';
import { type BSActivity, type BSComment, type BSPull, type BSUser, ProviderBServerClient } from '../providers/providerb_server';
import { ImportRun } from './run';
import { importRepository } from './repository';
import { type Stage, providerOptions, runStages } from './stages';
import type { SourceUser } from './users';

/**
 * Provider B server (Bitbucket Server) into a project, as GitLab's Bitbucket Server importer
 * does: pull requests as merge requests, then each one's activities: comments (inline ones as
 * diff notes, replies in their thread) and who merged it. Authors map by their e-mail.
 */

export interface ProviderBServerLocator {
  server_url: string;
  username: string;
  project_key: string;
  repo_slug: string;
}

/** Pages of this many items (Bitbucket Server allows up to 1000). */
const PAGE_LIMIT = 100;

const sourceUser = (u: BSUser | null | undefined): SourceUser | null =>
  u ? { key: u.slug ?? u.name, name: u.displayName ?? u.name, email: u.emailAddress ?? null } : null;

const iso = (ms: number | undefined): string | null => (ms === undefined || ms === null ? null : new Date(ms).toISOString());

export async function importFromProviderBServer(svc: ServiceContext, job: JobContext<{ projectId: number }>): Promise<void> {
  const run = ImportRun.load(svc, job);
  const where = importLocator<ProviderBServerLocator>(run.row);
  const client = new ProviderBServerClient(where.server_url, where.username, job.secret(), PAGE_LIMIT, providerOptions(svc, job));
  const stages: Stage[] = [
    { name: 'repository', run: () => importRepository(run, { username: where.username, password: job.secret() }) },
    { name: 'pull_requests', run: () => importPullRequests(run, client, where) },
    { name: 'notes', run: () => importActivities(run, client, where) },
  ];
  await runStages(run, stages);
}

function importPullRequests(run: ImportRun, client: ProviderBServerClient, where: ProviderBServerLocator): Promise<void> {
  return run.eachPage<BSPull>({
    stage: 'pull_requests',
    objectType: 'pull_request',
    first: client.lists.pullRequests(where.project_key, where.repo_slug),
    fetchPage: (url) => client.page(url),
    prepare: (pulls) => run.users.prepare(pulls.map((p) => sourceUser(p.author.user))),
    identify: (p) => p.id,
    each: (pr) => {
      if (importedRecord(run.svc, run.projectId, 'pull_request', pr.id) !== undefined) return 'skipped';
      const state = pr.state === 'MERGED' ? 'merged' : pr.state === 'DECLINED' ? 'closed' : 'opened';
      const author = sourceUser(pr.author.user);
      const mr = insertImportedMergeRequest(run.svc, run.projectId, {
        iid: pr.id,
        title: pr.title,
        description: run.users.body(author, pr.description),
        state,
        authorId: run.users.author(author).id,
        sourceBranch: pr.fromRef.displayId,
        targetBranch: pr.toRef.displayId,
        baseSha: pr.toRef.latestCommit,
        headSha: pr.fromRef.latestCommit,
        mergedAt: state === 'merged' ? iso(pr.closedDate ?? pr.updatedDate) : null,
        closedAt: state === 'opened' ? null : iso(pr.closedDate ?? pr.updatedDate),
        createdAt: iso(pr.createdDate)!,
        updatedAt: iso(pr.updatedDate)!,
        importedFrom: 'bitbucket_server',
      });
      rememberRecord(run.svc, run.projectId, 'pull_request', pr.id, mr.id);
      return 'imported';
    },
  });
}

/** Every merge request's activities: its comments and replies, and its MERGED event. */
async function importActivities(run: ImportRun, client: ProviderBServerClient, where: ProviderBServerLocator): Promise<void> {
  const mergeRequests = run.svc.db
    .prepare(
      `SELECT m.* FROM merge_requests m JOIN project_import_records r ON r.project_id = m.project_id AND r.kind = 'pull_request' AND r.target_id = m.id
       WHERE m.project_id = ? ORDER BY m.iid`,
    )
    .all(run.projectId) as MergeRequestRow[];
  for (const mr of mergeRequests) {
    await run.eachPage<BSActivity>({
      stage: `notes:${mr.iid}`,
      objectType: 'note',
      first: client.lists.activities(where.project_key, where.repo_slug, mr.iid),
      // Comments and the merge; each comment activity carries its whole thread of replies.
      fetchPage: async (url) => {
        const page = await client.page<BSActivity>(url);
        return { ...page, items: page.items.filter((a) => (a.action === 'COMMENTED' && a.comment) || a.action === 'MERGED').reverse() };
      },
      prepare: (acts) => run.users.prepare(acts.flatMap((a) => [sourceUser(a.user), ...(a.comment ? flatten(a.comment).map((c) => sourceUser(c.author)) : [])])),
      identify: (a) => a.id,
      each: (a) => (a.action === 'MERGED' ? recordMerger(run, mr, a) : importThread(run, mr, a)),
    });
  }
}

function flatten(c: BSComment): BSComment[] {
  return [c, ...(c.comments ?? []).flatMap(flatten)];
}

function recordMerger(run: ImportRun, mr: MergeRequestRow, a: BSActivity): 'imported' | 'skipped' {
  if (mr.merged_by_id !== null && importedRecord(run.svc, run.projectId, 'merged_by', mr.iid) !== undefined) return 'skipped';
  const merger = run.users.author(sourceUser(a.user));
  run.svc.db.prepare('UPDATE merge_requests SET merged_by_id = ?, merged_at = coalesce(merged_at, ?) WHERE id = ?').run(merger.id, iso(a.createdDate), mr.id);
  rememberRecord(run.svc, run.projectId, 'merged_by', mr.iid, mr.id);
  return 'imported';
}

/** A top-level comment and its replies: one discussion; on a line of the diff, diff notes. */
function importThread(run: ImportRun, mr: MergeRequestRow, a: BSActivity): 'imported' | 'skipped' {
  const root = a.comment!;
  if (importedRecord(run.svc, run.projectId, 'note', root.id) !== undefined) return 'skipped';
  const anchor = a.commentAnchor;
  const comments = flatten(root).sort((x, y) => x.createdDate - y.createdDate);
  let discussionId: string | null = null;
  for (const c of comments) {
    const author = sourceUser(c.author);
    const note = insertImportedNote(run.svc, run.projectId, {
      noteableType: 'MergeRequest',
      noteableId: mr.id,
      authorId: run.users.author(author).id,
      body: run.users.body(author, c.text),
      discussionId,
      type: anchor ? 'DiffNote' : comments.length > 1 ? 'DiscussionNote' : null,
      position: anchor
        ? {
            base_sha: anchor.fromHash ?? mr.base_sha,
            start_sha: anchor.fromHash ?? mr.start_sha,
            head_sha: anchor.toHash ?? mr.head_sha,
            old_path: anchor.path,
            new_path: anchor.path,
            position_type: 'text',
            old_line: anchor.lineType === 'REMOVED' || anchor.fileType === 'FROM' ? anchor.line : null,
            new_line: anchor.lineType === 'REMOVED' || anchor.fileType === 'FROM' ? null : anchor.line,
            line_range: null,
          }
        : null,
      createdAt: iso(c.createdDate)!,
      updatedAt: iso(c.updatedDate ?? c.createdDate)!,
      importedFrom: 'bitbucket_server',
    });
    discussionId = note.discussion_id;
    rememberRecord(run.svc, run.projectId, 'note', c.id, note.id);
  }
  return 'imported';
}
