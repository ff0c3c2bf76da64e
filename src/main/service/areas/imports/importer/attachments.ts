import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inTransaction } from '../../../db/connection';
import { sanitizeFilename, storeUpload } from '../../uploads/uploads';
import { type ProviderHttp, RateLimitError } from '../providers/http';
import { countObjects } from '../imports';
import type { ImportRun } from './run';

/**
 * The `attachments_import` stage: files the imported descriptions and comments link to on the
 * provider (images and files uploaded there) are downloaded into the project's uploads and the
 * links rewritten to them, so they outlive the upstream repository (GitLab's attachments
 * importer). Rewriting is what marks a link done, so a resumed stage picks up where it stopped.
 */

/** Hosts GitHub serves attachments from, besides the provider's own web host. */
const ATTACHMENT_HOSTS = ['github.com', 'user-images.githubusercontent.com', 'private-user-images.githubusercontent.com', 'objects.githubusercontent.com'];
const ATTACHMENT_PATH = /^\/(user-attachments\/(assets|files)\/|[^/]+\/[^/]+\/(assets|files)\/)/;
const MARKDOWN_LINK = /(!?\[[^\]]*\]\()(https?:\/\/[^\s)]+)(\))/g;

const TABLES = [
  { table: 'issues', column: 'description' },
  { table: 'merge_requests', column: 'description' },
  { table: 'notes', column: 'body' },
] as const;

export async function importAttachments(run: ImportRun, http: ProviderHttp, providerOrigin: string): Promise<void> {
  const isAttachment = (raw: string): boolean => {
    const url = new URL(raw);
    if (url.origin === providerOrigin || ATTACHMENT_HOSTS.includes(url.hostname)) return ATTACHMENT_PATH.test(url.pathname) || url.hostname.endsWith('githubusercontent.com');
    return false;
  };
  const uploaded = new Map<string, string>();
  for (const { table, column } of TABLES) {
    for (let lastId = 0; ; ) {
      await run.job.checkpoint();
      const rows = run.svc.db
        .prepare(`SELECT id, ${column} AS text FROM ${table} WHERE project_id = ? AND imported_from = ? AND id > ? ORDER BY id LIMIT 100`)
        .all(run.projectId, run.provider, lastId) as { id: number; text: string | null }[];
      if (!rows.length) break;
      lastId = rows[rows.length - 1].id;
      for (const row of rows) {
        const links = [...(row.text ?? '').matchAll(MARKDOWN_LINK)].map((m) => m[2]).filter((u) => !uploaded.has(u) && isAttachment(u));
        for (const link of new Set(links)) {
          countObjects(run.svc, run.projectId, 'fetched', 'attachment');
          try {
            uploaded.set(link, await download(run, http, link));
            countObjects(run.svc, run.projectId, 'imported', 'attachment');
          } catch (err) {
            if (err instanceof RateLimitError || run.job.signal.aborted) throw err;
            run.recordFailure('attachments', 'attachment', new Error(`${link}: ${(err as Error).message}`), row.id);
          }
        }
        const rewritten = (row.text ?? '').replace(MARKDOWN_LINK, (whole, open: string, url: string, close: string) => (uploaded.has(url) ? `${open}${uploaded.get(url)}${close}` : whole));
        if (rewritten !== row.text) {
          inTransaction(run.svc.db, () => run.svc.db.prepare(`UPDATE ${table} SET ${column} = ? WHERE id = ?`).run(rewritten, row.id));
        }
      }
    }
  }
}

/** Downloads one attachment into the project's uploads; returns the upload's project-relative URL. */
async function download(run: ImportRun, http: ProviderHttp, link: string): Promise<string> {
  const { bytes } = await http.getBytes(link);
  if (bytes.length > run.svc.limits.maxUploadBytes) throw new Error(`larger than ${run.svc.limits.maxUploadBytes} bytes`);
  const name = sanitizeFilename(decodeURIComponent(new URL(link).pathname.split('/').pop() || 'attachment'));
  const tmpDir = join(run.svc.dataDir, 'tmp');
  mkdirSync(tmpDir, { recursive: true });
  const path = join(tmpDir, randomBytes(16).toString('hex'));
  writeFileSync(path, bytes);
  try {
    const upload = storeUpload(run.svc, run.projectId, run.row.user_id ?? 1, { kind: 'file', filename: name, mimetype: '', path, size: bytes.length });
    run.job.progress({ message: `attachments (${name})` });
    return `/uploads/${upload.secret}/${upload.filename}`;
  } finally {
    rmSync(path, { force: true });
  }
}
