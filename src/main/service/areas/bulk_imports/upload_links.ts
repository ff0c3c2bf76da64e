import { createWriteStream } from 'node:fs';
import { mkdir, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { inTransaction } from '../../db/connection';
import type { FilePart } from '../../http/params';
import { type UploadRow, mimeTypeFor, storeUpload } from '../uploads/uploads';
import type { EntityRun, RelationName } from './importer';
import { SourceError } from './source';
import { inParallel } from './users';

/** `/uploads/<32 hex>/<file>` in Markdown, relative or on the source's own URL (any project path before it). */
const UPLOAD_LINK = /(https?:\/\/[^\s()<>"'\]]*?)?\/uploads\/([0-9a-f]{32})\/([^\s()<>"'\]]+)/g;

interface Link {
  secret: string;
  /** As written in the Markdown (may be URL-encoded). */
  filename: string;
}

/** The mapping key of an upload found through a link. */
export const uploadLinkKey = (l: Link): string => `${l.secret}/${decodeName(l.filename)}`;

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/**
 * Uploads referenced from a project's descriptions and notes: each file is downloaded once from
 * the source (streamed to disk), stored as a destination upload, and every link to it rewritten
 * to the new secret. A file the source will not give is a failure record; its links stay as they were.
 */
export class UploadLinks {
  constructor(
    private readonly r: EntityRun,
    private readonly relation: RelationName,
    private readonly projectId: number,
  ) {}

  private links(text: string | null | undefined): Link[] {
    if (!text) return [];
    const out: Link[] = [];
    for (const m of text.matchAll(UPLOAD_LINK)) if (this.ours(m[1])) out.push({ secret: m[2], filename: m[3] });
    return out;
  }

  /** A relative link, or an absolute one on the source's base URL. */
  private ours(prefix: string | undefined): boolean {
    return !prefix || prefix.startsWith(this.r.source.base);
  }

  /** Copies every upload the texts link to and that is not copied yet. */
  async copyLinked(texts: (string | null | undefined)[], authorId: number): Promise<void> {
    const wanted = new Map<string, Link>();
    for (const text of texts) for (const l of this.links(text)) if (this.r.mapped('uploads', uploadLinkKey(l)) === undefined) wanted.set(uploadLinkKey(l), l);
    await inParallel([...wanted.values()], 4, async (l) => {
      try {
        await this.copy(l, authorId);
      } catch (err) {
        this.r.fail(this.relation, 'extractor', err, { url: this.r.source.webUrl(`/uploads/${l.secret}/${l.filename}`), title: decodeName(l.filename) });
      }
    });
  }

  /** The text with every link to a copied upload pointing at its copy. */
  rewrite(text: string | null): string | null {
    if (!text) return text;
    return text.replace(UPLOAD_LINK, (whole, prefix: string | undefined, secret: string, filename: string) => {
      if (!this.ours(prefix)) return whole;
      const id = this.r.mapped('uploads', uploadLinkKey({ secret, filename }));
      const u = id === undefined ? undefined : (this.r.svc.db.prepare('SELECT * FROM uploads WHERE id = ?').get(id) as UploadRow | undefined);
      return u ? `/uploads/${u.secret}/${encodeURIComponent(u.filename)}` : whole;
    });
  }

  private async copy(l: Link, authorId: number): Promise<void> {
    const name = decodeName(l.filename);
    const res = await this.download(`/projects/${this.r.xid}/uploads/${l.secret}/${encodeURIComponent(name)}`);
    const file = await saveToTemp(this.r, res, name);
    try {
      inTransaction(this.r.svc.db, () => {
        const u = storeUpload(this.r.svc, this.projectId, authorId, file);
        this.r.map('uploads', uploadLinkKey(l), u.id);
      });
    } finally {
      await unlink(file.path).catch(() => undefined);
    }
  }

  private async download(path: string): Promise<Response> {
    try {
      return await this.r.source.get(path);
    } catch (err) {
      if (!(err instanceof SourceError) || err.status !== 404) throw err;
      throw new SourceError(`${err.message} (the source has no such upload)`, 404, path);
    }
  }
}

/** Streams a source response into the data dir's tmp folder, never whole into memory. */
export async function saveToTemp(r: EntityRun, res: Response, filename: string): Promise<FilePart> {
  const dir = join(r.svc.dataDir, 'tmp');
  await mkdir(dir, { recursive: true });
  const path = join(dir, `import-${randomBytes(12).toString('hex')}`);
  let size = 0;
  const body = res.body ? Readable.fromWeb(res.body as unknown as WebReadableStream<Uint8Array>) : Readable.from([]);
  body.on('data', (chunk: Buffer) => (size += chunk.length));
  try {
    await pipeline(body, createWriteStream(path), { signal: r.job.signal });
  } catch (err) {
    await unlink(path).catch(() => undefined);
    throw err;
  }
  return { kind: 'file', filename, mimetype: mimeTypeFor(filename), path, size };
}
