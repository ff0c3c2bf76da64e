import type { RequestContext, Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { apiError, forbidden, notFound, validationError } from '../../../http/errors';
import { paginateSql } from '../../../http/pagination';
import { addressableUrlErrors } from '../../../http/validators';
import { inTransaction } from '../../../db/connection';
import { addFilter } from '../../../db/filter';
import type { EntityContext } from '../../core/entities';
import { userBasicById } from '../../core/entities';
import { Access, effectiveProjectAccess } from '../../core/access';
import { isoTime } from '../../core/time';
import { loadRepository } from '../access';
import type { PipelineRow } from '../entities';
import { commitOr404, refsContaining } from '../lookup';

export interface CommitStatusRow {
  id: number;
  project_id: number;
  pipeline_id: number;
  sha: string;
  ref: string;
  name: string;
  stage: string;
  status: string;
  target_url: string | null;
  description: string | null;
  coverage: number | null;
  allow_failure: number;
  retried: number;
  user_id: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

const STATES = ['pending', 'running', 'success', 'failed', 'canceled', 'skipped'] as const;
type State = (typeof STATES)[number];

/**
 * CommitStatus's state machine for the state an external system reports: the event it fires and
 * the states it may fire from (`created` is a status just built).
 */
const TRANSITIONS: Record<State, { event: string; from: string[] }> = {
  pending: { event: 'enqueue', from: ['created'] },
  running: { event: 'run', from: ['pending'] },
  success: { event: 'success', from: ['created', 'pending', 'running'] },
  failed: { event: 'drop', from: ['created', 'pending', 'running'] },
  canceled: { event: 'cancel', from: ['created', 'pending', 'running'] },
  skipped: { event: 'skip', from: ['created', 'pending'] },
};

const FINISHED = ['success', 'failed', 'canceled'];
const MAX_LENGTH = 255;

/** Entities::CommitStatus */
export function commitStatusEntity(ec: EntityContext, s: CommitStatusRow): Record<string, unknown> {
  return {
    id: s.id,
    sha: s.sha,
    ref: s.ref,
    status: s.status,
    name: s.name,
    target_url: s.target_url,
    description: s.description,
    created_at: s.created_at,
    started_at: s.started_at,
    finished_at: s.finished_at,
    allow_failure: !!s.allow_failure,
    coverage: s.coverage,
    pipeline_id: s.pipeline_id,
    author: userBasicById(ec, s.user_id),
  };
}

/** A pipeline's status from its latest statuses (Ci::Pipeline's composite status, for external jobs). */
function compositeStatus(statuses: string[]): string {
  for (const s of ['running', 'pending', 'failed', 'canceled']) if (statuses.includes(s)) return s;
  if (statuses.length && statuses.every((s) => s === 'skipped')) return 'skipped';
  if (statuses.includes('success')) return 'success';
  return 'created';
}

/** Commit statuses: GET /projects/:id/repository/commits/:sha/statuses, POST /projects/:id/statuses/:sha. */
export function registerCommitStatusRoutes(r: Router): void {
  // Both need a signed-in caller (`before { authenticate! }`), even on a public project.
  r.get('/projects/:id/repository/commits/:sha/statuses', async (rc) => {
    const q = declared(rc.params, {
      ref: t.string(),
      stage: t.string(),
      name: t.string(),
      pipeline_id: t.integer(),
      all: t.boolean().default(false),
      order_by: t.string().values(['id', 'pipeline_id']).default('id'),
      sort: t.string().values(['asc', 'desc']).default('asc'),
    });
    // :read_commit_status follows reading the code (Reporters and up on a private project).
    const { project, repo } = await loadRepository(rc);
    await commitOr404(repo, rc.path.sha);
    const where = ['s.project_id = ?', 'p.sha = ?'];
    const args: unknown[] = [project.id, rc.path.sha];
    if (q.pipeline_id) addFilter(where, args, 's.pipeline_id = ?', q.pipeline_id);
    if (!q.all) addFilter(where, args, 's.retried = 0');
    if (q.ref) addFilter(where, args, 's.ref = ?', q.ref);
    if (q.stage) addFilter(where, args, 's.stage = ?', q.stage);
    if (q.name) addFilter(where, args, 's.name = ?', q.name);
    const rows = paginateSql<CommitStatusRow>(rc, rc.svc.db, {
      select: 's.*',
      from: `FROM commit_statuses s JOIN ci_pipelines p ON p.id = s.pipeline_id WHERE ${where.join(' AND ')}`,
      args,
      order: `s.${q.order_by} ${q.sort}, s.id ${q.sort}`,
    });
    return rows.map((s) => commitStatusEntity(rc, s));
  });

  r.post('/projects/:id/statuses/:sha', async (rc) => {
    const user = rc.requireUser();
    const p = declared(rc.params, {
      state: t.string().required().values([...STATES]),
      ref: t.string(),
      target_url: t.string(),
      description: t.string(),
      name: t.string(),
      context: t.string(),
      coverage: t.float(),
      pipeline_id: t.integer(),
    });
    // :create_commit_status: Developers and up.
    const { project, repo } = await loadRepository(rc);
    if (effectiveProjectAccess(rc.svc, user, project) < Access.DEVELOPER) throw forbidden();
    const commit = await commitOr404(repo, rc.path.sha);
    const pipeline = matchingPipeline(rc, project.id, commit.id, p.ref ?? null, p.pipeline_id ?? null);
    if (p.pipeline_id && !pipeline) throw notFound('Pipeline for pipeline_id, sha and ref');
    const ref = p.ref || pipeline?.ref || (await refsContaining(repo, commit.id, 'heads'))[0];
    if (!ref) throw notFound('References for commit');
    const name = p.name || p.context || 'default';
    const errors: Record<string, string[]> = {};
    if (p.target_url) {
      const e = addressableUrlErrors(p.target_url);
      if (p.target_url.length > MAX_LENGTH) e.push(`is too long (maximum is ${MAX_LENGTH} characters)`);
      if (e.length) errors.target_url = e;
    }
    if (p.description && p.description.length > MAX_LENGTH) errors.description = [`is too long (maximum is ${MAX_LENGTH} characters)`];
    if (ref.length > MAX_LENGTH) errors.ref = [`is too long (maximum is ${MAX_LENGTH} characters)`];
    if (Object.keys(errors).length) throw validationError(errors);

    const saved = inTransaction(rc.svc.db, () => {
      const now = isoTime(rc.svc.now());
      const db = rc.svc.db;
      let pipelineId = pipeline?.id;
      if (!pipelineId) {
        const iid = (db.prepare('SELECT coalesce(max(iid), 0) + 1 AS n FROM ci_pipelines WHERE project_id = ?').get(project.id) as { n: number }).n;
        pipelineId = Number(
          db
            .prepare("INSERT INTO ci_pipelines (project_id, iid, sha, ref, source, status, user_id, created_at, updated_at) VALUES (?, ?, ?, ?, 'external', 'created', ?, ?, ?)")
            .run(project.id, iid, commit.id, ref, user.id, now, now).lastInsertRowid,
        );
      }
      // A running or pending status of this name, ref and user is updated; otherwise a new one starts.
      const current = db
        .prepare(
          "SELECT * FROM commit_statuses WHERE pipeline_id = ? AND ref = ? AND name = ? AND user_id = ? AND status IN ('running', 'pending') AND retried = 0 ORDER BY id DESC LIMIT 1",
        )
        .get(pipelineId, ref, name, user.id) as CommitStatusRow | undefined;
      let state = current?.status ?? 'created';
      const target = p.state as State;
      // `running` is `enqueue` (when it can) then `run!`.
      if (target === 'running' && state === 'created') state = 'pending';
      const move = TRANSITIONS[target];
      if (!move.from.includes(state)) {
        throw apiError(400, `Cannot transition status via :${move.event} from :${state} (Reason(s): Status cannot transition via "${move.event}")`);
      }
      const startedAt = target === 'running' ? now : (current?.started_at ?? null);
      const finishedAt = FINISHED.includes(target) ? now : null;
      const fields = {
        target_url: p.target_url ?? current?.target_url ?? null,
        description: p.description ?? current?.description ?? null,
        coverage: p.coverage ?? current?.coverage ?? null,
      };
      let id: number;
      if (current) {
        id = current.id;
        db.prepare('UPDATE commit_statuses SET status = ?, target_url = ?, description = ?, coverage = ?, started_at = ?, finished_at = ?, updated_at = ? WHERE id = ?').run(
          target,
          fields.target_url,
          fields.description,
          fields.coverage,
          startedAt,
          finishedAt,
          now,
          id,
        );
      } else {
        id = Number(
          db
            .prepare(
              `INSERT INTO commit_statuses (project_id, pipeline_id, sha, ref, name, status, target_url, description, coverage, user_id, created_at, started_at, finished_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            )
            .run(project.id, pipelineId, commit.id, ref, name, target, fields.target_url, fields.description, fields.coverage, user.id, now, startedAt, finishedAt, now).lastInsertRowid,
        );
      }
      // update_older_statuses_retried!: the newest status of a name is the one that counts.
      db.prepare('UPDATE commit_statuses SET retried = 1 WHERE pipeline_id = ? AND name = ? AND id < ? AND retried = 0').run(pipelineId, name, id);
      const latest = (db.prepare('SELECT status FROM commit_statuses WHERE pipeline_id = ? AND retried = 0').all(pipelineId) as { status: string }[]).map((s) => s.status);
      db.prepare('UPDATE ci_pipelines SET status = ?, updated_at = ? WHERE id = ?').run(compositeStatus(latest), now, pipelineId);
      return db.prepare('SELECT * FROM commit_statuses WHERE id = ?').get(id) as CommitStatusRow;
    });
    rc.status = 201;
    return commitStatusEntity(rc, saved);
  });
}

/** The newest pipeline of the commit (for `ref` and `pipeline_id` when given). */
function matchingPipeline(rc: RequestContext, projectId: number, sha: string, ref: string | null, pipelineId: number | null): PipelineRow | undefined {
  const where = ['project_id = ?', 'sha = ?'];
  const args: unknown[] = [projectId, sha];
  if (ref) addFilter(where, args, 'ref = ?', ref);
  if (pipelineId) addFilter(where, args, 'id = ?', pipelineId);
  return rc.svc.db.prepare(`SELECT * FROM ci_pipelines WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT 1`).get(...args) as PipelineRow | undefined;
}
