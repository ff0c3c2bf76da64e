import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { ServiceContext } from '../../context';
import { grapeError, validationError } from '../../http/errors';
import { isFilePart, type FilePart } from '../../http/params';

/**
 * Avatars of users, groups, projects and topics (GitLab's Avatarable): the file under
 * `<dataDir>/avatars/<owner>/<id>/<filename>`, its name in the owner's `avatar` column, served at
 * GitLab's `/uploads/-/system/<owner>/avatar/<id>/<filename>`.
 */
export type AvatarOwner = 'user' | 'group' | 'project' | 'topic';

const TABLES: Record<AvatarOwner, string> = { user: 'users', group: 'namespaces', project: 'projects', topic: 'topics' };
/** The model's upload path segment as GitLab's uploaders write it (Projects::Topic is `projects/topic`). */
export const AVATAR_URL_SEGMENTS: Record<AvatarOwner, string> = { user: 'user', group: 'group', project: 'project', topic: 'projects/topic' };

/** Avatarable: MAXIMUM_FILE_SIZE and the image formats it accepts. */
export const AVATAR_MAX_BYTES = 200 * 1024;
const AVATAR_FORMATS = ['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff', 'ico', 'webp'];

const avatarsRoot = (svc: ServiceContext): string => join(svc.dataDir, 'avatars');
const ownerDir = (svc: ServiceContext, owner: AvatarOwner, id: number): string => join(avatarsRoot(svc), owner, String(id));

/** The avatar's absolute URL, or null without one (Sandlab is offline: no Gravatar fallback). */
export function avatarUrl(baseUrl: string, owner: AvatarOwner, id: number, filename: string | null | undefined): string | null {
  return filename ? `${baseUrl}/uploads/-/system/${AVATAR_URL_SEGMENTS[owner]}/avatar/${id}/${encodeURIComponent(filename)}` : null;
}

/** The file on disk for a stored avatar, or null. */
export function avatarPath(svc: ServiceContext, owner: AvatarOwner, id: number, filename: string | null | undefined): string | null {
  if (!filename) return null;
  const path = join(ownerDir(svc, owner, id), filename);
  return existsSync(path) ? path : null;
}

/**
 * The `avatar` parameter: a file to set (checked as Avatarable checks it, 400 with the model's
 * errors), `""` to remove the avatar, undefined to leave it.
 */
export function readAvatarParam(raw: unknown): FilePart | '' | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (raw === '') return '';
  if (!isFilePart(raw)) throw grapeError(400, 'avatar is invalid');
  const errors: string[] = [];
  const ext = extname(raw.filename).slice(1).toLowerCase();
  if (!AVATAR_FORMATS.includes(ext)) errors.push(`file format is not supported. Please try one of the following supported formats: ${AVATAR_FORMATS.join(', ')}`);
  if (raw.size > AVATAR_MAX_BYTES) errors.push('is too big (should be at most 200 KiB)');
  if (errors.length) throw validationError({ avatar: errors });
  return raw;
}

/**
 * Sets or removes an owner's avatar. Call inside the owner's write transaction: the column and
 * the file change together (the new file is renamed into place; older files go once it is there).
 */
export function writeAvatar(svc: ServiceContext, owner: AvatarOwner, id: number, value: FilePart | ''): void {
  const dir = ownerDir(svc, owner, id);
  if (value === '') {
    svc.db.prepare(`UPDATE ${TABLES[owner]} SET avatar = NULL WHERE id = ?`).run(id);
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  const filename = safeFilename(value.filename);
  svc.db.prepare(`UPDATE ${TABLES[owner]} SET avatar = ? WHERE id = ?`).run(filename, id);
  mkdirSync(dir, { recursive: true });
  renameSync(value.path, join(dir, filename));
  for (const other of readdirSync(dir)) if (other !== filename) rmSync(join(dir, other), { force: true });
}

/** CarrierWave's sanitized file name: path parts dropped, anything but word characters, dots and dashes as `_`. */
function safeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() || 'avatar';
  const clean = base.replace(/[^\w.-]/g, '_').replace(/^\.+/, '');
  return clean || 'avatar';
}

/** On start: removes avatar files whose owner is gone or no longer names them. */
export function sweepOrphanedAvatars(svc: ServiceContext): void {
  const root = avatarsRoot(svc);
  if (!existsSync(root)) return;
  for (const owner of Object.keys(TABLES) as AvatarOwner[]) {
    const kindDir = join(root, owner);
    if (!existsSync(kindDir)) continue;
    const current = svc.db.prepare(`SELECT avatar FROM ${TABLES[owner]} WHERE id = ?`);
    for (const id of readdirSync(kindDir)) {
      const row = /^\d+$/.test(id) ? (current.get(Number(id)) as { avatar: string | null } | undefined) : undefined;
      const dir = join(kindDir, id);
      if (!row?.avatar) {
        rmSync(dir, { recursive: true, force: true });
        continue;
      }
      for (const file of readdirSync(dir)) if (file !== row.avatar) rmSync(join(dir, file), { force: true });
    }
  }
}
