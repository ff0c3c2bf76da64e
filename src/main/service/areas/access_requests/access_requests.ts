import type { RequestContext } from '../../http/route';
import { forbidden, recordNotFound, validationError } from '../../http/errors';
import { Access, MEMBER_ACCESS_LEVELS, PROJECT_MEMBER_ACCESS_LEVELS, groupAccessLevel, projectAccessLevel } from '../core/access';
import type { MemberRow } from '../core/entities';
import { type MemberSource, addMember, checkGrant, manageMembersLevel, sourceAccess } from '../core/members';
import type { User } from '../core/users';
import { isoTime } from '../core/time';
import { checkUnmodifiedSince } from '../../http/conditional';

/** The pending request of a user on a source. */
export function findAccessRequest(rc: RequestContext, source: MemberSource, userId: number): MemberRow | undefined {
  return rc.svc.db
    .prepare('SELECT * FROM members WHERE source_type = ? AND source_id = ? AND user_id = ? AND requested_at IS NOT NULL')
    .get(source.type, source.id, userId) as MemberRow | undefined;
}

export function listAccessRequests(rc: RequestContext, source: MemberSource): MemberRow[] {
  return rc.svc.db
    .prepare('SELECT * FROM members WHERE source_type = ? AND source_id = ? AND user_id IS NOT NULL AND requested_at IS NOT NULL ORDER BY id')
    .all(source.type, source.id) as MemberRow[];
}

/** The user's own level on the source, from memberships only (admins get no free pass here). */
function membershipLevel(rc: RequestContext, source: MemberSource, user: User): number {
  return source.group ? groupAccessLevel(rc.svc, user.id, source.group.id) : projectAccessLevel(rc.svc, user.id, source.project!);
}

/**
 * Members::RequestAccessService: 403 for members and where requests are off; a second request is
 * the Member uniqueness error. Call inside a transaction.
 */
export function requestAccess(rc: RequestContext, source: MemberSource, user: User): MemberRow {
  const enabled = source.group ? source.group.request_access_enabled : source.project!.request_access_enabled;
  if (!enabled) throw forbidden();
  if (membershipLevel(rc, source, user) > Access.NO_ACCESS) throw forbidden();
  const existing = rc.svc.db
    .prepare('SELECT 1 FROM members WHERE source_type = ? AND source_id = ? AND user_id = ?')
    .get(source.type, source.id, user.id);
  if (existing) throw validationError({ user_id: ['already exists in source'] });
  const now = isoTime(rc.svc.now());
  const info = rc.svc.db
    .prepare(
      `INSERT INTO members (source_type, source_id, user_id, access_level, requested_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(source.type, source.id, user.id, Access.DEVELOPER, now, now, now);
  return rc.svc.db.prepare('SELECT * FROM members WHERE id = ?').get(Number(info.lastInsertRowid)) as MemberRow;
}

/** Members::ApproveAccessRequestService: the request becomes a membership ("joined"). */
export function approveAccessRequest(rc: RequestContext, source: MemberSource, userId: number, accessLevel: number): MemberRow {
  // As GitLab: `requesters.find_by!` first (404), then the service's permission check (403).
  const request = findAccessRequest(rc, source, userId);
  if (!request) throw recordNotFound();
  if (sourceAccess(rc, source) < manageMembersLevel(source)) throw forbidden();
  const levels: readonly number[] = source.type === 'Project' ? PROJECT_MEMBER_ACCESS_LEVELS : MEMBER_ACCESS_LEVELS;
  if (!levels.includes(accessLevel)) throw validationError({ access_level: ['is not included in the list'] });
  checkGrant(rc, source, userId, { accessLevel });
  return addMember(rc, source, userId, { accessLevel });
}

/** Deny (managers) or withdraw (the requester). */
export function deleteAccessRequest(rc: RequestContext, source: MemberSource, userId: number): void {
  const me = rc.requireUser();
  const request = findAccessRequest(rc, source, userId);
  if (!request) throw recordNotFound();
  checkUnmodifiedSince(rc, request.updated_at);
  if (me.id !== userId && sourceAccess(rc, source) < manageMembersLevel(source)) throw forbidden();
  rc.svc.db.prepare('DELETE FROM members WHERE id = ?').run(request.id);
}
