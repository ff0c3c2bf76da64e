import type { Router } from '../../http/route';
import { declared, t } from '../../http/params';
import { notFound } from '../../http/errors';
import { paginate, limitSql } from '../../http/pagination';
import { spamLog } from './entities';
import type { SpamLogRow } from './spam';

/**
 * Sandlab-only: GitLab lists spam logs in its admin UI (/admin/spam_logs), not over REST. Newest
 * first; `user_id` narrows to one user.
 */
export function registerSpamLogRoutes(r: Router): void {
  r.get('/sandlab/spam_logs', (rc) => {
    rc.requireAdmin();
    const p = declared(rc.params, { user_id: t.integer() });
    const where = p.user_id === undefined ? '' : 'WHERE user_id = ?';
    const args = p.user_id === undefined ? [] : [p.user_id];
    return paginate(rc, {
      count: () => (rc.svc.db.prepare(`SELECT count(*) AS n FROM spam_logs ${where}`).get(...args) as { n: number }).n,
      rows: (limit, offset) =>
        rc.svc.db.prepare(`SELECT * FROM spam_logs ${where} ORDER BY id DESC ${limitSql(limit)} OFFSET ?`).all(...args, offset) as SpamLogRow[],
    }).map(spamLog);
  });

  r.get('/sandlab/spam_logs/:spam_log_id', (rc) => {
    rc.requireAdmin();
    const p = declared({ spam_log_id: rc.path.spam_log_id }, { spam_log_id: t.integer().required() });
    const row = rc.svc.db.prepare('SELECT * FROM spam_logs WHERE id = ?').get(p.spam_log_id) as SpamLogRow | undefined;
    if (!row) throw notFound('Spam Log');
    return spamLog(row);
  });
}
