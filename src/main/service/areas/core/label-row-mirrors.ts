import type { Migration } from '../../db/migrations';

/** A milestone title that the project's records carry as one milestone, by its id (workitems.ts milestoneCondition). */
export const MILESTONE_BY_ID = '(x.milestone_id IS NOT NULL AND x.milestone_id = ?)';

/**
 * The list's conditions on a record's own columns that its label rows carry too (state, author,
 * created_at, updated_at, milestone: the same values, kept by the records' triggers, core/030-054),
 * each as the rows' condition (alias `a`). A label title's set of records (workitems.ts idSetLists)
 * asks them of its rows before each record is read and checked: labels=label-1&created_after
 * counted the title's 111,000 merge requests one by one where its rows by (title, created_at) hold
 * none, and an author's labelled records are read by core/148's index, not found among the title's
 * every row. The record is still checked against every condition: the rows only read fewer.
 */
const MIRRORED: Record<string, (a: string, project: boolean) => string> = {
  // A project's rows are sought by (project, title, state) (issuable_labels_project); `+` elsewhere:
  // a state with no project to seek by made SQLite scan that index's every row of the type.
  'x.state = ?': (a, project) => `${project ? '' : '+'}${a}.state = ?`,
  '+x.state = ?': (a) => `+${a}.state = ?`,
  'x.author_id = ?': (a) => `${a}.author_id = ?`,
  'x.created_at >= ?': (a) => `${a}.created_at >= ?`,
  'x.created_at <= ?': (a) => `${a}.created_at <= ?`,
  'x.updated_at >= ?': (a) => `${a}.updated_at >= ?`,
  'x.updated_at <= ?': (a) => `${a}.updated_at <= ?`,
  [MILESTONE_BY_ID]: (a) => `${a}.milestone = ?`,
  // milestone=None, and Any as its set's probe (workitems.ts milestoneSet).
  '(x.milestone_id IS NULL)': (a) => `${a}.milestone IS NULL`,
  '(+x.milestone_id IS NULL)': (a) => `${a}.milestone IS NULL`,
  '(+x.milestone_id IS NOT NULL)': (a) => `+${a}.milestone IS NOT NULL`,
};

/**
 * A label title's rows (`rows`: `FROM issuable_labels <alias> WHERE ...`, a project's naming it,
 * `asked` the conditions appended) read through the index their conditions seek by, named: SQLite,
 * with no statistics, read every label row of the type (a covering scan of issuable_labels_project,
 * or the primary key) for a title with a state, a project list, an author plus a project list or
 * milestone=None, where the title's own index holds a few thousand. An author's rows by core/148's
 * index; a creation or update bound by the title's rows in that order (a project's, or all); a
 * project's milestone by its (project, milestone, title) index, its rows without one (milestone=None)
 * by core/405's; else the project's, or the title's.
 * Each partial index's condition is implied by the condition that names it.
 */
export function labelRowsIndexed(rows: string, asked: string, alias: string, project: boolean): string {
  const has = (sql: string): boolean => asked.includes(` ${alias}.${sql}`);
  const index = has('author_id = ?')
    ? 'issuable_labels_author'
    : has('created_at >= ?') || has('created_at <= ?')
    ? project ? 'issuable_labels_created' : 'issuable_labels_title_created'
    : has('updated_at >= ?') || has('updated_at <= ?')
    ? project ? 'issuable_labels_updated' : 'issuable_labels_title_updated'
    : project && has('milestone = ?')
    ? 'issuable_labels_milestone'
    : project && has('milestone IS NULL')
    ? 'issuable_labels_no_milestone'
    : project ? 'issuable_labels_project'
    // A state (and the title) alone: the title's rows in creation order hold it, so no row is read from
    // the table for it (the title's own index would read each of label-1's 111,000 rows for its state).
    : asked.includes(`${alias}.state = ?`) ? 'issuable_labels_title_created' : 'issuable_labels_title';
  // That index's condition: every record's label rows carry its creation time (core/030, core/038).
  const implied = index === 'issuable_labels_title_created' && !has('created_at >= ?') && !has('created_at <= ?') ? ` AND ${alias}.created_at IS NOT NULL` : '';
  const head = `FROM issuable_labels ${alias} WHERE `;
  return rows.startsWith(head) ? `FROM issuable_labels ${alias} INDEXED BY ${index} WHERE ${rows.slice(head.length)}${implied}${asked}` : `${rows}${asked}`;
}

/**
 * `where`'s mirrored conditions (MIRRORED; `args` its arguments, each condition's in order, as
 * many as its placeholders) as conditions on the label rows `alias` to append, and their arguments.
 * `project`: the rows are a project's (their project in the rows' condition).
 */
export function mirroredConditions(where: string[], args: unknown[], alias: string, project: boolean): { sql: string; args: unknown[] } {
  let at = 0;
  let sql = '';
  const out: unknown[] = [];
  for (const w of where) {
    const n = w.split('?').length - 1;
    const mirror = MIRRORED[w];
    if (mirror) {
      sql += ` AND ${mirror(alias, project)}`;
      out.push(...args.slice(at, at + n));
    }
    at += n;
  }
  return { sql, args: out };
}

/**
 * A record (alias `x`) carrying a label by title, ASCII case-insensitively, through its rows in issuable_labels (the title its argument).
 * `+x.id`: SQLite (3.53) turns an EXISTS into a join and, from `il.issuable_id = x.id` and a walk's
 * `x.id > ?`, reads the rows by `il.issuable_id > ?`, every row past the bound for each record (a
 * count over a walk of 80,000 ids with bug: 45 s); an expression is no column to carry a bound over.
 */
export const labelProbe = (type: 'Issue' | 'MergeRequest'): string =>
  `EXISTS (SELECT 1 FROM issuable_labels il WHERE il.issuable_type = '${type}' AND il.issuable_id = +x.id AND il.title = ? COLLATE NOCASE)`;

/** labelProbe asked of a record's id (`id` an SQL expression). */
export const labelProbeById = (type: 'Issue' | 'MergeRequest', id: string): string =>
  `EXISTS (SELECT 1 FROM issuable_labels p WHERE p.issuable_type = '${type}' AND p.issuable_id = ${id} AND p.title = ? COLLATE NOCASE)`;

/**
 * A label row `il` that is its record's lowest spelling of the title (a record carrying the title in
 * two spellings, differing in case, has two rows), as a condition to append; only needed where the
 * label counters know two spellings.
 */
export const lowestSpelling = (type: 'Issue' | 'MergeRequest'): string =>
  ` AND NOT EXISTS (SELECT 1 FROM issuable_labels d WHERE d.issuable_type = '${type}' AND d.issuable_id = il.issuable_id AND d.title = il.title COLLATE NOCASE AND d.title < il.title)`;

/** What a label title's rows (alias `alias`) are and how the list's conditions are asked of them (see labelRowConditions). */
export interface LabelRows {
  alias: string;
  /** The rows' own title (its first probe in `where` holds for every row). */
  title: unknown;
  /** The rows are a project's (its id in the rows' condition). */
  project: boolean;
  /** A label title's probe on the record (`where` holds it with its title as argument; `NOT` before it: without). */
  labelProbe: string;
  /** The same probe asked of a record's id (`id` an SQL expression). */
  byId: (id: string) => string;
  /** The scope's projects as `where` holds them (`x.project_id IN (...)`, with or without `+`). */
  projects: string[];
  /**
   * Every row of the title is in the scope's projects (the counters say): their condition holds for
   * each row and is not asked (a row's project is read from the table, not the title's index: 5 us a row).
   */
  projectsHold?: boolean;
}

/**
 * Every condition of `where` (`args` its arguments) asked of a label title's rows instead of the
 * record: the mirrored ones (MIRRORED), each other label title's probe (with, or NOT: without) by
 * the row's id, the scope's projects by the row's project. Undefined when a condition is none of
 * those (a search, a confidentiality view, a record's own column the rows do not carry).
 */
export function labelRowConditions(where: string[], args: unknown[], set: LabelRows): { sql: string; args: unknown[] } | undefined {
  const { alias } = set;
  let own = true;
  let at = 0;
  let sql = '';
  const out: unknown[] = [];
  for (const w of where) {
    const n = w.split('?').length - 1;
    const its = args.slice(at, at + n);
    at += n;
    const mirror = MIRRORED[w];
    // The rows' own title (its first probe) and a label of any title (a row is one) hold for every row.
    if (w === '1 = 1' || w === "x.labels != '[]'") continue;
    if (w === set.labelProbe && own && its[0] === set.title) {
      own = false;
      continue;
    }
    if (mirror) sql += ` AND ${mirror(alias, set.project)}`;
    // A project's list: its rows are the project's already (the set's rows name it).
    else if (w === 'x.project_id = ?' && set.project) sql += ` AND ${alias}.project_id = ?`;
    else if (w === set.labelProbe) sql += ` AND ${set.byId(`${alias}.issuable_id`)}`;
    else if (w === `NOT ${set.labelProbe}`) sql += ` AND NOT ${set.byId(`${alias}.issuable_id`)}`;
    else if (set.projects.includes(w) && set.projectsHold) continue;
    else if (set.projects.includes(w)) sql += ` AND +${alias}.project_id IN (${w.slice(w.indexOf('(') + 1, -1)})`;
    else return undefined;
    out.push(...its);
  }
  return { sql, args: out };
}

/**
 * The count's FROM of a list whose every condition its smallest set's label rows answer (workitems.ts
 * idSetLists; `rows` the set's rows in the scope, `rowsArgs` their arguments): no record read (each
 * record read cost ~4 us: an author's 5,556 labelled merge requests, 21 ms, where their rows take
 * 1 ms). Undefined when a condition is not asked of the rows (labelRowConditions): the records are
 * read and checked, as before.
 */
export function labelRowsOnlyCount(where: string[], args: unknown[], rows: string, rowsArgs: unknown[], set: LabelRows): { from: string; args: unknown[] } | undefined {
  const asked = labelRowConditions(where, args, set);
  return asked && { from: `FROM (SELECT DISTINCT +${set.alias}.issuable_id AS id ${labelRowsIndexed(rows, asked.sql, set.alias, set.project)}) s`, args: [...rowsArgs, ...asked.args] };
}

export const labelRowAuthorsMigration: Migration = {
  // Label rows by author (core/054's author_id) and title, in creation order: an author's records
  // with a label (author_id&labels, an instance's created_by_me) read as their few rows instead of
  // the title's every row each asked its author (5,556 of 155,636 merge requests at scale).
  name: 'core/148_issuable_labels_author',
  sql: `
CREATE INDEX issuable_labels_author ON issuable_labels (issuable_type, author_id, title COLLATE NOCASE, created_at, issuable_id, state)
  WHERE author_id IS NOT NULL;
`,
};
