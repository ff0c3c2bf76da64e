import type { ServiceContext } from '../../context';
import DiffMatchPatch from 'diff-match-patch';
import { createNote } from './notes';
import { isDraftTitle } from './entities';
import { toSentence } from './sentence';
import { updatedTasks } from './tasks';

/** The columns of an issue or merge request row the system notes compare (IssuableSnapshot's superset). */
export interface SystemNoteSnapshot {
  id: number;
  iid: number;
  project_id?: number;
  title: string;
  description: string | null;
  assignee_ids: string;
  reviewer_ids?: string;
  confidential?: number;
  due_date?: string | null;
  discussion_locked?: number | null;
  target_branch?: string;
}

/**
 * The system notes GitLab writes for a create or update of an issue or merge request, in its order:
 * Issuable::CommonSystemNotesService (draft status and title, description or task items, discussion
 * lock, due date), then the update services' handle_changes (assignees, confidentiality, reviewers,
 * target branch). Labels, milestones, weights and state are resource events, not notes. `before` is
 * null on create (only the due date is written then). System notes make no event, do not count in
 * user_notes_count and leave the record's updated_at alone (no_touching). Call inside the write's transaction.
 */
export function writeSystemNotes(svc: ServiceContext, type: 'Issue' | 'MergeRequest', before: SystemNoteSnapshot | null, after: SystemNoteSnapshot, userId: number): void {
  const bodies: string[] = [];
  if (before) {
    if (before.title !== after.title) {
      if (type === 'MergeRequest' && isDraftTitle(before.title) !== isDraftTitle(after.title)) {
        bodies.push(`marked this merge request as **${isDraftTitle(after.title) ? 'draft' : 'ready'}**`);
      }
      const changed = type === 'MergeRequest' ? draftlessTitle(before.title) !== draftlessTitle(after.title) : true;
      if (changed) bodies.push(titleChangeBody(before.title, after.title));
    }
    if ((before.description ?? null) !== (after.description ?? null)) {
      const tasks = updatedTasks(before.description, after.description);
      // change_task_status: "checklist item" since GitLab 15.x ("task" before).
      if (tasks.length) bodies.push(...tasks.map((t) => `marked the checklist item **${t.source}** as ${t.complete ? 'completed' : 'incomplete'}`));
      else bodies.push('changed the description');
    }
    if (before.discussion_locked !== after.discussion_locked) {
      // IssuablesService#discussion_lock: "the discussion in this" since GitLab 16.x ("locked this issue" before).
      bodies.push(`${after.discussion_locked ? 'locked' : 'unlocked'} the discussion in this ${type === 'Issue' ? 'issue' : 'merge request'}`);
    }
  }
  if (type === 'Issue' && (before ? before.due_date !== after.due_date : after.due_date != null)) {
    bodies.push(after.due_date ? `changed due date to ${longDate(after.due_date)}` : `removed due date ${longDate(before!.due_date!)}`);
  }
  if (before) {
    const assignees = membershipChange(svc, before.assignee_ids, after.assignee_ids, 'assigned to', 'unassigned');
    if (assignees) bodies.push(assignees);
    if (type === 'Issue' && before.confidential !== after.confidential) {
      bodies.push(after.confidential ? 'made the issue confidential' : 'made the issue visible to everyone');
    }
    if (type === 'MergeRequest') {
      const reviewers = membershipChange(svc, before.reviewer_ids ?? '[]', after.reviewer_ids ?? '[]', 'requested review from', 'removed review request for');
      if (reviewers) bodies.push(reviewers);
      if (before.target_branch !== after.target_branch) bodies.push(`changed target branch from \`${before.target_branch}\` to \`${after.target_branch}\``);
    }
  }
  for (const body of bodies) writeSystemNote(svc, type, after, body, userId);
}

/** One system note on an issue or merge request, by `userId`: its own individual discussion, no event. Call inside the write's transaction. */
export function writeSystemNote(
  svc: ServiceContext,
  type: 'Issue' | 'MergeRequest',
  record: { id: number; iid: number; title: string; project_id?: number },
  body: string,
  userId: number,
): void {
  const projectId = record.project_id ?? (svc.db.prepare(`SELECT project_id FROM ${type === 'Issue' ? 'issues' : 'merge_requests'} WHERE id = ?`).get(record.id) as { project_id: number }).project_id;
  createNote({ svc }, { type, id: record.id, iid: record.iid, title: record.title, projectId }, { body, authorId: userId, system: true });
}

/** MergeRequest.draftless_title: the title less its draft prefixes. */
const draftlessTitle = (title: string): string => title.replace(/^\s*(?:\[draft\]|\(draft\)|draft:|draft\s-\s)+\s*/i, '');

/**
 * SystemNotes::IssuablesService#change_title: "changed title from **{-old-}** to **{+new+}**", every changed
 * stretch marked as Gitlab::Diff::InlineDiffMarkdownMarker marks the ranges of Gitlab::Diff::CharDiff
 * (diff_match_patch's diff_main, then diff_cleanupSemantic).
 */
export function titleChangeBody(oldTitle: string, newTitle: string): string {
  // diff_match_patch diffs UTF-16 units, GitLab's Ruby port characters: a character beyond the BMP (an
  // emoji) is diffed as one private-use unit found in neither title, so no mark splits its surrogate pair.
  const units = new Map<string, string>();
  const chars = new Map<string, string>();
  let next = 0xe000;
  const encode = (title: string): string =>
    Array.from(title, (c) => {
      if (c.length === 1) return c;
      let unit = units.get(c);
      if (unit === undefined) {
        while (oldTitle.includes(String.fromCharCode(next)) || newTitle.includes(String.fromCharCode(next))) next++;
        unit = String.fromCharCode(next++);
        units.set(c, unit);
        chars.set(unit, c);
      }
      return unit;
    }).join('');
  const diffs = charDiff.diff_main(encode(oldTitle), encode(newTitle));
  charDiff.diff_cleanupSemantic(diffs);
  let markedOld = '';
  let markedNew = '';
  for (const [op, encoded] of diffs) {
    const text = chars.size ? Array.from(encoded, (u) => chars.get(u) ?? u).join('') : encoded;
    if (op === DiffMatchPatch.DIFF_EQUAL) {
      markedOld += text;
      markedNew += text;
    } else if (op === DiffMatchPatch.DIFF_DELETE) markedOld += `{-${text}-}`;
    else markedNew += `{+${text}+}`;
  }
  return `changed title from **${markedOld}** to **${markedNew}**`;
}

const charDiff = new DiffMatchPatch();


const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Date#to_fs(:long): "November 5, 2026". */
function longDate(iso: string): string {
  const [y, m, d] = iso.slice(0, 10).split('-').map(Number);
  return `${MONTHS[m - 1]} ${d}, ${y}`;
}

/**
 * change_issuable_assignees / change_issuable_reviewers: "assigned to @a and @b and unassigned @c", with
 * Array#to_sentence's serial comma ("@a, @b, and @c"); null when the set did not change.
 */
function membershipChange(svc: ServiceContext, beforeJson: string, afterJson: string, addedVerb: string, removedVerb: string): string | null {
  const before = JSON.parse(beforeJson || '[]') as number[];
  const after = JSON.parse(afterJson || '[]') as number[];
  const added = after.filter((id) => !before.includes(id));
  const removed = before.filter((id) => !after.includes(id));
  if (!added.length && !removed.length) return null;
  const refs = (ids: number[]): string =>
    toSentence(ids.flatMap((id) => {
      const u = svc.db.prepare('SELECT username FROM users WHERE id = ?').get(id) as { username: string } | undefined;
      return u ? [`@${u.username}`] : [];
    }));
  const parts: string[] = [];
  if (added.length) parts.push(`${addedVerb} ${refs(added)}`);
  if (removed.length) parts.push(`${removedVerb} ${refs(removed)}`);
  return parts.join(' and ');
}
