import { type WriteLog, sequenceLog } from '../../db/written-rows';

/**
 * Which project each write to projects touched (core/146): lists of projects read a page's ids from
 * the order's index and its rows by id (SqlList.byId, db/written-rows.ts rowsByIds), each row kept
 * until the log names it written. Every event moves a project's last_activity_at and every edit its
 * row, and each made every project list read all its page's rows again (~5 us a row: a deep page of
 * names read 20 rows off the table for ~0.1 ms). The log keeps the instance's last 1,000 writes.
 */
export const projectWritesMigration = {
  name: 'core/146_project_list_writes',
  sql: `
CREATE TABLE project_list_writes (
  seq INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL
);
CREATE TRIGGER projects_list_write_insert AFTER INSERT ON projects BEGIN
  INSERT INTO project_list_writes (project_id) VALUES (NEW.id);
  DELETE FROM project_list_writes WHERE seq <= last_insert_rowid() - 1000;
END;
CREATE TRIGGER projects_list_write_delete AFTER DELETE ON projects BEGIN
  INSERT INTO project_list_writes (project_id) VALUES (OLD.id);
  DELETE FROM project_list_writes WHERE seq <= last_insert_rowid() - 1000;
END;
CREATE TRIGGER projects_list_write_update AFTER UPDATE ON projects BEGIN
  INSERT INTO project_list_writes (project_id) VALUES (NEW.id);
  INSERT INTO project_list_writes (project_id) SELECT OLD.id WHERE OLD.id != NEW.id;
  DELETE FROM project_list_writes WHERE seq <= last_insert_rowid() - 1000;
END;
`,
};

/** The projects' write log, for rowsByIds. */
export const PROJECT_WRITES: WriteLog = sequenceLog('projects', 'project_list_writes', 'project_id');
