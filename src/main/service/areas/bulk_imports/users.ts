import type { ServiceContext } from '../../context';
import { findUserByEmail, findUserByUsername } from '../core/users';
import { type EntityRow, mappedId, recordMapping } from './bulk_imports';
import type { SourceClient } from './source';

/** A user as the source shows it (a member, an author, an assignee). */
export interface SourceUser {
  id: number;
  username: string;
  name?: string;
  email?: string | null;
  public_email?: string | null;
  web_url?: string;
}

/**
 * Source users -> destination users: by e-mail first (what the source shows: `email` to an admin
 * token, else `public_email`, read from `/users/:id` when the record carried neither), then by
 * username. Matches are kept for the whole import (`bulk_import_records`, relation `users`), so
 * each source user is looked up once across entities and restarts; a miss only for this run.
 */
export class UserMapper {
  private readonly memo = new Map<number, number | null>();

  constructor(
    private readonly svc: ServiceContext,
    private readonly entity: EntityRow,
    private readonly source: SourceClient,
  ) {}

  /** The destination user id, or null when nobody here matches. */
  async resolve(u: SourceUser | null | undefined): Promise<number | null> {
    if (!u || typeof u.id !== 'number') return null;
    if (this.memo.has(u.id)) return this.memo.get(u.id)!;
    const known = mappedId(this.svc, this.entity.bulk_import_id, 'users', u.id);
    if (known !== undefined) {
      this.memo.set(u.id, known);
      return known;
    }
    const id = await this.lookup(u);
    this.memo.set(u.id, id);
    // Only matches are kept: someone who gets an account here later is found by a retry.
    if (id !== null) recordMapping(this.svc, this.entity, 'users', u.id, id, null);
    return id;
  }

  /** Resolves many at once (a page of issues and their notes), a few lookups in parallel. */
  async prefetch(users: (SourceUser | null | undefined)[]): Promise<void> {
    const unique = [...new Map(users.filter((u): u is SourceUser => !!u && typeof u.id === 'number').map((u) => [u.id, u])).values()];
    await inParallel(unique, 8, (u) => this.resolve(u));
  }

  /** An already resolved user (after `prefetch`/`resolve`), or null. */
  known(u: SourceUser | null | undefined): number | null {
    return u && this.memo.has(u.id) ? this.memo.get(u.id)! : null;
  }

  private lookup(u: SourceUser): Promise<number | null> {
    return matchUser(this.svc, this.source, u);
  }
}

/** The destination user a source user maps to (e-mail first, then username), or null. Reads only. */
export async function matchUser(svc: ServiceContext, source: SourceClient, u: SourceUser): Promise<number | null> {
  let emails = [u.email, u.public_email].filter((e): e is string => !!e);
  if (!emails.length) {
    try {
      const full = await source.getJson<{ email?: string | null; public_email?: string | null }>(`/users/${u.id}`);
      emails = [full.email, full.public_email].filter((e): e is string => !!e);
    } catch {
      // A source that hides its users still maps by username.
    }
  }
  for (const email of emails) {
    const byEmail = findUserByEmail(svc, email);
    if (byEmail) return byEmail.id;
  }
  return findUserByUsername(svc, u.username)?.id ?? null;
}

/** Runs `work` over `items`, at most `limit` at a time, in order of completion. */
export async function inParallel<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]);
    }
  });
  await Promise.all(lanes);
  return out;
}
