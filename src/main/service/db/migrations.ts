import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';

/**
 * A migration is named `<area>/<NNN>_<what>`; areas keep their own numbering so that they never
 * collide. Its SQL is hashed: an applied migration whose text changed is refused, not re-run.
 */
export interface Migration {
  name: string;
  sql: string;
}

export function applyMigrations(db: Database.Database, migrations: Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    name TEXT PRIMARY KEY, sha256 TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Map(
    (db.prepare('SELECT name, sha256 FROM schema_migrations').all() as { name: string; sha256: string }[]).map(
      (r) => [r.name, r.sha256],
    ),
  );
  const insert = db.prepare('INSERT INTO schema_migrations (name, sha256, applied_at) VALUES (?, ?, ?)');
  const pending: (Migration & { digest: string })[] = [];
  for (const m of migrations) {
    const digest = createHash('sha256').update(m.sql).digest('hex');
    const seen = applied.get(m.name);
    if (seen === digest) continue;
    if (seen) throw new Error(`migration ${m.name} was edited after it was applied; add a new migration instead`);
    pending.push({ ...m, digest });
  }
  if (pending.length === 0) return;
  withSmallCache(db, () => {
    for (const m of pending) {
      db.transaction(() => {
        db.exec(m.sql);
        insert.run(m.name, m.digest, new Date().toISOString());
      })();
    }
  });
}

/** Page cache, in KiB (SQLite's negative cache_size), while migrations run. */
export const MIGRATION_CACHE_KIB = 2000;

/**
 * Runs `fn` with a small page cache for the main and temp databases, then puts the sizes back.
 * A migration over a million rows (an UPDATE ... FROM of every label row, an index built over
 * them, a GROUP BY into counters) fills the caches with pages no request reads again (16 MB each
 * in better-sqlite3's build), and the process keeps that heap once the cache lets it go:
 * freed pages sit between live ones, where malloc cannot hand them back (shrink_memory does not
 * help). A first open of a million-issue data dir ended ~30 MB larger than any later open.
 * The same migrations ran no slower with 2 MB: their pages are each touched in one sweep.
 */
function withSmallCache(db: Database.Database, fn: () => void): void {
  const main = db.pragma('main.cache_size', { simple: true }) as number;
  const temp = db.pragma('temp.cache_size', { simple: true }) as number;
  db.pragma(`main.cache_size = ${-MIGRATION_CACHE_KIB}`);
  db.pragma(`temp.cache_size = ${-MIGRATION_CACHE_KIB}`);
  try {
    fn();
  } finally {
    db.pragma(`main.cache_size = ${main}`);
    db.pragma(`temp.cache_size = ${temp}`);
  }
}
