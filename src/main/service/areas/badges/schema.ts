import type { Migration } from '../../db/migrations';

/** Project badges and group badges (which every project below the group shows too). */
export const badgeMigrations: Migration[] = [
  {
    name: 'badges/001_initial',
    sql: `
CREATE TABLE badges (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('project', 'group')),
  project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
  group_id INTEGER REFERENCES namespaces(id) ON DELETE CASCADE,
  name TEXT,
  link_url TEXT NOT NULL,
  image_url TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK ((kind = 'project' AND project_id IS NOT NULL AND group_id IS NULL) OR (kind = 'group' AND group_id IS NOT NULL AND project_id IS NULL))
);
CREATE INDEX badges_project ON badges (project_id, id);
CREATE INDEX badges_group ON badges (group_id, id);
`,
  },
];
