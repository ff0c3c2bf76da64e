import { type Db, tableVersion } from '../../db/connection';

/**
 * The projects' columns that say which projects a list of them holds and in what order, for the
 * lists that name no other: names, paths, owners, visibility, archiving, topics, imports, creation.
 * Not the columns routine writes move (description, updated_at, last_activity_at at every recorded
 * event, settings, avatar): a list whose SQL names one of those follows every write to projects.
 */
const LISTED_COLUMNS = ['id', 'namespace_id', 'creator_id', 'name', 'path', 'visibility', 'archived', 'request_access_enabled', 'topics', 'import_type', 'import_status', 'created_at'] as const;

const LISTED = new Set<string>(LISTED_COLUMNS);

/** Every column of projects as the database has it (a column a later migration adds is not listed). */
const projectColumns = new WeakMap<Db, Set<string>>();

function columnsOfProjects(db: Db): Set<string> {
  let columns = projectColumns.get(db);
  if (!columns) projectColumns.set(db, (columns = new Set((db.prepare("SELECT name FROM pragma_table_info('projects')").all() as { name: string }[]).map((c) => c.name))));
  return columns;
}

/** table_versions' name for the version of the projects' listed columns. */
export const PROJECTS_LISTED_VERSION = 'projects_listed';

export const projectsListedVersionMigration = {
  // A version of the projects' rows as lists see them (LISTED_COLUMNS): moved by an insert, a delete
  // and an update that changes one of those columns, not by a description or activity time. A list
  // of projects whose SQL reads only those keeps its deep-page anchors and its count past 10,000
  // (owned=true) across the writes every event and edit make (core/099's version of projects moved
  // on each; routes/projects.ts projectListAnchors).
  name: 'core/130_projects_listed_version',
  sql: `
INSERT INTO table_versions (name, version) VALUES ('${PROJECTS_LISTED_VERSION}', 0);
CREATE TRIGGER projects_listed_version_insert AFTER INSERT ON projects BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${PROJECTS_LISTED_VERSION}'; END;
CREATE TRIGGER projects_listed_version_update AFTER UPDATE ON projects
  WHEN ${LISTED_COLUMNS.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(' OR ')} BEGIN
  UPDATE table_versions SET version = version + 1 WHERE name = '${PROJECTS_LISTED_VERSION}';
END;
CREATE TRIGGER projects_listed_version_delete AFTER DELETE ON projects BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${PROJECTS_LISTED_VERSION}'; END;
`,
};

/**
 * The version of projects a list of them (conditions and order in `sqls`, reading only projects and
 * namespaces) depends on: the listed columns' when every word of its SQL that names a column of
 * projects names a listed one (a word shared with namespaces' columns counts too: a stricter test),
 * else every write's (core/099). Either way with namespaces' version, which paths and owners read.
 */
export function projectListVersion(db: Db, sqls: string[]): () => number {
  const projects = sqls.every((sql) => namesListedProjectColumnsOnly(db, sql)) ? PROJECTS_LISTED_VERSION : 'projects';
  return () => (tableVersion(db, projects) ?? 0) + (tableVersion(db, 'namespaces') ?? 0);
}

/** Whether every word of `sql` that names a column of projects names a listed one (a word shared with another table's columns counts too: a stricter test). */
export function namesListedProjectColumnsOnly(db: Db, sql: string): boolean {
  const columns = columnsOfProjects(db);
  return [...sql.matchAll(/[A-Za-z_]\w*/g)].every(([word]) => !columns.has(word) || LISTED.has(word));
}

/**
 * Whether `sql` reads projects only inside subqueries (parenthesized) in which every word that names
 * a column of projects names a listed one (projectListVersion's rule, for each such subquery): a
 * caller's memberships (`SELECT p.id FROM projects p WHERE p.id IN (...) OR p.namespace_id IN (...)`,
 * access.ts memberProjectsSql), whose answer the listed columns' version and the memberships' and
 * namespaces' hold, where projects' own version moves with every description and activity time.
 */
export function readsListedProjectsOnly(db: Db, sql: string): boolean {
  const columns = columnsOfProjects(db);
  for (const m of sql.matchAll(/\b(?:FROM|JOIN)\s+projects\b/gi)) {
    const open = enclosingParen(sql, m.index);
    if (open < 0) return false;
    const close = matchingParen(sql, open);
    if (close < 0) return false;
    const words = sql.slice(open + 1, close).matchAll(/[A-Za-z_]\w*/g);
    for (const [word] of words) if (columns.has(word) && !LISTED.has(word)) return false;
  }
  return true;
}

/** The index of the `(` that opens the parenthesized text around `at`, or -1. */
function enclosingParen(sql: string, at: number): number {
  let depth = 0;
  for (let i = at - 1; i >= 0; i--) {
    if (sql[i] === ')') depth++;
    else if (sql[i] === '(' && depth-- === 0) return i;
  }
  return -1;
}

/** The index of the `)` that closes the `(` at `open`, or -1. */
function matchingParen(sql: string, open: number): number {
  let depth = 0;
  for (let i = open; i < sql.length; i++) {
    if (sql[i] === '(') depth++;
    else if (sql[i] === ')' && --depth === 0) return i;
  }
  return -1;
}
