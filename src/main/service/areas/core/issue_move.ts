import type { RequestContext } from '../../http/route';
import { apiError } from '../../http/errors';
import { inTransaction } from '../../db/connection';
import { findLabelByTitle } from '../labels/labels';
import { canAdminGroupEpics } from '../epics/epics';
import { Access, archivedNow, effectiveProjectAccess } from './access';
import type { IssueRow } from './entities';
import { recordEvent } from './events';
import { featureAvailable } from './feature-access';
import { afterIssuableWrite } from './issuable_events';
import { findMilestoneById, milestoneInScope, milestoneInScopeByTitle } from './milestones';
import { createNote, newDiscussionId } from './notes';
import { findNamespaceById } from './namespaces';
import type { Project } from './projects';
import { isoTime } from './time';
import { nextIid } from './workitems';

/**
 * POST .../issues/:iid/move and .../clone (WorkItems::DataSync::MoveService and CloneService): a
 * new issue in the target project with the next iid, the original's fields, its assignees, the
 * target's labels of the same titles, its milestone where the target reaches it (else the target's
 * of its title) and (always for a move, with_notes for a clone) its notes; a "moved/cloned from"
 * note on the new issue and "moved/cloned to" on the old one. A move keeps the author, created_at,
 * state, award emoji and subscriptions, closes the old issue and sets its moved_to_id, and points
 * its links and its epic's link at the new issue; a clone is the caller's, created now and opened,
 * without award emoji or subscriptions, and leaves the old issue as it was.
 */
export type CopyKind = 'move' | 'clone';

const PERMISSION_ERRORS: Record<CopyKind, string> = {
  move: 'Cannot move issue due to insufficient permissions!',
  clone: 'Cannot clone issue due to insufficient permissions!',
};

/** admin_issue on a project: Planner and up with the issues feature on; an archived project prevents it. */
function canAdminIssues(rc: RequestContext, project: Project): boolean {
  return !archivedNow(rc.svc, project) && featureAvailable(rc.svc, rc.user, project, 'Issue') && effectiveProjectAccess(rc.svc, rc.user, project) >= Access.PLANNER;
}

/** IssueAvailableFeatures' move_and_clone: the issue types a move or clone takes. */
const MOVABLE_TYPES = new Set(['issue', 'incident']);

/** supports_move_and_clone?, then Issue#can_move? (can_clone? is the same): admin_issue on both projects, and the issue not moved already. MoveError answers 400. */
export function checkCopy(rc: RequestContext, kind: CopyKind, project: Project, issue: IssueRow, target: Project): void {
  if (!MOVABLE_TYPES.has(issue.issue_type)) throw apiError(400, `Cannot ${kind} issues of '${issue.issue_type}' type.`);
  if (issue.moved_to_id !== null || !canAdminIssues(rc, project) || !canAdminIssues(rc, target)) throw apiError(400, PERMISSION_ERRORS[kind]);
  if (kind === 'move' && project.id === target.id) throw apiError(400, 'Cannot move issue to project it originates from!');
}

/** Issue#to_reference(from): `#1` in the same project, `project#1` in the same namespace, else `group/project#1`. */
function issueReference(rc: RequestContext, from: Project, to: Project, iid: number): string {
  if (from.id === to.id) return `#${iid}`;
  if (from.namespace_id === to.namespace_id) return `${to.path}#${iid}`;
  return `${findNamespaceById(rc.svc, to.namespace_id)!.full_path}/${to.path}#${iid}`;
}

/** Copies the issue into `target` as the kind says; the new issue's row. */
export function copyIssue(rc: RequestContext, kind: CopyKind, project: Project, issue: IssueRow, target: Project, withNotes: boolean): IssueRow {
  const user = rc.requireUser();
  const db = rc.svc.db;
  return inTransaction(db, () => {
    const now = isoTime(rc.svc.now());
    const labels = (JSON.parse(issue.labels) as string[]).filter((title) => findLabelByTitle(rc.svc, { kind: 'project', project: target }, title));
    // The milestone itself where the target reaches it, else the target's of its title (WorkItems::DataSync::Widgets::Milestone).
    const milestone = issue.milestone_id === null ? undefined : findMilestoneById(rc.svc, issue.milestone_id);
    const milestoneId = milestone && (milestoneInScope(rc.svc, target, milestone.id) ?? milestoneInScopeByTitle(rc.svc, target, milestone.title))?.id;
    // A move keeps the issue's life (created, state, closing); a clone is a new issue, opened now (CloneService's overwritten_params).
    const life = kind === 'move' ? issue : { state: 'opened', closed_at: null, closed_by_id: null, created_at: now };
    const info = db
      .prepare(
        `INSERT INTO issues (project_id, iid, title, description, state, author_id, assignee_ids, labels, confidential, discussion_locked, due_date, weight, issue_type,
           milestone_id, closed_at, closed_by_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        target.id,
        nextIid(rc, 'issues', target.id),
        issue.title,
        issue.description,
        life.state,
        kind === 'move' ? issue.author_id : user.id,
        issue.assignee_ids,
        JSON.stringify(labels),
        issue.confidential,
        issue.discussion_locked,
        issue.due_date,
        issue.weight,
        issue.issue_type,
        milestoneId ?? null,
        life.closed_at,
        life.closed_by_id,
        life.created_at,
        now,
      );
    const copyId = Number(info.lastInsertRowid);
    const copy = db.prepare('SELECT * FROM issues WHERE id = ?').get(copyId) as IssueRow;
    recordEvent(rc.svc, { action: 'created', authorId: user.id, projectId: target.id, targetType: 'Issue', targetId: copy.id, targetIid: copy.iid, targetTitle: copy.title });
    // Award emoji and (un)subscriptions go with a move only (WorkItems::DataSync::Widgets::AwardEmoji, ::Notifications).
    if (kind === 'move') {
      copyAwardEmoji(rc, 'Issue', issue.id, copyId);
      db.prepare(
        `INSERT INTO subscriptions (subscribable_type, subscribable_id, user_id, subscribed, created_at, updated_at)
         SELECT subscribable_type, ?, user_id, subscribed, created_at, updated_at FROM subscriptions WHERE subscribable_type = 'Issue' AND subscribable_id = ?`,
      ).run(copyId, issue.id);
    }
    if (kind === 'move' || withNotes) copyNotes(rc, issue, copy);
    const verb = kind === 'move' ? 'moved' : 'cloned';
    const systemNote = (on: IssueRow, onProject: Project, direction: 'to' | 'from', other: IssueRow, otherProject: Project): void => {
      const body = `${verb} ${direction} ${issueReference(rc, onProject, otherProject, other.iid)}`;
      createNote(rc, { type: 'Issue', id: on.id, iid: on.iid, title: on.title, projectId: onProject.id }, { body, authorId: user.id, system: true });
    };
    systemNote(copy, target, 'from', issue, project);
    systemNote(issue, project, 'to', copy, target);
    if (kind === 'move') {
      // Its links now join the new issue (rewrite_related_issues); the old one is closed and points at it.
      // Its place in an epic too, where the caller may update the epic (EE's rewrite_epic_issue).
      const inEpic = db.prepare('SELECT ei.id, e.group_id FROM epic_issues ei JOIN epics e ON e.id = ei.epic_id WHERE ei.issue_id = ?').get(issue.id) as { id: number; group_id: number } | undefined;
      if (inEpic && canAdminGroupEpics(rc.svc, user, inEpic.group_id)) db.prepare('UPDATE epic_issues SET issue_id = ? WHERE id = ?').run(copyId, inEpic.id);
      db.prepare('UPDATE OR IGNORE issue_links SET source_id = ? WHERE source_id = ?').run(copyId, issue.id);
      db.prepare('UPDATE OR IGNORE issue_links SET target_id = ? WHERE target_id = ?').run(copyId, issue.id);
      const closing = issue.state === 'opened';
      db.prepare(
        `UPDATE issues SET moved_to_id = ?, state = 'closed', closed_at = CASE WHEN state = 'opened' THEN ? ELSE closed_at END,
           closed_by_id = CASE WHEN state = 'opened' THEN ? ELSE closed_by_id END, updated_at = ? WHERE id = ?`,
      ).run(copyId, now, user.id, now, issue.id);
      if (closing) {
        recordEvent(rc.svc, { action: 'closed', authorId: user.id, projectId: project.id, targetType: 'Issue', targetId: issue.id, targetIid: issue.iid, targetTitle: issue.title });
        afterIssuableWrite(rc.svc, project, 'Issue', issue, db.prepare('SELECT * FROM issues WHERE id = ?').get(issue.id) as IssueRow, user.id);
      }
    }
    return db.prepare('SELECT * FROM issues WHERE id = ?').get(copyId) as IssueRow;
  });
}

/** Notes::CopyService: every note of the issue, system ones too, with its author, times and award emoji, each thread a new discussion id. */
function copyNotes(rc: RequestContext, from: IssueRow, to: IssueRow): void {
  const db = rc.svc.db;
  const columns = (db.prepare('SELECT name FROM pragma_table_info(?)').all('notes') as { name: string }[])
    .map((c) => c.name)
    .filter((c) => c !== 'id' && c !== 'project_id' && c !== 'noteable_id' && c !== 'discussion_id');
  const insert = db.prepare(
    `INSERT INTO notes (project_id, noteable_id, discussion_id, ${columns.join(', ')})
     SELECT ?, ?, ?, ${columns.join(', ')} FROM notes WHERE id = ?`,
  );
  const discussions = new Map<string, string>();
  const notes = db.prepare("SELECT id, discussion_id FROM notes WHERE noteable_type = 'Issue' AND noteable_id = ? ORDER BY id").all(from.id) as { id: number; discussion_id: string }[];
  for (const n of notes) {
    let discussion = discussions.get(n.discussion_id);
    if (!discussion) discussions.set(n.discussion_id, (discussion = newDiscussionId()));
    // A note's award emoji go with it (copy_notes_emoji).
    copyAwardEmoji(rc, 'Note', n.id, Number(insert.run(to.project_id, to.id, discussion, n.id).lastInsertRowid));
  }
}

/** The award emoji of one issue or note, given to its copy as they were. */
function copyAwardEmoji(rc: RequestContext, type: 'Issue' | 'Note', fromId: number, toId: number): void {
  rc.svc.db
    .prepare(
      `INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id, created_at, updated_at)
       SELECT name, user_id, awardable_type, ?, created_at, updated_at FROM award_emoji WHERE awardable_type = ? AND awardable_id = ? ORDER BY id`,
    )
    .run(toId, type, fromId);
}
