import type { Migration } from '../db/migrations';

/**
 * Durable jobs (see runner.ts). `payload` and `progress` are JSON; a job's secret is never stored,
 * only the key it is held under in memory (`secret_key`). `job_steps` records each finished step
 * so that a resumed or retried job skips it.
 */
export const jobMigrations: Migration[] = [
  {
    name: 'jobs/001_initial',
    sql: `
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  subject TEXT,
  state TEXT NOT NULL DEFAULT 'created' CHECK (state IN ('created', 'started', 'finished', 'failed', 'canceled', 'timeout')),
  payload TEXT NOT NULL DEFAULT '{}',
  secret_key TEXT,
  progress TEXT NOT NULL DEFAULT '{"done":0,"total":0}',
  attempts INTEGER NOT NULL DEFAULT 0,
  heartbeat_at TEXT,
  error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT
);
CREATE INDEX jobs_state ON jobs (state, id);
CREATE INDEX jobs_subject ON jobs (subject, id);

CREATE TABLE job_steps (
  job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  result TEXT,
  finished_at TEXT NOT NULL,
  PRIMARY KEY (job_id, key)
) WITHOUT ROWID;
`,
  },
];
