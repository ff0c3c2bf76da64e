import { createHash, randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../context';
import type { RequestContext } from '../../http/route';
import { ApiError, notFound, validationError } from '../../http/errors';
import { MEMBER_ACCESS_LEVELS, PROJECT_MEMBER_ACCESS_LEVELS } from '../core/access';
import type { MemberRow } from '../core/entities';
import { recordEvent } from '../core/events';
import { type MemberSource, addMember, checkGrant, directMember } from '../core/members';
import { type User, findUserByEmail, findUserByIdOrUsername } from '../core/users';
import { isoTime, today } from '../core/time';

export const EMAIL_RE = /^[^@\s,]+@[^@\s,]+\.[^@\s,]+$/;

export interface InviteRequest {
  emails: string[];
  userIds: string[];
  accessLevel: number;
  expiresAt: string | null;
}

/** Pending invitations of a source (member rows without a user), optionally one e-mail. */
export function pendingInvitations(svc: ServiceContext, source: MemberSource, email?: string | null): MemberRow[] {
  const byEmail = email ? ' AND lower(invite_email) = lower(?)' : '';
  return svc.db
    .prepare(
      `SELECT * FROM members WHERE source_type = ? AND source_id = ? AND user_id IS NULL AND invite_token IS NOT NULL${byEmail} ORDER BY id`,
    )
    .all(source.type, source.id, ...(email ? [email] : [])) as MemberRow[];
}

export function findInvitation(svc: ServiceContext, source: MemberSource, email: string): MemberRow {
  const row = pendingInvitations(svc, source, email)[0];
  if (!row) throw notFound();
  return row;
}

/**
 * Members::InviteService: invites every e-mail and user; each failure is reported under its
 * e-mail or username while the others still go through. Call inside a transaction.
 */
export function invite(rc: RequestContext, source: MemberSource, req: InviteRequest): Record<string, string> {
  const errors: Record<string, string> = {};
  const levels: readonly number[] = source.type === 'Project' ? PROJECT_MEMBER_ACCESS_LEVELS : MEMBER_ACCESS_LEVELS;
  const common = (): string | null => {
    if (!levels.includes(req.accessLevel)) return 'Access level is not included in the list';
    if (req.expiresAt && req.expiresAt <= today(rc.svc)) return 'Expires at cannot be a date in the past';
    return null;
  };
  for (const ref of req.userIds) {
    const user = findUserByIdOrUsername(rc.svc, ref);
    if (!user) {
      errors[ref] = 'User not found';
      continue;
    }
    const error = common() ?? addExistingUser(rc, source, user, req);
    if (error) errors[user.username] = error;
  }
  for (const email of req.emails) {
    const user = findUserByEmail(rc.svc, email);
    const error = common() ?? (user ? addExistingUser(rc, source, user, req) : addPendingInvite(rc, source, email, req));
    if (error) errors[email] = error;
  }
  return errors;
}

function addExistingUser(rc: RequestContext, source: MemberSource, user: User, req: InviteRequest): string | null {
  if (directMember(rc.svc, source, user.id)) return 'User already exists in source';
  const change = { accessLevel: req.accessLevel, expiresAt: req.expiresAt };
  try {
    checkGrant(rc, source, user.id, change);
  } catch (err) {
    return grantError(err);
  }
  addMember(rc, source, user.id, change);
  return null;
}

function addPendingInvite(rc: RequestContext, source: MemberSource, email: string, req: InviteRequest): string | null {
  if (pendingInvitations(rc.svc, source, email).length) return 'Invite email has already been taken';
  const now = isoTime(rc.svc.now());
  rc.svc.db
    .prepare(
      `INSERT INTO members (source_type, source_id, user_id, access_level, expires_at, created_by_id, invite_email, invite_token, created_at, updated_at)
       VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(source.type, source.id, req.accessLevel, req.expiresAt, rc.user?.id ?? null, email, newInviteToken(), now, now);
  return null;
}

/** Like GitLab (Devise's token generator), only a digest of the invitation token is kept. */
function newInviteToken(): string {
  return createHash('sha256').update(randomBytes(20)).digest('hex');
}

/** A refused grant as the per-e-mail sentence GitLab's full_messages would give. */
function grantError(err: unknown): string {
  if (err instanceof ApiError && err.status === 400 && err.body && typeof err.body.message === 'object') {
    const [[field, msgs]] = Object.entries(err.body.message as Record<string, string[]>);
    const label = field.charAt(0).toUpperCase() + field.slice(1).replace(/_/g, ' ');
    return `${label} ${msgs[0]}`;
  }
  if (err instanceof ApiError && err.status === 403) return 'You are not authorized to create member';
  throw err;
}

export interface InvitationChange {
  accessLevel?: number;
  expiresAt?: string | null;
}

export function updateInvitation(rc: RequestContext, source: MemberSource, inv: MemberRow, change: InvitationChange): MemberRow {
  const levels: readonly number[] = source.type === 'Project' ? PROJECT_MEMBER_ACCESS_LEVELS : MEMBER_ACCESS_LEVELS;
  if (change.accessLevel !== undefined && !levels.includes(change.accessLevel)) {
    throw validationError({ access_level: ['is not included in the list'] });
  }
  if (change.expiresAt && change.expiresAt <= today(rc.svc)) throw validationError({ expires_at: ['cannot be a date in the past'] });
  rc.svc.db
    .prepare('UPDATE members SET access_level = ?, expires_at = ?, updated_at = ? WHERE id = ?')
    .run(change.accessLevel ?? inv.access_level, change.expiresAt === undefined ? inv.expires_at : change.expiresAt, isoTime(rc.svc.now()), inv.id);
  return rc.svc.db.prepare('SELECT * FROM members WHERE id = ?').get(inv.id) as MemberRow;
}

/**
 * A new user whose e-mail has pending invitations becomes the member they were invited as
 * (GitLab accepts pending invitations for a confirmed e-mail). Runs in createUser's transaction.
 */
export function acceptPendingInvitations(svc: ServiceContext, user: User): void {
  const rows = svc.db
    .prepare('SELECT * FROM members WHERE user_id IS NULL AND invite_token IS NOT NULL AND lower(invite_email) = lower(?) ORDER BY id')
    .all(user.email) as MemberRow[];
  const now = isoTime(svc.now());
  for (const m of rows) {
    svc.db
      .prepare('UPDATE members SET user_id = ?, invite_token = NULL, invite_accepted_at = ?, updated_at = ? WHERE id = ?')
      .run(user.id, now, now, m.id);
    recordEvent(svc, {
      action: 'joined',
      authorId: user.id,
      projectId: m.source_type === 'Project' ? m.source_id : null,
      groupId: m.source_type === 'Namespace' ? m.source_id : null,
    });
  }
}
