import type { RequestContext, Router } from '../../http/route';
import { declared, t } from '../../http/params';
import { badRequest, forbidden, grapeError } from '../../http/errors';
import { paginateArray } from '../../http/pagination';
import { inTransaction } from '../../db/connection';
import { ACCESS_LEVEL_VALUES } from '../core/access';
import { type MemberSource, loadSource, manageMembersLevel, sourceAccess } from '../core/members';
import { invitation } from './entities';
import { EMAIL_RE, findInvitation, invite, pendingInvitations, updateInvitation } from './invitations';
import { checkUnmodifiedSince } from '../../http/conditional';

const splitList = (v: unknown): string[] =>
  (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]).flatMap((x) => String(x).split(',')).map((s) => s.trim()).filter(Boolean);

/** A date (`YYYY-MM-DD`) or a time; members expire on a day. */
const expiry = t.dateTime();

function authorizeAdmin(rc: RequestContext, source: MemberSource): void {
  if (sourceAccess(rc, source) < manageMembersLevel(source)) throw forbidden();
}

/** /groups/:id/invitations and /projects/:id/invitations. */
export function registerInvitationRoutes(r: Router): void {
  for (const kind of ['groups', 'projects'] as const) {
    const base = `/${kind}/:id/invitations`;

    r.post(base, (rc) => {
      rc.requireUser();
      const p = declared(rc.params, {
        email: t.any(),
        user_id: t.any(),
        access_level: t.integer().required().values(ACCESS_LEVEL_VALUES),
        expires_at: expiry,
        invite_source: t.string(),
        member_role_id: t.integer(),
      });
      const emails = splitList(p.email);
      if (emails.some((e) => !EMAIL_RE.test(e))) throw grapeError(400, 'email contains an invalid email address');
      const source = loadSource(rc, kind);
      authorizeAdmin(rc, source);
      const userIds = splitList(p.user_id);
      if (!emails.length && !userIds.length) throw badRequest('Must provide either email or user_id as a parameter');
      const errors = inTransaction(rc.svc.db, () =>
        invite(rc, source, { emails, userIds, accessLevel: p.access_level, expiresAt: p.expires_at ? p.expires_at.slice(0, 10) : null }),
      );
      rc.status = 201;
      return Object.keys(errors).length ? { status: 'error', message: errors } : { status: 'success' };
    });

    r.get(base, (rc) => {
      rc.requireUser();
      const q = declared(rc.params, { query: t.string() });
      const source = loadSource(rc, kind);
      authorizeAdmin(rc, source);
      return paginateArray(rc, pendingInvitations(rc.svc, source, q.query || null)).map((m) => invitation(rc, m));
    });

    r.put(`${base}/:email`, (rc) => {
      rc.requireUser();
      const p = declared(rc.params, { access_level: t.integer().values(ACCESS_LEVEL_VALUES), expires_at: expiry });
      const source = loadSource(rc, kind);
      authorizeAdmin(rc, source);
      const inv = findInvitation(rc.svc, source, rc.path.email);
      if (p.access_level === undefined && p.expires_at === undefined) throw badRequest();
      const updated = inTransaction(rc.svc.db, () =>
        updateInvitation(rc, source, inv, {
          accessLevel: p.access_level ?? undefined,
          expiresAt: p.expires_at === undefined ? undefined : p.expires_at ? p.expires_at.slice(0, 10) : null,
        }),
      );
      return invitation(rc, updated);
    });

    r.delete(`${base}/:email`, (rc) => {
      rc.requireUser();
      const source = loadSource(rc, kind);
      authorizeAdmin(rc, source);
      const inv = findInvitation(rc.svc, source, rc.path.email);
      checkUnmodifiedSince(rc, inv.updated_at);
      inTransaction(rc.svc.db, () => rc.svc.db.prepare('DELETE FROM members WHERE id = ?').run(inv.id));
      return undefined;
    });
  }
}
