import type { RequestContext, Router } from '../../http/route';
import { declared, requireAtLeastOne, requireMutuallyExclusive, t } from '../../http/params';
import { forbidden, grapeError, notFound, notModified, recordNotFound, validationError } from '../../http/errors';
import { paginateSql } from '../../http/pagination';
import { inTransaction } from '../../db/connection';
import { Access, effectiveGroupAccess, loadGroup } from '../core/access';
import type { Namespace } from '../core/namespaces';
import { type NoteRow, note, notes as noteEntities } from '../core/entities';
import { type Noteable, createNote, findNote, findNoteOn, validateNoteBody } from '../core/notes';
import { isoTime } from '../core/time';
import { labelEventReadable } from '../core/routes/resource_events';
import { awardEmoji, epic, epics, labelEvent, todo } from './entities';
import {
  ADMIN_EPIC,
  type AwardRow,
  DESCRIPTION_LIMIT,
  DESTROY_EPIC,
  type EpicInput,
  type EpicRow,
  type LabelEventRow,
  canReadEpic,
  createEpic,
  deleteEpic,
  EPIC_WRITES,
  epicListSql,
  findEpicById,
  findEpicByIid,
  markTodo,
  updateEpic,
} from './epics';
import { checkUnmodifiedSince } from '../../http/conditional';

const UPDATE_FIELDS = [
  'add_labels',
  'remove_labels',
  'labels',
  'confidential',
  'description',
  'due_date_fixed',
  'due_date_is_fixed',
  'parent_id',
  'start_date_fixed',
  'start_date_is_fixed',
  'state_event',
  'title',
  'updated_at',
  'color',
];

/** Issuable's model validation, as for issues: `{"message":{"description":["is too long ..."]}}`. */
function checkDescription(description: string | null | undefined): void {
  if (description && description.length > DESCRIPTION_LIMIT) {
    throw validationError({ description: [`is too long (maximum is ${DESCRIPTION_LIMIT} characters)`] });
  }
}

function epicIid(rc: RequestContext): number {
  const raw = rc.path.epic_iid;
  if (!/^\d+$/.test(raw)) throw grapeError(400, 'epic_iid is invalid');
  return Number(raw);
}

/**
 * The epic of `:epic_iid` for GET/PUT/DELETE: GitLab looks it up with find_by and hands the
 * result to authorize!, so a missing or unreadable epic answers 403.
 */
function loadEpic(rc: RequestContext, group: Namespace): EpicRow {
  const e = findEpicByIid(rc.svc, group, epicIid(rc));
  if (!e || !canReadEpic(rc.svc, rc.user, e)) throw forbidden();
  return e;
}

/** The epic as a parent: by global id, readable by the caller. */
function loadParent(rc: RequestContext, id: number | null | undefined): EpicRow | null | undefined {
  if (id === undefined) return undefined;
  if (id === null || id === 0) return null;
  const parent = findEpicById(rc.svc, id);
  if (!parent || !canReadEpic(rc.svc, rc.user, parent)) {
    throw validationError({ parent: ['This epic cannot be added. An epic must belong to the same group or subgroup as its parent epic.'] });
  }
  return parent;
}

const canSetTimestamps = (rc: RequestContext, group: Namespace): boolean =>
  !!rc.user && (rc.user.admin === 1 || effectiveGroupAccess(rc.svc, rc.user, group) >= Access.OWNER);

export function registerEpicRoutes(r: Router): void {
  for (const prefix of ['/groups/:id/epics', '/groups/:id/-/epics']) {
    r.get(
      prefix,
      (rc) => {
        const group = loadGroup(rc);
        requireMutuallyExclusive(rc.params, ['author_id', 'author_username']);
        const f = declared(rc.params, {
          author_id: t.integer(),
          author_username: t.string(),
          labels: t.commaList(),
          with_labels_details: t.boolean().default(false),
          order_by: t.string().values(['created_at', 'updated_at', 'title']).default('created_at'),
          sort: t.string().values(['asc', 'desc']).default('desc'),
          search: t.string(),
          state: t.string().values(['opened', 'closed', 'all']).default('all'),
          created_after: t.dateTime(),
          created_before: t.dateTime(),
          updated_after: t.dateTime(),
          updated_before: t.dateTime(),
          include_ancestor_groups: t.boolean().default(false),
          include_descendant_groups: t.boolean().default(true),
          my_reaction_emoji: t.string(),
          confidential: t.boolean(),
          iids: t.array(t.integer()),
          not: t.hash(),
        });
        const { sql, args, order, countFrom, atMost, anchors, rows } = epicListSql(rc.svc, rc.user, group, {
          ...f,
          author_id: f.author_id ?? undefined,
          author_username: f.author_username ?? undefined,
          labels: f.labels ?? undefined,
          search: f.search ?? undefined,
          created_after: f.created_after ?? undefined,
          created_before: f.created_before ?? undefined,
          updated_after: f.updated_after ?? undefined,
          updated_before: f.updated_before ?? undefined,
          my_reaction_emoji: f.my_reaction_emoji ?? undefined,
          confidential: f.confidential ?? undefined,
          iids: f.iids ?? undefined,
          not: f.not ?? undefined,
        });
        return epics(rc, paginateSql<EpicRow>(rc, rc.svc.db, { select: 'e.*', from: sql, args, order, countFrom, atMost, anchors, rows, byId: { log: EPIC_WRITES, idColumn: 'e.id' } }), {
          from: group,
          withLabelsDetails: f.with_labels_details,
        });
      },
      { auth: 'optional' },
    );

    r.get(
      `${prefix}/:epic_iid`,
      (rc) => {
        const group = loadGroup(rc);
        return epic(rc, loadEpic(rc, group), { from: group, single: true });
      },
      { auth: 'optional' },
    );

    r.post(prefix, (rc) => {
      const user = rc.requireUser();
      const group = loadGroup(rc, ADMIN_EPIC);
      const p = declared(rc.params, {
        title: t.string().required(),
        description: t.string(),
        labels: t.commaList(),
        color: t.string(),
        confidential: t.boolean(),
        created_at: t.dateTime(),
        start_date_is_fixed: t.boolean(),
        start_date_fixed: t.date(),
        due_date_is_fixed: t.boolean(),
        due_date_fixed: t.date(),
        start_date: t.date(),
        end_date: t.date(),
        parent_id: t.integer(),
      });
      checkDescription(p.description);
      const input: EpicInput & { title: string } = {
        title: p.title,
        description: p.description,
        labels: p.labels,
        color: p.color ?? undefined,
        confidential: p.confidential ?? undefined,
        start_date_fixed: p.start_date_fixed ?? p.start_date,
        start_date_is_fixed: p.start_date_is_fixed ?? (p.start_date ? true : undefined),
        due_date_fixed: p.due_date_fixed ?? p.end_date,
        due_date_is_fixed: p.due_date_is_fixed ?? (p.end_date ? true : undefined),
        created_at: p.created_at && canSetTimestamps(rc, group) ? p.created_at : undefined,
      };
      const row = inTransaction(rc.svc.db, () => createEpic(rc, group, user, { ...input, parent: loadParent(rc, p.parent_id) }));
      return epic(rc, row, { from: group });
    });

    r.put(`${prefix}/:epic_iid`, (rc) => {
      const user = rc.requireUser();
      // As in Grape: the group (a before filter), then the parameters, then the epic's permission.
      const group = loadGroup(rc);
      epicIid(rc);
      requireAtLeastOne(rc.params, UPDATE_FIELDS);
      const p = declared(rc.params, {
        title: t.string(),
        description: t.string(),
        labels: t.commaList(),
        add_labels: t.commaList(),
        remove_labels: t.commaList(),
        state_event: t.string().values(['close', 'reopen']),
        updated_at: t.dateTime(),
        parent_id: t.integer(),
        color: t.string(),
        confidential: t.boolean(),
        start_date_fixed: t.date(),
        start_date_is_fixed: t.boolean(),
        due_date_fixed: t.date(),
        due_date_is_fixed: t.boolean(),
      });
      const current = loadEpic(rc, group);
      if (effectiveGroupAccess(rc.svc, user, group) < ADMIN_EPIC) throw forbidden();
      checkDescription(p.description);
      const input: EpicInput = {
        title: p.title ?? undefined,
        description: p.description,
        labels: p.labels,
        add_labels: p.add_labels ?? undefined,
        remove_labels: p.remove_labels ?? undefined,
        state_event: p.state_event ?? undefined,
        color: p.color ?? undefined,
        confidential: p.confidential ?? undefined,
        start_date_fixed: p.start_date_fixed,
        start_date_is_fixed: p.start_date_is_fixed ?? undefined,
        due_date_fixed: p.due_date_fixed,
        due_date_is_fixed: p.due_date_is_fixed ?? undefined,
        updated_at: p.updated_at && canSetTimestamps(rc, group) ? p.updated_at : undefined,
      };
      const row = inTransaction(rc.svc.db, () => updateEpic(rc, group, current, user, { ...input, parent: loadParent(rc, p.parent_id) }));
      return epic(rc, row, { from: group });
    });

    r.delete(`${prefix}/:epic_iid`, (rc) => {
      const user = rc.requireUser();
      const group = loadGroup(rc);
      const current = loadEpic(rc, group);
      if (effectiveGroupAccess(rc.svc, user, group) < DESTROY_EPIC) throw forbidden();
      inTransaction(rc.svc.db, () => deleteEpic(rc, current, user));
      return undefined;
    });

    const markAsTodo = (rc: RequestContext): unknown => {
      const user = rc.requireUser();
      const group = loadGroup(rc);
      const e = findEpicByIid(rc.svc, group, epicIid(rc));
      if (!e || !canReadEpic(rc.svc, user, e)) throw notFound('Epic');
      const row = inTransaction(rc.svc.db, () => markTodo(rc.svc, e, user));
      if (!row) throw notModified();
      rc.status = 201;
      return todo(rc, row, e);
    };
    r.post(`${prefix}/:epic_iid/todo`, markAsTodo);

    // --- award emoji (what `my_reaction_emoji` filters on; upvotes/downvotes) ------------------

    r.get(
      `${prefix}/:epic_iid/award_emoji`,
      (rc) => {
        const group = loadGroup(rc);
        const e = loadEpicOr404(rc, group);
        const sql = 'FROM epic_award_emoji WHERE epic_id = ?';
        return paginateSql<AwardRow>(rc, rc.svc.db, { select: '*', from: sql, args: [e.id], order: 'id' }).map((a) => awardEmoji(rc, a, e));
      },
      { auth: 'optional' },
    );

    r.post(`${prefix}/:epic_iid/award_emoji`, (rc) => {
      const user = rc.requireUser();
      const group = loadGroup(rc);
      const e = loadEpicOr404(rc, group);
      const p = declared(rc.params, { name: t.string().required() });
      const name = p.name.replace(/^:|:$/g, '');
      if (rc.svc.db.prepare('SELECT 1 FROM epic_award_emoji WHERE epic_id = ? AND user_id = ? AND name = ?').get(e.id, user.id, name)) {
        throw validationError({ name: ['has already been taken'] });
      }
      const now = isoTime(rc.svc.now());
      const info = rc.svc.db
        .prepare('INSERT INTO epic_award_emoji (epic_id, user_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
        .run(e.id, user.id, name, now, now);
      return awardEmoji(rc, rc.svc.db.prepare('SELECT * FROM epic_award_emoji WHERE id = ?').get(Number(info.lastInsertRowid)) as AwardRow, e);
    });

    r.delete(`${prefix}/:epic_iid/award_emoji/:award_id`, (rc) => {
      const user = rc.requireUser();
      const group = loadGroup(rc);
      const e = loadEpicOr404(rc, group);
      const a = rc.svc.db.prepare('SELECT * FROM epic_award_emoji WHERE id = ? AND epic_id = ?').get(Number(rc.path.award_id) || 0, e.id) as AwardRow | undefined;
      if (!a) throw notFound('Award Emoji');
      if (a.user_id !== user.id && !user.admin) throw forbidden();
      checkUnmodifiedSince(rc, a.updated_at);
      rc.svc.db.prepare('DELETE FROM epic_award_emoji WHERE id = ?').run(a.id);
      return undefined;
    });

    // --- resource label events (python-gitlab's epic.resourcelabelevents, by the epic's id) -----

    const labelEvents = `${prefix}/:epic_id/resource_label_events`;

    r.get(
      labelEvents,
      (rc) => {
        const { noteable } = loadEpicNoteable(rc);
        const e = findEpicById(rc.svc, noteable.id)!;
        const sql = 'FROM epic_label_events WHERE epic_id = ?';
        // Cut and counted first, then left out where the caller may not read the label (the API's visible_to_user?).
        return paginateSql<LabelEventRow>(rc, rc.svc.db, { select: '*', from: sql, args: [e.id], order: 'id' })
          .filter((ev) => labelEventReadable(rc, ev))
          .map((ev) => labelEvent(rc, ev, e));
      },
      { auth: 'optional' },
    );

    r.get(
      `${labelEvents}/:event_id`,
      (rc) => {
        const { noteable } = loadEpicNoteable(rc);
        const e = findEpicById(rc.svc, noteable.id)!;
        const id = /^\d+$/.test(rc.path.event_id) ? Number(rc.path.event_id) : 0;
        const ev = rc.svc.db.prepare('SELECT * FROM epic_label_events WHERE id = ? AND epic_id = ?').get(id, e.id) as LabelEventRow | undefined;
        if (!ev) throw recordNotFound();
        if (!labelEventReadable(rc, ev)) throw notFound('ResourceLabelEvent');
        return labelEvent(rc, ev, e);
      },
      { auth: 'optional' },
    );

    // --- notes (python-gitlab addresses them by the epic's global id) --------------------------

    const notes = `${prefix}/:epic_id/notes`;

    r.get(
      notes,
      (rc) => {
        const { noteable, group } = loadEpicNoteable(rc);
        const q = declared(rc.params, {
          order_by: t.string().values(['created_at', 'updated_at']).default('created_at'),
          sort: t.string().values(['asc', 'desc']).default('desc'),
        });
        const internalOk = effectiveGroupAccess(rc.svc, rc.user, group) >= Access.PLANNER;
        const sql = `FROM notes WHERE noteable_type = 'Epic' AND noteable_id = ?${internalOk ? '' : ' AND internal = 0'}`;
        return noteEntities(rc, paginateSql<NoteRow>(rc, rc.svc.db, { select: '*', from: sql, args: [noteable.id], order: `${q.order_by} ${q.sort}, id ${q.sort}` }), noteable.iid);
      },
      { auth: 'optional' },
    );

    r.get(
      `${notes}/:note_id`,
      (rc) => {
        const { noteable, group } = loadEpicNoteable(rc);
        const n = findNoteOn(rc, noteable, rc.path.note_id);
        if (n.internal && effectiveGroupAccess(rc.svc, rc.user, group) < Access.PLANNER) throw recordNotFound();
        return note(rc, n, noteable.iid);
      },
      { auth: 'optional' },
    );

    r.post(notes, (rc) => {
      const user = rc.requireUser();
      const { noteable, group } = loadEpicNoteable(rc);
      const p = declared(rc.params, { body: t.string().required(), internal: t.boolean(), confidential: t.boolean(), created_at: t.dateTime() });
      const level = effectiveGroupAccess(rc.svc, user, group);
      const internal = p.internal ?? p.confidential ?? false;
      if (internal && level < Access.PLANNER) throw forbidden();
      const row = inTransaction(rc.svc.db, () =>
        createNote(rc, noteable, { body: p.body, authorId: user.id, internal, createdAt: p.created_at && level >= Access.OWNER ? p.created_at : undefined }),
      );
      return note(rc, row, noteable.iid);
    });

    r.put(`${notes}/:note_id`, (rc) => {
      const user = rc.requireUser();
      const { noteable } = loadEpicNoteable(rc);
      const current = findNoteOn(rc, noteable, rc.path.note_id);
      const p = declared(rc.params, { body: t.string() });
      if (current.author_id !== user.id && !user.admin) throw forbidden();
      if (p.body != null) validateNoteBody(p.body);
      rc.svc.db.prepare('UPDATE notes SET body = ?, updated_at = ? WHERE id = ?').run(p.body ?? current.body, isoTime(rc.svc.now()), current.id);
      return note(rc, findNote(rc, current.id)!, noteable.iid);
    });

    r.delete(`${notes}/:note_id`, (rc) => {
      const user = rc.requireUser();
      const { noteable, group } = loadEpicNoteable(rc);
      const current = findNoteOn(rc, noteable, rc.path.note_id);
      if (current.author_id !== user.id && effectiveGroupAccess(rc.svc, user, group) < Access.MAINTAINER) throw forbidden();
      checkUnmodifiedSince(rc, current.updated_at);
      rc.svc.db.prepare('DELETE FROM notes WHERE id = ?').run(current.id);
      return undefined;
    });
  }
}

function loadEpicOr404(rc: RequestContext, group: Namespace): EpicRow {
  const e = findEpicByIid(rc.svc, group, epicIid(rc));
  if (!e || !canReadEpic(rc.svc, rc.user, e)) throw notFound('Epic');
  return e;
}

function loadEpicNoteable(rc: RequestContext): { noteable: Noteable; group: Namespace } {
  const group = loadGroup(rc);
  const id = /^\d+$/.test(rc.path.epic_id) ? Number(rc.path.epic_id) : NaN;
  const e = Number.isNaN(id) ? undefined : findEpicById(rc.svc, id);
  if (!e || e.group_id !== group.id || !canReadEpic(rc.svc, rc.user, e)) throw notFound('Epic');
  return { noteable: { type: 'Epic', id: e.id, iid: e.iid, title: e.title, projectId: null, groupId: e.group_id }, group };
}
