import type { ServiceContext } from '../../context';
import { conflict, validationError } from '../../http/errors';
import { type User, findUserById, findUserByEmail, findUserByUsername, hashPassword } from './users';
import { isoTime } from './time';

export interface NewUser {
  username: string;
  name: string;
  email: string;
  password?: string | null;
  admin?: boolean;
  external?: boolean;
  bot?: boolean;
  userType?: string;
  bio?: string;
  location?: string;
  websiteUrl?: string;
  organization?: string;
  jobTitle?: string;
  note?: string | null;
  publicEmail?: string | null;
  privateProfile?: boolean;
  projectsLimit?: number;
  canCreateGroup?: boolean;
  createdById?: number | null;
  /** SAML/LDAP identity created with the user (users API `provider`, `extern_uid`, `group_id_for_saml`). */
  identity?: { provider: string; externUid: string; samlGroupId: number | null } | null;
}

/**
 * Runs inside createUser's transaction once the user exists (areas register here, e.g. pending
 * invitations for the new e-mail turn into memberships).
 */
export const userCreatedHooks: ((svc: ServiceContext, user: User) => void)[] = [];

const USERNAME_RE = /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*$/;

/** Validates and creates a user with its personal namespace. Call inside a transaction. */
export function createUser(svc: ServiceContext, input: NewUser): User {
  const errors: Record<string, string[]> = {};
  if (!USERNAME_RE.test(input.username) || /\.(git|atom)$/.test(input.username) || input.username.endsWith('.')) {
    errors.username = ['can contain only letters, digits, \'_\', \'-\' and \'.\'. Cannot start with \'-\' or end in \'.\', \'.git\' or \'.atom\'.'];
  }
  if (input.username.length > 255) errors.username = ['is too long (maximum is 255 characters)'];
  if (!/^[^@\s]+@[^@\s]+$/.test(input.email)) errors.email = ['is invalid'];
  if (input.name.length > 255) errors.name = ['is too long (maximum is 255 characters)'];
  if (input.password !== undefined && input.password !== null && input.password.length < 8) {
    errors.password = ['is too short (minimum is 8 characters)'];
  }
  if (Object.keys(errors).length) throw validationError(errors);
  if (findUserByEmail(svc, input.email)) throw conflict('Email has already been taken');
  if (findUserByUsername(svc, input.username) || namespacePathTaken(svc, input.username)) {
    throw conflict('Username has already been taken');
  }
  const now = isoTime(svc.now());
  const info = svc.db
    .prepare(
      `INSERT INTO users (username, name, email, public_email, password_digest, admin, bot, user_type, external, private_profile,
         bio, location, website_url, organization, job_title, note, projects_limit, can_create_group, created_by_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      input.username,
      input.name,
      input.email,
      input.publicEmail ?? null,
      // No password given: none is stored (GitLab sets a random one; nobody signs in with it either).
      input.password ? hashPassword(input.password) : null,
      input.admin ? 1 : 0,
      input.bot ? 1 : 0,
      input.userType ?? 'human',
      input.external ? 1 : 0,
      input.privateProfile ? 1 : 0,
      input.bio ?? '',
      input.location ?? '',
      input.websiteUrl ?? '',
      input.organization ?? '',
      input.jobTitle ?? '',
      input.note ?? null,
      input.projectsLimit ?? 100000,
      input.canCreateGroup === false ? 0 : 1,
      input.createdById ?? null,
      now,
      now,
    );
  const id = Number(info.lastInsertRowid);
  svc.db
    .prepare(
      `INSERT INTO namespaces (kind, name, path, full_path, owner_id, visibility, created_at, updated_at)
       VALUES ('user', ?, ?, ?, ?, 'private', ?, ?)`,
    )
    .run(input.username, input.username, input.username, id, now, now);
  if (input.identity) {
    svc.db
      .prepare('INSERT INTO identities (user_id, provider, extern_uid, saml_group_id, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(id, input.identity.provider, input.identity.externUid, input.identity.samlGroupId, now);
  }
  const user = findUserById(svc, id)!;
  for (const hook of userCreatedHooks) hook(svc, user);
  return user;
}

function namespacePathTaken(svc: ServiceContext, path: string): boolean {
  return !!svc.db.prepare('SELECT 1 FROM namespaces WHERE parent_id IS NULL AND lower(path) = lower(?)').get(path);
}
