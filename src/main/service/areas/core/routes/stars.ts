import type { RequestContext, Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { notModified } from '../../../http/errors';
import { paginate, limitSql } from '../../../http/pagination';
import { inTransaction } from '../../../db/connection';
import { loadProject } from '../access';
import { project, userBasic } from '../entities';
import { findProjectById } from '../projects';
import { findUserById } from '../users';
import { isoTime } from '../time';
import { likeEscape } from './users';

const isStarred = (rc: RequestContext, projectId: number, userId: number): boolean =>
  !!rc.svc.db.prepare('SELECT 1 FROM project_stars WHERE project_id = ? AND user_id = ?').get(projectId, userId);

/** lib/api/projects.rb: star and unstar (304 when nothing changes), and who starred a project. */
export function registerStarRoutes(r: Router): void {
  r.post('/projects/:id/star', (rc) => {
    const user = rc.requireUser();
    const proj = loadProject(rc);
    if (isStarred(rc, proj.id, user.id)) throw notModified();
    inTransaction(rc.svc.db, () =>
      rc.svc.db.prepare('INSERT INTO project_stars (project_id, user_id, created_at) VALUES (?, ?, ?)').run(proj.id, user.id, isoTime(rc.svc.now())),
    );
    return project(rc, findProjectById(rc.svc, proj.id)!);
  });

  r.post('/projects/:id/unstar', (rc) => {
    const user = rc.requireUser();
    const proj = loadProject(rc);
    if (!isStarred(rc, proj.id, user.id)) throw notModified();
    inTransaction(rc.svc.db, () => rc.svc.db.prepare('DELETE FROM project_stars WHERE project_id = ? AND user_id = ?').run(proj.id, user.id));
    return project(rc, findProjectById(rc.svc, proj.id)!);
  });

  r.get(
    '/projects/:id/starrers',
    (rc) => {
      const proj = loadProject(rc);
      const q = declared(rc.params, { search: t.string() });
      const where = ['s.project_id = ?'];
      const args: unknown[] = [proj.id];
      if (q.search) {
        where.push("(u.username LIKE ? ESCAPE '\\' OR u.name LIKE ? ESCAPE '\\')");
        args.push(`%${likeEscape(q.search)}%`, `%${likeEscape(q.search)}%`);
      }
      const sql = `FROM project_stars s JOIN users u ON u.id = s.user_id WHERE ${where.join(' AND ')}`;
      const rows = paginate(rc, {
        count: () => (rc.svc.db.prepare(`SELECT count(*) AS n ${sql}`).get(...args) as { n: number }).n,
        rows: (limit, offset) =>
          rc.svc.db.prepare(`SELECT s.user_id, s.created_at ${sql} ORDER BY s.created_at DESC, s.user_id DESC ${limitSql(limit)} OFFSET ?`).all(...args, offset) as {
            user_id: number;
            created_at: string;
          }[],
      });
      // Entities::UserStarsProject
      return rows.map((s) => ({ starred_since: s.created_at, user: userBasic(rc, findUserById(rc.svc, s.user_id)!) }));
    },
    { auth: 'optional' },
  );
}
