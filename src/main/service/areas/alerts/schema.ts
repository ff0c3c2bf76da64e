import type { Migration } from '../../db/migrations';

export const alertMigrations: Migration[] = [
  {
    name: 'alerts/001_initial',
    sql: `
CREATE TABLE alert_integrations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('http', 'prometheus')),
  active INTEGER NOT NULL,
  endpoint_identifier TEXT NOT NULL UNIQUE,
  token_digest TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX alert_integrations_project ON alert_integrations (project_id, id);

CREATE TABLE alerts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  iid INTEGER NOT NULL,
  integration_id INTEGER REFERENCES alert_integrations(id) ON DELETE SET NULL,
  title TEXT NOT NULL,
  description TEXT,
  status TEXT NOT NULL CHECK (status IN ('triggered', 'acknowledged', 'resolved', 'ignored')),
  severity TEXT NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  events INTEGER NOT NULL DEFAULT 1,
  fingerprint TEXT,
  service TEXT,
  monitoring_tool TEXT,
  hosts TEXT NOT NULL DEFAULT '[]',
  environment TEXT,
  runbook TEXT,
  payload TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX alerts_project_iid ON alerts (project_id, iid);
-- GitLab allows one unresolved alert per fingerprint.
CREATE UNIQUE INDEX alerts_open_fingerprint ON alerts (project_id, fingerprint)
  WHERE fingerprint IS NOT NULL AND status <> 'resolved';

-- The alert's timeline (GitLab's system notes on alerts): created, repeated, resolved, status changes.
CREATE TABLE alert_notes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  alert_id INTEGER NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
  author_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  body TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX alert_notes_alert ON alert_notes (alert_id, id);
`,
  },
];
