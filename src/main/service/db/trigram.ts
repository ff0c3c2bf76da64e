import { type Db, tableVersion } from './connection';
import type { WriteLog } from './written-rows';
import { COUNT_LIMIT, limitSql } from '../http/pagination';

/** Fewer characters than a trigram: the full-text index cannot match them. */
const MIN_TRIGRAM_TERM = 3;

/**
 * For a `search` whose substring match (LIKE on title and description, or `columns`) would read
 * every record of a list when few match: the records the trigram full-text index `index` (those
 * columns; rowid = the record's id) finds the term in, as a condition on `idColumn` to AND with that LIKE.
 * The index folds case as LIKE does and more (Unicode too), so it finds every record LIKE matches
 * and perhaps a few more, which LIKE then drops: the answer is LIKE's either way. Null when the
 * term is shorter than a trigram or matches more than COUNT_LIMIT records of the instance: a
 * common term is found soon enough walking the list in its order. `kept`: how the candidates are
 * kept between calls: a version of the index (read again when it moves: rememberedCandidates) or
 * the records' write log (the records written since join them: loggedCandidates).
 */
export function rareTermCandidates(
  db: Db,
  index: string,
  idColumn: string,
  term: string,
  columns = ['title', 'description'],
  kept?: (() => number) | WriteLog,
): { sql: string; args: unknown[] } | null {
  if ([...term].length < MIN_TRIGRAM_TERM) return null;
  // One phrase (quotes doubled) within any of the columns: the trigram tokenizer matches it as a substring.
  const query = `{${columns.join(' ')}} : "${term.replace(/"/g, '""')}"`;
  // The candidates' ids are read once and handed over as JSON: the list does not run the MATCH
  // again (a phrase reads each of its trigrams' whole lists, a million entries for a common one).
  const read = (): { n: number; ids: string } =>
    db.prepare(`SELECT count(*) AS n, json_group_array(id) AS ids FROM (SELECT rowid AS id FROM ${index} WHERE ${index} MATCH ? ${limitSql(COUNT_LIMIT + 1)})`).get(query) as { n: number; ids: string };
  const key = `${index}|${query}`;
  const found = !kept ? read() : typeof kept === 'function' ? rememberedCandidates(db, key, kept, read) : loggedCandidates(db, key, kept, read);
  if (found.n > COUNT_LIMIT) return null;
  return { sql: `${idColumn} IN (SELECT value FROM json_each(?))`, args: [found.ids] };
}

/**
 * The version of what a trigram index holds (a row of core/099's table_versions moved by its
 * records' triggers: core/154, core/189), for rareTermCandidates to keep a term's candidates by;
 * undefined (read at each call) on a database without it.
 */
export function indexVersion(db: Db, index: string): (() => number) | undefined {
  return tableVersion(db, index) === undefined ? undefined : () => tableVersion(db, index)!;
}

/** Candidates remembered per database: `index|query` -> the version they were read at and them. */
const candidates = new WeakMap<Db, Map<string, { version: number; found: { n: number; ids: string } }>>();
/** Terms remembered per database (beyond it, all are dropped and read again). */
const REMEMBERED_TERMS = 200;

/**
 * A term's candidates read at `version` (moved by every write to the indexed records, `version`
 * says how: the records' write log), kept until it moves: a page after a write elsewhere (another
 * table, another project's description) does not merge the phrase's doclists again (a one-title
 * search of a million epics: ~0.6 ms each). Not inside a transaction, which may yet roll back.
 */
function rememberedCandidates(db: Db, key: string, version: () => number, read: () => { n: number; ids: string }): { n: number; ids: string } {
  if (db.inTransaction) return read();
  let known = candidates.get(db);
  if (!known) candidates.set(db, (known = new Map()));
  const now = version();
  const hit = known.get(key);
  if (hit && hit.version === now) return hit.found;
  if (!hit && known.size >= REMEMBERED_TERMS) known.clear();
  const found = read();
  known.set(key, { version: now, found });
  return found;
}

/**
 * A term's candidates kept across writes to the indexed records by their table's write log
 * (`log`: every insert, update and delete of a row, whatever column): the records written since
 * join them (a superset still: the caller's LIKE decides), so a search after a write to one
 * record does not merge the phrase's doclists again (/projects?search= after a project's
 * description changed: ~150 us of 10,000 projects' trigrams). Read again when the log no longer
 * holds every entry since. Not inside a transaction, which may yet roll back.
 */
function loggedCandidates(db: Db, key: string, log: WriteLog, read: () => { n: number; ids: string }): { n: number; ids: string } {
  if (db.inTransaction) return read();
  let known = candidates.get(db);
  if (!known) candidates.set(db, (known = new Map()));
  // The log first: a record written after this has an entry after `now`, and joins next time.
  const now = log.last(db);
  const hit = known.get(key);
  if (hit && hit.version === now) return hit.found;
  const written = hit && now > hit.version ? log.writtenSince(db, hit.version) : null;
  let found: { n: number; ids: string };
  if (hit && written) {
    const ids = new Set(JSON.parse(hit.found.ids) as number[]);
    for (const id of written) ids.add(id);
    found = ids.size === hit.found.n ? hit.found : { n: ids.size, ids: JSON.stringify([...ids]) };
  } else {
    if (!hit && known.size >= REMEMBERED_TERMS) known.clear();
    found = read();
  }
  known.set(key, { version: now, found });
  return found;
}
