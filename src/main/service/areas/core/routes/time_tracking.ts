import type { RequestContext, Router } from '../../../http/route';
import type { ServiceContext } from '../../../context';
import { declared, t } from '../../../http/params';
import { forbidden, validationError } from '../../../http/errors';
import { inTransaction } from '../../../db/connection';
import { Access, effectiveProjectAccess, loadProject } from '../access';
import { isoTime } from '../time';
import { writeSystemNote } from '../system_notes';
import { type TimeTracked, formatDuration, parseDuration, timeStats } from '../time_tracking';
import { findMergeRequest } from '../workitems';
import { loadIssue } from './issues';

type TimeTrackedType = 'Issue' | 'MergeRequest';

interface TimeTrackedRecord extends TimeTracked {
  id: number;
  iid: number;
  title: string;
  project_id: number;
}

const tableOf = (type: TimeTrackedType) => (type === 'Issue' ? 'issues' : 'merge_requests');

/** A record's time estimate, as Issues/MergeRequests::UpdateService sets it: a change saves the record and notes it; the same estimate writes nothing. */
function setTimeEstimate(svc: ServiceContext, type: TimeTrackedType, record: TimeTrackedRecord, estimate: number | null, userId: number): void {
  // TimeTrackable#check_time_estimate.
  if (estimate === null || estimate < 0) throw validationError({ time_estimate: ['must have a valid format and be greater than or equal to zero.'] });
  if (estimate === (record.time_estimate ?? 0)) return;
  inTransaction(svc.db, () => {
    svc.db.prepare(`UPDATE ${tableOf(type)} SET time_estimate = ?, updated_at = ?, updated_by_id = ? WHERE id = ?`).run(estimate, isoTime(svc.now()), userId, record.id);
    // SystemNotes::TimeTrackingService#change_time_estimate (time_estimate_system_note: the previous estimate named).
    const previous = record.time_estimate ?? 0;
    const body = !previous
      ? `added time estimate of ${formatDuration(estimate)}`
      : estimate
        ? `changed time estimate to ${formatDuration(estimate)} from ${formatDuration(previous)}`
        : `removed time estimate of ${formatDuration(previous)}`;
    writeSystemNote(svc, type, record, body, userId);
  });
}

/**
 * TimeTrackable#spend_time: a timelog of `seconds` (negative subtracts; 'reset' takes away the whole
 * total, even none), the total kept on the record, the record touched (Timelog's belongs_to touch:
 * true) and SystemNotes::TimeTrackingService#change_time_spent's note. Zero writes nothing.
 */
function spendTime(svc: ServiceContext, type: TimeTrackedType, record: TimeTrackedRecord, seconds: number | null | 'reset', userId: number, summary?: string): void {
  if (seconds === 0) return;
  const total = record.total_time_spent ?? 0;
  // No duration leaves the new timelog without time_spent (or a summary past 255): has_many's validation says only this.
  if (seconds === null || (summary !== undefined && Array.from(summary).length > 255)) throw validationError({ timelogs: ['is invalid'] });
  if (seconds !== 'reset' && seconds < 0 && -seconds > total) throw validationError({ base: ['Time to subtract exceeds the total time spent'] });
  const spent = seconds === 'reset' ? -total : seconds;
  inTransaction(svc.db, () => {
    const now = isoTime(svc.now());
    svc.db
      .prepare(`INSERT INTO timelogs (${type === 'Issue' ? 'issue_id' : 'merge_request_id'}, user_id, time_spent, spent_at, summary, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
      .run(record.id, userId, spent, now, summary ?? null, now, now);
    svc.db.prepare(`UPDATE ${tableOf(type)} SET total_time_spent = ?, updated_at = ? WHERE id = ?`).run(total + spent, now, record.id);
    const body = seconds === 'reset' ? 'removed time spent' : `${seconds > 0 ? 'added' : 'subtracted'} ${formatDuration(seconds)} of time spent`;
    writeSystemNote(svc, type, record, body, userId);
  });
}

/**
 * API::TimeTrackingEndpoints for issues and merge requests: the record as find_project_issue /
 * find_project_merge_request find it (404), then authorize! admin_issue (Planner) or
 * admin_merge_request (Developer) for a write (403), read_ for time_stats. Every answer is
 * Entities::IssuableTimeStats read back from the record.
 */
export function registerTimeTrackingRoutes(r: Router): void {
  for (const type of ['Issue', 'MergeRequest'] as const) {
    const key = type === 'Issue' ? 'issue_iid' : 'merge_request_iid';
    const base = `/projects/:id/${tableOf(type)}/:${key}`;
    // Grape validates the iid, then the other params, before the endpoint finds anything.
    const iid = (rc: RequestContext) => declared({ [key]: rc.path[key] }, { [key]: t.integer() });
    const load = (rc: RequestContext, write: boolean): TimeTrackedRecord => {
      const project = loadProject(rc);
      const record = type === 'Issue' ? loadIssue(rc, project) : findMergeRequest(rc, project, rc.path[key], 'notFound');
      if (write && effectiveProjectAccess(rc.svc, rc.user, project) < (type === 'Issue' ? Access.PLANNER : Access.DEVELOPER)) throw forbidden();
      return record;
    };
    const answer = (rc: RequestContext, record: TimeTrackedRecord) =>
      timeStats(rc.svc.db.prepare(`SELECT time_estimate, total_time_spent FROM ${tableOf(type)} WHERE id = ?`).get(record.id) as TimeTracked);

    r.post(`${base}/time_estimate`, (rc) => {
      const user = rc.requireUser();
      iid(rc);
      const p = declared(rc.params, { duration: t.string().required() });
      const record = load(rc, true);
      setTimeEstimate(rc.svc, type, record, parseDuration(p.duration, true), user.id);
      rc.status = 200;
      return answer(rc, record);
    });

    r.post(`${base}/reset_time_estimate`, (rc) => {
      const user = rc.requireUser();
      iid(rc);
      const record = load(rc, true);
      setTimeEstimate(rc.svc, type, record, 0, user.id);
      rc.status = 200;
      return answer(rc, record);
    });

    r.post(`${base}/add_spent_time`, (rc) => {
      const user = rc.requireUser();
      iid(rc);
      const p = declared(rc.params, { duration: t.string().required(), summary: t.string() });
      const record = load(rc, true);
      spendTime(rc.svc, type, record, parseDuration(p.duration), user.id, p.summary ?? undefined);
      return answer(rc, record);
    });

    r.post(`${base}/reset_spent_time`, (rc) => {
      const user = rc.requireUser();
      iid(rc);
      const record = load(rc, true);
      spendTime(rc.svc, type, record, 'reset', user.id);
      rc.status = 200;
      return answer(rc, record);
    });

    r.get(
      `${base}/time_stats`,
      (rc) => {
        iid(rc);
        return answer(rc, load(rc, false));
      },
      { auth: 'optional' },
    );
  }
}
