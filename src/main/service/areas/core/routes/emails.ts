import type { RequestContext, Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { notFound, validationError } from '../../../http/errors';
import { paginateSql } from '../../../http/pagination';
import { inTransaction } from '../../../db/connection';
import type { User } from '../users';
import { isoTime } from '../time';
import { loadUser } from './users';

interface EmailRow {
  id: number;
  user_id: number;
  email: string;
  confirmed_at: string | null;
  created_at: string;
}

/** Entities::Email */
const emailEntity = (row: EmailRow) => ({ id: row.id, email: row.email, confirmed_at: row.confirmed_at });

/**
 * Emails::CreateService: a secondary address, unique among every user's primary and secondary
 * ones. Sandlab sends no mail, so an address is unconfirmed until an administrator adds it with
 * `skip_confirmation`.
 */
function createEmail(rc: RequestContext, user: User, allowSkipConfirmation: boolean): EmailRow {
  const p = declared(rc.params, { email: t.string().required(), skip_confirmation: t.boolean() });
  const email = p.email.trim();
  const errors: Record<string, string[]> = {};
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) errors.email = ['is invalid'];
  else if (
    rc.svc.db.prepare('SELECT 1 FROM emails WHERE lower(email) = lower(?)').get(email) ||
    rc.svc.db.prepare('SELECT 1 FROM users WHERE lower(email) = lower(?)').get(email)
  ) {
    errors.email = ['has already been taken'];
  }
  if (Object.keys(errors).length) throw validationError(errors);
  const now = isoTime(rc.svc.now());
  return inTransaction(rc.svc.db, () => {
    const info = rc.svc.db
      .prepare('INSERT INTO emails (user_id, email, confirmed_at, created_at) VALUES (?, ?, ?, ?)')
      .run(user.id, email, allowSkipConfirmation && p.skip_confirmation ? now : null, now);
    return rc.svc.db.prepare('SELECT * FROM emails WHERE id = ?').get(info.lastInsertRowid) as EmailRow;
  });
}

function listEmails(rc: RequestContext, user: User) {
  return paginateSql<EmailRow>(rc, rc.svc.db, { select: '*', from: 'FROM emails WHERE user_id = ?', args: [user.id], order: 'id' }).map(emailEntity);
}

function findEmail(rc: RequestContext, user: User): EmailRow {
  const row = rc.svc.db.prepare('SELECT * FROM emails WHERE id = ? AND user_id = ?').get(Number(rc.path.email_id), user.id) as EmailRow | undefined;
  if (!row) throw notFound('Email');
  return row;
}

function deleteEmail(rc: RequestContext, row: EmailRow): undefined {
  inTransaction(rc.svc.db, () => rc.svc.db.prepare('DELETE FROM emails WHERE id = ?').run(row.id));
  return undefined;
}

/** lib/api/users.rb: the caller's secondary emails, and any user's for administrators. */
export function registerEmailRoutes(r: Router): void {
  r.get('/user/emails', (rc) => listEmails(rc, rc.requireUser()));
  r.post('/user/emails', (rc) => emailEntity(createEmail(rc, rc.requireUser(), false)));
  r.get('/user/emails/:email_id', (rc) => emailEntity(findEmail(rc, rc.requireUser())));
  r.delete('/user/emails/:email_id', (rc) => deleteEmail(rc, findEmail(rc, rc.requireUser())));

  r.get('/users/:id/emails', (rc) => {
    rc.requireAdmin();
    return listEmails(rc, loadUser(rc));
  });
  r.post('/users/:id/emails', (rc) => {
    rc.requireAdmin();
    return emailEntity(createEmail(rc, loadUser(rc), true));
  });
  r.delete('/users/:id/emails/:email_id', (rc) => {
    rc.requireAdmin();
    return deleteEmail(rc, findEmail(rc, loadUser(rc)));
  });
}
