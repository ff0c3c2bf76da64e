import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { ServiceContext } from '../../context';
import { inTransaction } from '../../db/connection';
import type { FilePart } from '../../http/params';
import { isoTime } from '../core/time';

export interface UploadRow {
  id: number;
  project_id: number;
  secret: string;
  filename: string;
  size: number;
  mime_type: string;
  uploaded_by_user_id: number | null;
  created_at: string;
}

const IMAGE_EXT = ['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff', 'ico', 'webp'];
const VIDEO_EXT = ['mp4', 'm4v', 'mov', 'webm', 'ogv'];
const AUDIO_EXT = ['mp3', 'oga', 'ogg', 'spx', 'wav'];
/** Rendered as images in Markdown (`![..]`) but not named like them (Gitlab::FileTypeDetection). */
const DANGEROUS_IMAGE_EXT = ['svg'];

const MIME_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tiff: 'image/tiff',
  ico: 'image/vnd.microsoft.icon',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  ogv: 'video/ogg',
  mp3: 'audio/mpeg',
  oga: 'audio/ogg',
  ogg: 'audio/ogg',
  spx: 'audio/ogg',
  wav: 'audio/x-wav',
  txt: 'text/plain',
  log: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  json: 'application/json',
  xml: 'application/xml',
  yml: 'application/x-yaml',
  yaml: 'application/x-yaml',
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  tar: 'application/x-tar',
};

const extOf = (filename: string): string => extname(filename).slice(1).toLowerCase();

export const mimeTypeFor = (filename: string): string => MIME_TYPES[extOf(filename)] ?? 'application/octet-stream';

/**
 * CarrierWave's sanitized name: the base name only, anything but word characters, `.`, `-` and
 * `+` replaced by `_`, never only dots, never empty, and short enough for any file system.
 */
export function sanitizeFilename(name: string): string {
  let out = basename(name.replace(/\\/g, '/'));
  out = out.replace(/[^\p{L}\p{N}\p{M}_.\-+]/gu, '_');
  if (/^\.+$/.test(out)) out = `_${out}`;
  if (!out) out = 'unnamed';
  while (Buffer.byteLength(out, 'utf8') > 200) {
    const ext = extname(out);
    const stem = out.slice(0, out.length - ext.length);
    out = stem.length > 1 ? stem.slice(0, -1) + ext : out.slice(1);
  }
  return out;
}

export const uploadsRoot = (svc: ServiceContext): string => join(svc.dataDir, 'uploads');

/** Built from the row only (numeric id, our hex secret, the sanitized name): never from client text. */
export const uploadPath = (svc: ServiceContext, u: UploadRow): string => join(uploadsRoot(svc), String(u.project_id), u.secret, u.filename);

/** The Markdown a client pastes: images and videos show inline and lose their extension in `alt`. */
export function markdownFor(filename: string, url: string): { alt: string; markdown: string } {
  const ext = extOf(filename);
  const imageOrVideo = IMAGE_EXT.includes(ext) || VIDEO_EXT.includes(ext);
  const embeddable = imageOrVideo || AUDIO_EXT.includes(ext) || DANGEROUS_IMAGE_EXT.includes(ext);
  const alt = (imageOrVideo ? basename(filename, extname(filename)) : filename).replace(/]/g, '\\]');
  return { alt, markdown: `${embeddable ? '!' : ''}[${alt}](${url})` };
}

export function findUpload(svc: ServiceContext, projectId: number, id: number): UploadRow | undefined {
  return svc.db.prepare('SELECT * FROM uploads WHERE project_id = ? AND id = ?').get(projectId, id) as UploadRow | undefined;
}

export function findUploadBySecret(svc: ServiceContext, projectId: number, secret: string, filename: string): UploadRow | undefined {
  return svc.db.prepare('SELECT * FROM uploads WHERE project_id = ? AND secret = ? AND filename = ?').get(projectId, secret, filename) as
    | UploadRow
    | undefined;
}

/**
 * Keeps an uploaded file: the temp file is renamed under a fresh secret inside the same
 * transaction that inserts its row, so the file and the row exist together or not at all.
 */
export function storeUpload(svc: ServiceContext, projectId: number, userId: number, file: FilePart): UploadRow {
  const secret = randomBytes(16).toString('hex');
  const filename = sanitizeFilename(file.filename || 'unnamed');
  const dir = join(uploadsRoot(svc), String(projectId), secret);
  try {
    return inTransaction(svc.db, () => {
      const info = svc.db
        .prepare(
          `INSERT INTO uploads (project_id, secret, filename, size, mime_type, uploaded_by_user_id, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(projectId, secret, filename, file.size, mimeTypeFor(filename), userId, isoTime(svc.now()));
      mkdirSync(dir, { recursive: true });
      renameSync(file.path, join(dir, filename));
      return svc.db.prepare('SELECT * FROM uploads WHERE id = ?').get(Number(info.lastInsertRowid)) as UploadRow;
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** Deletes the row, then the file and its secret folder. */
export function destroyUpload(svc: ServiceContext, u: UploadRow): void {
  svc.db.prepare('DELETE FROM uploads WHERE id = ?').run(u.id);
  rmSync(join(uploadsRoot(svc), String(u.project_id), u.secret), { recursive: true, force: true });
}

/**
 * On start: removes files whose project or row is gone (deleted projects, a crash between
 * rename and commit), so the folder holds exactly what the table lists.
 */
export function sweepOrphanedUploads(svc: ServiceContext): void {
  const root = uploadsRoot(svc);
  if (!existsSync(root)) return;
  const hasProject = svc.db.prepare('SELECT 1 FROM projects WHERE id = ?');
  const hasSecret = svc.db.prepare('SELECT 1 FROM uploads WHERE project_id = ? AND secret = ? LIMIT 1');
  for (const projectDir of readdirSync(root)) {
    const path = join(root, projectDir);
    if (!/^\d+$/.test(projectDir) || !hasProject.get(Number(projectDir))) {
      rmSync(path, { recursive: true, force: true });
      continue;
    }
    for (const secret of readdirSync(path)) {
      if (!hasSecret.get(Number(projectDir), secret)) rmSync(join(path, secret), { recursive: true, force: true });
    }
  }
}
