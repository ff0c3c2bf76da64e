import { sameTableVersions, tableVersionsOf, unchangedEntity, unchangedPage } from '../../db/connection';
import type { EntityContext, NoteRow } from '../core/entities';
import { note, userBasicById } from '../core/entities';
import { findProjectById } from '../core/projects';
import { findUserById } from '../core/users';

export interface EventRow {
  id: number;
  project_id: number | null;
  group_id: number | null;
  author_id: number;
  action: string;
  target_type: string | null;
  target_id: number | null;
  target_iid: number | null;
  target_title: string | null;
  data: string | null;
  created_at: string;
}

const NOTE_TYPES = ['Note', 'DiffNote', 'DiscussionNote'];

/** GitLab's Event#action_name: everything not named below reads "opened". */
export function actionName(e: EventRow, projectImported: boolean): string {
  const data = e.data ? (JSON.parse(e.data) as Record<string, unknown>) : {};
  switch (e.action) {
    case 'pushed': {
      if (data.action === 'created') return 'pushed new';
      if (data.action === 'removed') return 'deleted';
      return 'pushed to';
    }
    case 'closed':
      return 'closed';
    case 'merged':
      return 'accepted';
    case 'joined':
      return 'joined';
    case 'left':
      return 'left';
    case 'expired':
      return 'removed due to membership expiration from';
    case 'destroyed':
      return 'destroyed';
    case 'commented':
      return 'commented on';
    case 'approved':
      return 'approved';
    case 'created':
      if (e.target_type === 'WikiPage::Meta') return 'created';
      if (!e.target_type || e.target_type === 'Project') return projectImported ? 'imported' : 'created';
      return 'opened';
    case 'updated':
      if (e.target_type === 'WikiPage::Meta') return 'updated';
      return 'opened';
    default:
      return 'opened';
  }
}

/**
 * The Event entity (lib/api/entities/event.rb). An event whose row and what it shows of other
 * records (its author, its project's import state, its note and the note's people) read as when its
 * entity was built keeps that entity and its JSON text (unchangedEntity): after a write elsewhere a
 * page of events was built and serialized anew (~15% of a page of 20's CPU).
 */
export function event(ec: EntityContext, e: EventRow): Record<string, unknown> {
  const author = findUserById(ec.svc, e.author_id);
  const authorEntity = author ? userBasicById(ec, author.id) : null;
  // The project's row as every request finds it (kept across writes to other tables), not a statement per event.
  const imported = !!e.project_id && projectImported(ec, e.project_id);
  const n =
    e.target_type && NOTE_TYPES.includes(e.target_type) && e.target_id !== null
      ? ((ec.svc.db.prepare('SELECT * FROM notes WHERE id = ?').get(e.target_id) as NoteRow | undefined) ?? null)
      : undefined;
  // Everything buildEvent reads besides the row and the base URL: note() reads the note's row and its author and resolver.
  const inputs = [authorEntity, author?.username ?? null, imported, n ?? null, n ? userBasicById(ec, n.author_id) : null, n?.resolvable ? userBasicById(ec, n.resolved_by_id) : null];
  return unchangedEntity(ec.svc.db, 'event', `${e.id}:${ec.baseUrl}`, e as unknown as Record<string, unknown>, inputs, () =>
    buildEvent(ec, e, author?.username ?? null, authorEntity, imported, n),
  );
}

/** The tables a page of events reads its people (UserBasic: the user's row alone) and notes from (core/099's versions). */
const EVENT_PAGE_TABLES = ['users', 'notes'] as const;

/** What a page of events read besides its rows and the base URL: EVENT_PAGE_TABLES' versions, read first, and whether each project was imported. */
interface EventPageInputs {
  versions: (number | undefined)[];
  projects: [number, boolean][];
}

/** Whether a project's first event reads "imported" (actionName): it was imported, not created. */
function projectImported(ec: EntityContext, projectId: number): boolean {
  const project = findProjectById(ec.svc, projectId);
  return !!project && project.import_type !== null && project.import_status !== 'none';
}

/**
 * The entity of each event of a page (event): a page whose rows (the same frozen objects, a
 * project's events remembered at their list's version) and inputs read as when it was built is
 * handed out again (unchangedPage), checked once per page after a write, where each event looked
 * its author, project and note up and compared them.
 */
export function events(ec: EntityContext, rows: EventRow[]): Record<string, unknown>[] {
  const db = ec.svc.db;
  const current = (inputs: EventPageInputs): boolean =>
    sameTableVersions(db, EVENT_PAGE_TABLES, inputs.versions) && inputs.projects.every(([id, imported]) => projectImported(ec, id) === imported);
  return unchangedPage(db, 'event-page', ec.baseUrl, rows, current, () => {
    const versions = tableVersionsOf(db, EVENT_PAGE_TABLES);
    const entities = rows.map((e) => event(ec, e));
    const projects = new Map<number, boolean>();
    for (const e of rows) if (e.project_id !== null && !projects.has(e.project_id)) projects.set(e.project_id, projectImported(ec, e.project_id));
    return { entities, inputs: { versions, projects: [...projects] } };
  });
}

function buildEvent(
  ec: EntityContext,
  e: EventRow,
  authorUsername: string | null,
  author: Record<string, unknown> | null,
  imported: boolean,
  n: NoteRow | null | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: e.id,
    title: null,
    project_id: e.project_id,
    action_name: actionName(e, imported),
    target_id: e.target_id,
    target_iid: e.target_iid,
    target_type: e.target_type,
    author_id: e.author_id,
    target_title: e.target_title,
    created_at: e.created_at,
  };
  if (authorUsername !== null) out.author = author;
  const data = e.data ? (JSON.parse(e.data) as Record<string, unknown>) : null;
  if (e.action === 'pushed') out.push_data = pushData(data);
  if (n !== undefined) out.note = n ? note(ec, n, (data?.noteable_iid as number | null | undefined) ?? null) : null;
  if (authorUsername !== null) out.author_username = authorUsername;
  out.imported = false;
  out.imported_from = 'none';
  return out;
}

function pushData(data: Record<string, unknown> | null): Record<string, unknown> {
  const d = data ?? {};
  return {
    commit_count: d.commit_count ?? 0,
    action: d.action ?? 'pushed',
    ref_type: d.ref_type ?? 'branch',
    commit_from: d.commit_from ?? null,
    commit_to: d.commit_to ?? null,
    ref: d.ref ?? null,
    commit_title: d.commit_title ?? null,
    ref_count: d.ref_count ?? null,
  };
}
