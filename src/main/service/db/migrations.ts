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
  for (const m of migrations) {
    const digest = createHash('sha256').update(m.sql).digest('hex');
    const seen = applied.get(m.name);
    if (seen === digest) continue;
    if (seen) throw new Error(`migration ${m.name} was edited after it was applied; add a new migration instead`);
    db.transaction(() => {
      db.exec(m.sql);
      insert.run(m.name, digest, new Date().toISOString());
    })();
  }
}
