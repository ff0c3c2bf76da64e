import type { ServiceContext } from '../../../context';
import { inTransaction } from '../../../db/connection';
import type { JobContext } from '../../../jobs/runner';
import { ApiError } from '../../../http/errors';
import { createSnippet } from '../../snippets/snippets';
import { ProviderError } from '../providers/http';
import { type AGist, ProviderAClient } from '../providers/providera';
import { providerOptions } from './stages';

/**
 * A user's gists into their personal snippets (GitLab's GithubGistsImport): each gist of at most
 * ten files becomes a snippet with every file and its content; a larger one is skipped and
 * reported (GitLab mails the list; Sandlab keeps it on the user's gists import).
 */

export const GIST_MAX_FILES = 10;
const FILE_COUNT_LIMIT_MESSAGE = 'Snippet maximum file count exceeded';

export interface GistImportRow {
  user_id: number;
  status: 'started' | 'finished' | 'failed';
  api_url: string;
  imported_count: number;
  skipped: string;
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

export function findGistImport(svc: ServiceContext, userId: number): GistImportRow | undefined {
  return svc.db.prepare('SELECT * FROM gist_imports WHERE user_id = ?').get(userId) as GistImportRow | undefined;
}

export interface SkippedGist {
  id: string;
  description: string | null;
  reason: string;
}

export async function importGists(svc: ServiceContext, job: JobContext<{ userId: number }>): Promise<void> {
  const userId = job.payload.userId;
  const row = findGistImport(svc, userId);
  if (!row) throw new Error('The gists import was removed.');
  const client = new ProviderAClient(row.api_url, job.secret(), 100, providerOptions(svc, job));
  let url: string | null = client.lists.gists();
  for (let n = 1; url; n++) {
    const current: string = url;
    url = await job.step(`gists:${n}`, async () => {
      const page = await client.page<AGist>(current);
      for (const gist of page.items) {
        await job.checkpoint();
        await importGist(svc, client, userId, gist);
      }
      return page.next;
    });
    job.progress({ done: n, total: url ? n + 1 : n, message: `gists (page ${n})` });
  }
}

async function importGist(svc: ServiceContext, client: ProviderAClient, userId: number, gist: AGist): Promise<void> {
  if (svc.db.prepare('SELECT 1 FROM gist_import_records WHERE user_id = ? AND gist_id = ?').get(userId, gist.id)) return;
  const files = Object.values(gist.files);
  if (files.length > GIST_MAX_FILES) return skip(svc, userId, gist, FILE_COUNT_LIMIT_MESSAGE);
  try {
    // The raw URLs of a gist's files need no credentials (GitLab reads them plainly too).
    const contents = await Promise.all(files.map(async (f) => ({ path: f.filename, content: f.truncated === false && f.content !== undefined ? f.content : await client.http.getText(f.raw_url, false) })));
    inTransaction(svc.db, () => {
      const snippet = createSnippet(svc, {
        projectId: null,
        authorId: userId,
        title: (gist.description?.trim() || files[0]?.filename || gist.id).slice(0, 255),
        visibility: gist.public ? 'public' : 'private',
        files: contents,
        imported: true,
        importedFrom: 'github',
        createdAt: gist.created_at,
        updatedAt: gist.updated_at,
      });
      svc.db.prepare('INSERT INTO gist_import_records (user_id, gist_id, snippet_id) VALUES (?, ?, ?)').run(userId, gist.id, snippet.id);
      svc.db.prepare('UPDATE gist_imports SET imported_count = imported_count + 1 WHERE user_id = ?').run(userId);
    });
  } catch (err) {
    // A gist the snippet rules refuse, or whose file the provider will not give, is skipped;
    // a cancel, a spent rate limit or an unreachable provider ends the import.
    if (!(err instanceof ApiError || err instanceof ProviderError)) throw err;
    skip(svc, userId, gist, apiErrorText(err));
  }
}

function skip(svc: ServiceContext, userId: number, gist: AGist, reason: string): void {
  const entry: SkippedGist = { id: gist.id, description: gist.description, reason };
  svc.db
    .prepare(
      `UPDATE gist_imports SET skipped = json_insert(skipped, '$[#]', json(?))
       WHERE user_id = ? AND NOT EXISTS (SELECT 1 FROM json_each(skipped) WHERE json_extract(value, '$.id') = ?)`,
    )
    .run(JSON.stringify(entry), userId, gist.id);
}

/** What a refused gist's error says: the snippet rule's message, or the provider's. */
function apiErrorText(err: ApiError | ProviderError): string {
  if (err instanceof ProviderError) return err.message;
  const body = err.body as { message?: unknown; error?: unknown } | null;
  const m = body?.error ?? body?.message;
  return typeof m === 'string' ? m : JSON.stringify(m ?? err.message);
}
