import type { RequestContext, Router } from '../../http/route';
import { declared, t } from '../../http/params';
import { notFound, recordNotFound, unauthorized } from '../../http/errors';
import { paginate, limitSql } from '../../http/pagination';
import { inTransaction } from '../../db/connection';
import { checkUnmodifiedSince } from '../../http/conditional';
import { Access, effectiveProjectAccess, loadProject } from '../core/access';
import type { IssueRow, MergeRequestRow, NoteRow } from '../core/entities';
import type { Project } from '../core/projects';
import { featureAvailable } from '../core/feature-access';
import { canReadIssue } from '../core/routes/issues';
import { findSnippet, canReadSnippet } from '../snippets/snippets';
import { loadSnippetsProject } from '../snippets/load';
import { type Awardable, type AwardRow, addAward, findAward } from './awards';
import { awardEmoji } from './entities';

/** The awardables of lib/api/helpers/award_emoji.rb: how each is named in the path and found. */
const AWARDABLES = [
  { resource: 'issues', idParam: 'issue_iid', type: 'Issue' },
  { resource: 'merge_requests', idParam: 'merge_request_iid', type: 'MergeRequest' },
  { resource: 'snippets', idParam: 'snippet_id', type: 'Snippet' },
] as const;

type AwardableSpec = (typeof AWARDABLES)[number];

interface Loaded {
  project: Project;
  awardable: Awardable;
  /** The issue, merge request or snippet the award (or the awarded note) belongs to. */
  parent: Awardable;
  readable: boolean;
}

/**
 * The awardable a route names (API::Helpers::AwardEmoji#awardable): a missing record is a bare
 * RecordNotFound 404; whether the caller may read it is answered separately (the routes then say
 * "404 Award Emoji Not Found"). The issue or merge request is found in the project's own records
 * (`user_project.issues.find_by!`), whatever its feature's level: that level is read_issue's /
 * read_merge_request's, so `readable`.
 */
function loadAwardable(rc: RequestContext, spec: AwardableSpec): Loaded {
  const raw = rc.path[spec.idParam];
  declared({ [spec.idParam]: raw, note_id: rc.path.note_id }, { [spec.idParam]: t.integer(), note_id: t.integer() });
  let project: Project;
  let parent: Awardable;
  let readable: boolean;
  if (spec.type === 'Issue') {
    project = loadProject(rc);
    const issue = recordByIid<IssueRow>(rc, 'issues', project, raw);
    parent = { type: 'Issue', id: issue.id };
    readable = featureAvailable(rc.svc, rc.user, project, 'Issue') && canReadIssue(rc, project, issue);
  } else if (spec.type === 'MergeRequest') {
    project = loadProject(rc);
    parent = { type: 'MergeRequest', id: recordByIid<MergeRequestRow>(rc, 'merge_requests', project, raw).id };
    readable = featureAvailable(rc.svc, rc.user, project, 'MergeRequest');
  } else {
    project = loadSnippetsProject(rc);
    const snippet = findSnippet(rc.svc, Number(raw));
    if (!snippet || snippet.project_id !== project.id) throw recordNotFound();
    parent = { type: 'Snippet', id: snippet.id };
    readable = canReadSnippet(rc.svc, rc.user, snippet, project);
  }
  if (rc.path.note_id === undefined) return { project, awardable: parent, parent, readable };
  const note = rc.svc.db
    .prepare('SELECT * FROM notes WHERE id = ? AND noteable_type = ? AND noteable_id = ?')
    .get(Number(rc.path.note_id), parent.type, parent.id) as NoteRow | undefined;
  if (!note) throw recordNotFound();
  // Internal notes are for Planners and up, like the notes API.
  if (note.internal && effectiveProjectAccess(rc.svc, rc.user, project) < Access.PLANNER) readable = false;
  return { project, awardable: { type: 'Note', id: note.id }, parent, readable };
}

function recordByIid<Row>(rc: RequestContext, table: 'issues' | 'merge_requests', project: Project, iid: string): Row {
  const row = rc.svc.db.prepare(`SELECT * FROM ${table} WHERE project_id = ? AND iid = ?`).get(project.id, Number(iid)) as Row | undefined;
  if (!row) throw recordNotFound();
  return row;
}

/** `award_emoji` on the awardable: a signed-in reader, in a project that is not archived. */
const canAward = (rc: RequestContext, loaded: Loaded): boolean => !!rc.user && loaded.readable && !loaded.project.archived;

function awardId(rc: RequestContext): number {
  return declared({ award_id: rc.path.award_id }, { award_id: t.integer().required() }).award_id;
}

/** lib/api/award_emoji.rb for project awardables and their notes. */
export function registerAwardEmojiRoutes(r: Router): void {
  for (const spec of AWARDABLES) {
    const item = `/projects/:id/${spec.resource}/:${spec.idParam}`;
    for (const base of [`${item}/award_emoji`, `${item}/notes/:note_id/award_emoji`]) {
      r.get(
        base,
        (rc) => {
          const loaded = loadAwardable(rc, spec);
          if (!loaded.readable) throw notFound('Award Emoji');
          const { type, id } = loaded.awardable;
          return paginate(rc, {
            count: () => (rc.svc.db.prepare('SELECT count(*) AS n FROM award_emoji WHERE awardable_type = ? AND awardable_id = ?').get(type, id) as { n: number }).n,
            rows: (limit, offset) =>
              rc.svc.db
                .prepare(`SELECT * FROM award_emoji WHERE awardable_type = ? AND awardable_id = ? ORDER BY id ${limitSql(limit)} OFFSET ?`)
                .all(type, id, offset) as AwardRow[],
          }).map((a) => awardEmoji(rc, a));
        },
        { auth: 'optional' },
      );

      r.get(
        `${base}/:award_id`,
        (rc) => {
          const loaded = loadAwardable(rc, spec);
          const id = awardId(rc);
          if (!loaded.readable) throw notFound('Award Emoji');
          const award = findAward(rc.svc, loaded.awardable, id);
          if (!award) throw recordNotFound();
          return awardEmoji(rc, award);
        },
        { auth: 'optional' },
      );

      r.post(
        base,
        (rc) => {
          const p = declared(rc.params, { name: t.string().required() });
          const loaded = loadAwardable(rc, spec);
          if (!canAward(rc, loaded)) throw notFound('Award Emoji');
          const user = rc.requireUser();
          const result = inTransaction(rc.svc.db, () => addAward(rc.svc, loaded.awardable, p.name, user.id));
          if (typeof result === 'string') throw notFound(`Award Emoji ${result}`);
          return awardEmoji(rc, result);
        },
        { auth: 'optional' },
      );

      r.delete(`${base}/:award_id`, (rc) => {
        const user = rc.requireUser();
        const loaded = loadAwardable(rc, spec);
        const award = findAward(rc.svc, loaded.awardable, awardId(rc));
        if (!award) throw recordNotFound();
        if (award.user_id !== user.id && !user.admin) throw unauthorized();
        checkUnmodifiedSince(rc, award.updated_at);
        rc.svc.db.prepare('DELETE FROM award_emoji WHERE id = ?').run(award.id);
        return undefined;
      });
    }
  }
}
