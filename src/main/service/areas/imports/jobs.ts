import type { ServiceContext } from '../../context';
import { isoTime } from '../core/time';
import type { JobRow, JobState } from '../../jobs/runner';
import { payloadOf } from '../../jobs/runner';
import { COMPLETED_STATUSES, type ImportStatus, findProjectImport, insertFailure } from './imports';
import { type Project, findProjectById } from '../core/projects';
import { importFromProviderA } from './importer/providera';
import { importFromProviderBServer } from './importer/providerb_server';
import { importFromProviderBCloud } from './importer/providerb_cloud';
import { importGists } from './importer/gists';

/**
 * The import jobs on the service's durable runner: a project import (one per project, subject
 * `project:<id>`) and a user's gists import (`gists:<user id>`). The runner's state changes drive
 * the project's import_status (and the gists import's status) in the same transaction.
 */

export const PROJECT_IMPORT_JOB = 'project_import';
export const GISTS_IMPORT_JOB = 'github_gists_import';

const TOKEN_GONE = 'Sandlab restarted during the import and no longer holds the provider credentials, which are kept in memory only: start the import again.';

/** The job's state as the project's import_status: a resumed job is scheduled again; a timeout fails. */
const IMPORT_STATUS: Record<JobState, ImportStatus> = {
  created: 'scheduled',
  started: 'started',
  finished: 'finished',
  failed: 'failed',
  timeout: 'failed',
  canceled: 'canceled',
};

export function defineImportJobs(svc: ServiceContext): void {
  svc.jobs.define<{ projectId: number }>({
    kind: PROJECT_IMPORT_JOB,
    secretMissingMessage: TOKEN_GONE,
    async run(job) {
      const row = findProjectImport(svc, job.payload.projectId);
      if (!row) throw new Error('The project of this import no longer exists.');
      if (row.provider === 'github') await importFromProviderA(svc, job);
      else if (row.provider === 'bitbucket_server') await importFromProviderBServer(svc, job);
      else await importFromProviderBCloud(svc, job);
    },
    transition(job, state, error) {
      setProjectImportStatus(svc, job, IMPORT_STATUS[state], error);
    },
  });

  svc.jobs.define<{ userId: number }>({
    kind: GISTS_IMPORT_JOB,
    secretMissingMessage: TOKEN_GONE,
    run: (job) => importGists(svc, job),
    transition(job, state, error) {
      const { userId } = payloadOf<{ userId: number }>(job);
      const status = state === 'finished' ? 'finished' : state === 'created' || state === 'started' ? 'started' : 'failed';
      const finished = status === 'started' ? null : isoTime(svc.now());
      svc.db.prepare('UPDATE gist_imports SET status = ?, error = ?, finished_at = ? WHERE user_id = ?').run(status, state === 'canceled' ? 'canceled' : error, finished, userId);
    },
  });
}

/** One state change of a project import, with the error that ended it recorded as its last failure. */
function setProjectImportStatus(svc: ServiceContext, job: JobRow, status: ImportStatus, error: string | null): void {
  const { projectId } = payloadOf<{ projectId: number }>(job);
  const row = findProjectImport(svc, projectId);
  if (!row) return;
  const now = isoTime(svc.now());
  svc.db.prepare('UPDATE projects SET import_status = ?, import_error = ?, updated_at = ? WHERE id = ?').run(status, status === 'failed' ? error : null, now, projectId);
  if (status === 'started') svc.db.prepare('UPDATE project_imports SET started_at = coalesce(started_at, ?) WHERE project_id = ?').run(now, projectId);
  const ended = status === 'finished' || status === 'failed' || status === 'canceled';
  svc.db.prepare('UPDATE project_imports SET finished_at = ?, updated_at = ? WHERE project_id = ?').run(ended ? now : null, now, projectId);
  if (status === 'failed' && error) insertFailure(svc, row, { source: 'import', exceptionClass: 'Gitlab::Import::Error', message: error, recordFailure: false });
}

/**
 * POST /import/github/cancel: a scheduled or running import ends `canceled` now (its job stops at
 * its next step; what it imported stays). Returns the status that made it impossible, or null.
 */
export function cancelImport(svc: ServiceContext, project: Project): ImportStatus | null {
  const status = project.import_status as ImportStatus;
  if (COMPLETED_STATUSES.includes(status)) return status;
  svc.jobs.cancelSubject(`project:${project.id}`);
  // No job was left to cancel (it ended without saying so): the import is canceled all the same.
  if (findProjectById(svc, project.id)?.import_status !== 'canceled') {
    svc.db.prepare("UPDATE projects SET import_status = 'canceled', import_error = NULL WHERE id = ?").run(project.id);
  }
  return null;
}
