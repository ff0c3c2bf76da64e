/**
 * Gives the issues of a data dir `bench/build-scale.ts` built (its `big/`) the EE data the issue
 * lists filter and order by (weight=, not[weight]=, order_by=weight, epic_id=): a weight on one
 * issue in 20 of the big project (0-9, so one weight is on one issue in 200), and one issue in 13
 * in one of 100 of the group's epics; on the small project, a weight of 3 on its first issue and
 * its second in the first of those epics. Straight SQL, as an issue update and an epic's issue
 * assignment write those columns and rows; the data dir's migrations are left as they are. Run
 * once per data dir, on a copy meant for benchmarks.
 *
 * Run: npx tsx bench/scale-weights.ts --dir bench/.data
 */
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { manifestPath, readManifest } from './build-scale';
import { ROOT, fmt } from './lib';

const { values: opts } = parseArgs({ options: { dir: { type: 'string', default: join(ROOT, 'bench/.data') } } });

const WEIGHTED_EVERY = 20;
const IN_EPIC_EVERY = 13;
const EPICS = 100;

function main(): void {
  const dataDir = join(resolve(opts.dir), 'big');
  const manifest = readManifest(dataDir);
  if (!manifest) throw new Error(`build the data first: npx tsx bench/build-scale.ts --dir ${opts.dir}`);
  if (manifest.weightsAndEpics) throw new Error(`${dataDir} already has its weights and epics`);
  const db = new Database(join(dataDir, 'sandlab.db'));
  const started = performance.now();
  const epics = (db.prepare('SELECT id FROM epics WHERE group_id = ? ORDER BY id LIMIT ?').all(manifest.groupId, EPICS) as { id: number }[]).map((e) => e.id);
  if (!epics.length) throw new Error('the group has no epics');
  const now = new Date().toISOString();
  db.transaction(() => {
    db.prepare(`UPDATE issues SET weight = (id / ${WEIGHTED_EVERY}) % 10 WHERE project_id = ? AND id % ${WEIGHTED_EVERY} = 0`).run(manifest.bigProjectId);
    const insert = db.prepare('INSERT INTO epic_issues (epic_id, issue_id, relative_position, created_at) VALUES (?, ?, ?, ?)');
    const ids = db.prepare(`SELECT id FROM issues WHERE project_id = ? AND id % ${IN_EPIC_EVERY} = 0 ORDER BY id`).all(manifest.bigProjectId) as { id: number }[];
    ids.forEach(({ id }, n) => insert.run(epics[n % epics.length], id, n, now));
    const small = db.prepare('SELECT id FROM issues WHERE project_id = ? ORDER BY id').all(manifest.smallProjectId) as { id: number }[];
    db.prepare('UPDATE issues SET weight = 3 WHERE id = ?').run(small[0].id);
    if (small[1]) insert.run(epics[0], small[1].id, ids.length, now);
  })();
  db.close();
  manifest.weightsAndEpics = { epicId: epics[0] };
  manifest.counts['issues (big) with a weight'] = Math.floor(manifest.counts['issues (big)'] / WEIGHTED_EVERY);
  writeFileSync(manifestPath(dataDir), JSON.stringify(manifest, null, 2));
  console.log(`weights and epics after ${fmt((performance.now() - started) / 1000)} s`);
}

main();
