import type { RequestContext } from '../../http/route';
import { apiError } from '../../http/errors';
import { inTransaction } from '../../db/connection';
import { findLabelByTitle } from '../labels/labels';
import { Access, archivedNow, effectiveProjectAccess } from './access';
import type { IssueRow } from './entities';
import { recordEvent } from './events';
import { featureAvailable } from './feature-access';
import { afterIssuableWrite, createNewTodos, recordLabelEvents } from './issuable_events';
import { MILESTONES_FINDER_ORDER, findMilestoneById, milestoneFoundByTitle, milestoneInScope } from './milestones';
import { createNote, newDiscussionId } from './notes';
import { findNamespaceById } from './namespaces';
import type { Project } from './projects';
import { isoTime } from './time';
import { nextIid, setIssuableMilestone } from './workitems';

/**
 * POST .../issues/:iid/move and .../clone (WorkItems::DataSync::MoveService and CloneService): a
 * new issue in the target project with the next iid, the original's fields, its assignees, the
 * target's labels of the same titles, its milestone where the target reaches it (else the target's
 * of its title) and (always for a move, with_notes for a clone) its notes; a "moved/cloned from"
 * note on the new issue and "moved/cloned to" on the old one. A move keeps the author, created_at,
 * state, award emoji and subscriptions, closes the old issue and sets its moved_to_id, gives the new
 * issue copies of its links, and takes the old issue's place in its epic; a clone is the caller's,
 * created now and opened, without award emoji or subscriptions, joins the old issue's epic, and
 * leaves the old issue as it was. Resource events go where the notes go; the new issue's to-dos are
 * a new issue's.
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
    const milestoneId = milestone && (milestoneInScope(rc.svc, target, milestone.id) ?? milestoneFoundByTitle(rc.svc, target, milestone.title))?.id;
    // A move keeps the issue's life (created, state, closing); a clone is a new issue, opened now (CloneService's overwritten_params).
    const life = kind === 'move' ? issue : { state: 'opened', closed_at: null, closed_by_id: null, created_at: now };
    // The notes and resource events go together (WorkItems::DataSync::Widgets::Notes); without them the copy is a new issue.
    const copiesHistory = kind === 'move' || withNotes;
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
        copiesHistory ? (milestoneId ?? null) : null,
        life.closed_at,
        life.closed_by_id,
        life.created_at,
        now,
      );
    const copyId = Number(info.lastInsertRowid);
    // Without history, the new issue's milestone is set as on create, with its event (the create's system notes).
    if (!copiesHistory && milestoneId !== undefined) setIssuableMilestone(rc, 'Issue', { id: copyId, state: 'opened', milestone_id: null }, milestoneId, user.id);
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
    // The widgets run in their type's order: Labels (the relabelling) before Notes (the copied history), so the
    // relabelling's events take the lower ids and a list by id shows them first.
    relabelEvents(rc, project, issue, target, copy, user.id);
    if (copiesHistory) {
      copyResourceEvents(rc, issue, copy, target);
      copyNotes(rc, issue, copy);
    }
    // NewIssueWorker's Issues::AfterCreateService: the caller's assignment and mention to-dos, as for a new issue.
    createNewTodos(rc.svc, target, 'Issue', null, copy, user.id);
    // The hierarchy widget gives the new issue its original's parent, asking no permission: it joins the epic
    // as the original is there (EE copy_issue_parent); a move then takes the original out (post_move_cleanup).
    db.prepare('INSERT INTO epic_issues (epic_id, issue_id, relative_position, created_at) SELECT epic_id, ?, relative_position, created_at FROM epic_issues WHERE issue_id = ?').run(copyId, issue.id);
    const verb = kind === 'move' ? 'moved' : 'cloned';
    const systemNote = (on: IssueRow, onProject: Project, direction: 'to' | 'from', other: IssueRow, otherProject: Project): void => {
      const body = `${verb} ${direction} ${issueReference(rc, onProject, otherProject, other.iid)}`;
      createNote(rc, { type: 'Issue', id: on.id, iid: on.iid, title: on.title, projectId: onProject.id }, { body, authorId: user.id, system: true });
    };
    systemNote(copy, target, 'from', issue, project);
    systemNote(issue, project, 'to', copy, target);
    if (kind === 'move') {
      // The old one leaves its epic, is closed and points at the new one.
      db.prepare('DELETE FROM epic_issues WHERE issue_id = ?').run(issue.id);
      // Its links are copied to the new issue, both ways, and stay on the old one (Widgets::LinkedItems; their
      // removal from the old issue waits behind cleanup_data_source_work_item_data, off by default).
      db.prepare(
        `INSERT OR IGNORE INTO issue_links (source_id, target_id, link_type, created_at, updated_at)
         SELECT ?, target_id, link_type, created_at, updated_at FROM issue_links WHERE source_id = ? ORDER BY id`,
      ).run(copyId, issue.id);
      db.prepare(
        `INSERT OR IGNORE INTO issue_links (source_id, target_id, link_type, created_at, updated_at)
         SELECT source_id, ?, link_type, created_at, updated_at FROM issue_links WHERE target_id = ? ORDER BY id`,
      ).run(copyId, issue.id);
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

/**
 * Gitlab::Issuable::Clone::CopyResourceEventsService (with EE's weight events): the old issue's
 * label, state and weight events as they were, and its milestone `add` events where the target
 * project or its group has a milestone of that title. A `remove` event is copied there without a
 * milestone, which no list shows (ResourceMilestoneEventFinder reads readable milestones' events), so
 * it is left out.
 */
function copyResourceEvents(rc: RequestContext, from: IssueRow, to: IssueRow, target: Project): void {
  const db = rc.svc.db;
  db.prepare(
    `INSERT INTO resource_label_events (issuable_type, issuable_id, user_id, label_id, action, created_at)
     SELECT issuable_type, ?, user_id, label_id, action, created_at FROM resource_label_events WHERE issuable_type = 'Issue' AND issuable_id = ? ORDER BY id`,
  ).run(to.id, from.id);
  db.prepare(
    `INSERT INTO resource_state_events (issuable_type, issuable_id, user_id, state, source_commit, source_merge_request_id, created_at)
     SELECT issuable_type, ?, user_id, state, source_commit, source_merge_request_id, created_at FROM resource_state_events WHERE issuable_type = 'Issue' AND issuable_id = ? ORDER BY id`,
  ).run(to.id, from.id);
  db.prepare(
    `INSERT INTO resource_weight_events (issue_id, user_id, weight, created_at)
     SELECT ?, user_id, weight, created_at FROM resource_weight_events WHERE issue_id = ? ORDER BY id`,
  ).run(to.id, from.id);
  // matching_milestone: MilestonesFinder by title in the target project and its own group, first by due date.
  db.prepare(
    `INSERT INTO resource_milestone_events (issuable_type, issuable_id, user_id, milestone_id, action, state, created_at)
     SELECT e.issuable_type, ?, e.user_id, m.id, e.action, e.state, e.created_at
     FROM resource_milestone_events e JOIN milestones was ON was.id = e.milestone_id
     JOIN milestones m ON m.id = (SELECT t.id FROM milestones t WHERE t.title = was.title AND (t.project_id = ? OR t.group_id = ?)
                                  ORDER BY ${MILESTONES_FINDER_ORDER} LIMIT 1)
     WHERE e.issuable_type = 'Issue' AND e.issuable_id = ? AND e.action = 'add' ORDER BY e.id`,
  ).run(to.id, target.id, target.namespace_id, from.id);
}

/**
 * WorkItems::DataSync::Widgets::Labels: where the new issue's label of a title is not the old
 * issue's own label, the caller adds the new one and removes the old one, now; a label the target
 * lacks is only removed.
 */
function relabelEvents(rc: RequestContext, project: Project, from: IssueRow, target: Project, to: IssueRow, userId: number): void {
  const added: number[] = [];
  const removed: number[] = [];
  for (const title of JSON.parse(from.labels) as string[]) {
    const was = findLabelByTitle(rc.svc, { kind: 'project', project }, title);
    const now = findLabelByTitle(rc.svc, { kind: 'project', project: target }, title);
    if (was && now && was.id === now.id) continue;
    if (now) added.push(now.id);
    if (was) removed.push(was.id);
  }
  recordLabelEvents(rc.svc, 'Issue', to.id, added, removed, userId);
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
