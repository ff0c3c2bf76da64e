import type { Migration } from '../../db/migrations';

/** GitLab's spam_logs: what the spam check caught, and whether a solved CAPTCHA let it through. */
export const spamMigrations: Migration[] = [
  {
    name: 'spam/001_spam_logs',
    sql: `
CREATE TABLE spam_logs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  source_ip TEXT,
  user_agent TEXT,
  via_api INTEGER NOT NULL DEFAULT 1,
  noteable_type TEXT NOT NULL,
  title TEXT,
  description TEXT,
  submitted_as_ham INTEGER NOT NULL DEFAULT 0,
  recaptcha_verified INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX spam_logs_user ON spam_logs (user_id, id);
`,
  },
];
