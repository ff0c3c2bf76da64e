import type { Migration } from '../../db/migrations';

/**
 * Migrations by direct transfer. A bulk import holds entities (groups and projects to copy); each
 * entity runs as a durable job (`bulk_import_entity`), records per-relation stats and per-record
 * failures, and maps every source record it copied to the destination record it made
 * (`bulk_import_records`), so that a resumed or retried run never copies a record twice. The source
 * token is never stored: it lives in the job runner's memory.
 */
export const bulkImportMigrations: Migration[] = [
  {
    name: 'bulk_imports/001_initial',
    sql: `
CREATE TABLE bulk_imports (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  status TEXT NOT NULL DEFAULT 'created' CHECK (status IN ('created', 'started', 'finished', 'failed', 'canceled', 'timeout')),
  source_type TEXT NOT NULL DEFAULT 'gitlab',
  source_url TEXT NOT NULL,
  source_version TEXT,
  source_enterprise INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX bulk_imports_user ON bulk_imports (user_id, created_at);

CREATE TABLE bulk_import_entities (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  bulk_import_id INTEGER NOT NULL REFERENCES bulk_imports(id) ON DELETE CASCADE,
  parent_id INTEGER REFERENCES bulk_import_entities(id) ON DELETE CASCADE,
  entity_type TEXT NOT NULL CHECK (entity_type IN ('group', 'project')),
  status TEXT NOT NULL DEFAULT 'created' CHECK (status IN ('created', 'started', 'finished', 'failed', 'canceled', 'timeout')),
  source_full_path TEXT NOT NULL,
  source_xid INTEGER,
  destination_slug TEXT NOT NULL,
  destination_namespace TEXT NOT NULL,
  namespace_id INTEGER REFERENCES namespaces(id) ON DELETE SET NULL,
  project_id INTEGER REFERENCES projects(id) ON DELETE SET NULL,
  migrate_projects INTEGER NOT NULL DEFAULT 1,
  migrate_memberships INTEGER NOT NULL DEFAULT 1,
  job_id INTEGER REFERENCES jobs(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX bulk_import_entities_import ON bulk_import_entities (bulk_import_id, id);
CREATE INDEX bulk_import_entities_parent ON bulk_import_entities (parent_id);

-- Per relation of an entity: records the source has, fetched, imported (GitLab's trackers).
CREATE TABLE bulk_import_stats (
  entity_id INTEGER NOT NULL REFERENCES bulk_import_entities(id) ON DELETE CASCADE,
  relation TEXT NOT NULL,
  source INTEGER NOT NULL DEFAULT 0,
  fetched INTEGER NOT NULL DEFAULT 0,
  imported INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (entity_id, relation)
) WITHOUT ROWID;

CREATE TABLE bulk_import_failures (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  entity_id INTEGER NOT NULL REFERENCES bulk_import_entities(id) ON DELETE CASCADE,
  relation TEXT NOT NULL,
  pipeline_class TEXT NOT NULL,
  pipeline_step TEXT NOT NULL,
  exception_class TEXT NOT NULL,
  exception_message TEXT NOT NULL,
  correlation_id_value TEXT NOT NULL,
  source_url TEXT,
  source_title TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX bulk_import_failures_entity ON bulk_import_failures (entity_id, id);

-- Source record -> destination record, per relation of an import: what was already copied.
CREATE TABLE bulk_import_records (
  bulk_import_id INTEGER NOT NULL REFERENCES bulk_imports(id) ON DELETE CASCADE,
  entity_id INTEGER NOT NULL REFERENCES bulk_import_entities(id) ON DELETE CASCADE,
  relation TEXT NOT NULL,
  source_key TEXT NOT NULL,
  destination_id INTEGER NOT NULL,
  PRIMARY KEY (bulk_import_id, relation, source_key)
) WITHOUT ROWID;
CREATE INDEX bulk_import_records_entity ON bulk_import_records (entity_id, relation);

-- Epic parent links waiting for the parent epic (which may come with another entity of the tree).
CREATE TABLE bulk_import_epic_links (
  bulk_import_id INTEGER NOT NULL REFERENCES bulk_imports(id) ON DELETE CASCADE,
  entity_id INTEGER NOT NULL REFERENCES bulk_import_entities(id) ON DELETE CASCADE,
  epic_id INTEGER NOT NULL REFERENCES epics(id) ON DELETE CASCADE,
  parent_source_key TEXT NOT NULL,
  PRIMARY KEY (epic_id)
);
CREATE INDEX bulk_import_epic_links_import ON bulk_import_epic_links (bulk_import_id, parent_source_key);

-- Epics brought by an importer say where from, as issues and merge requests do (core/002).
ALTER TABLE epics ADD COLUMN imported_from TEXT NOT NULL DEFAULT 'none';
`,
  },
];
