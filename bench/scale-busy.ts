/**
 * Adds to a data dir `bench/build-scale.ts` built (its `big/`) the busy records the scale bench
 * times the notes and events lists on: one issue of the big project (#2) with 200,000 notes, and
 * 1,000,000 events of the big project. The notes go through the importers' bulk writer
 * (insertImportedNote, thousands per transaction, as the builder writes the big project's issues);
 * the events through the events table's own INSERT, as recordEvent writes them, without its
 * per-event activity dates. Opens the database directly (the data dir's migrations are left as
 * they are, so a build from before or after a change can open it), and records what it added in
 * the manifest (`busyIssueIid`). Run once per data dir, on a copy meant for benchmarks.
 *
 * Run: npx tsx bench/scale-busy.ts --dir bench/.data [--notes 200000] [--events 1000000]
 */
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ServiceContext } from '../src/main/service/context';
import { insertImportedNote } from '../src/main/service/areas/core/imported';
import { manifestPath, readManifest } from './build-scale';
import { ROOT, fmt } from './lib';

const { values: opts } = parseArgs({
  options: {
    dir: { type: 'string', default: join(ROOT, 'bench/.data') },
    notes: { type: 'string', default: '200000' },
    events: { type: 'string', default: '1000000' },
  },
});

const BATCH = 5_000;
const BUSY_ISSUE_IID = 2;

function main(): void {
  const dataDir = join(resolve(opts.dir), 'big');
  const manifest = readManifest(dataDir);
  if (!manifest) throw new Error(`build the data first: npx tsx bench/build-scale.ts --dir ${opts.dir}`);
  if (manifest.busyIssueIid) throw new Error(`${dataDir} already has its busy records`);
  const db = new Database(join(dataDir, 'sandlab.db'));
  const svc = { db } as unknown as ServiceContext;
  const started = performance.now();
  const projectId = manifest.bigProjectId;
  const issue = db.prepare('SELECT id FROM issues WHERE project_id = ? AND iid = ?').get(projectId, BUSY_ISSUE_IID) as { id: number };
  const since = Date.parse('2024-01-01T00:00:00Z');
  const at = (i: number): string => new Date(since + i * 1_000).toISOString();

  const notes = Number(opts.notes);
  for (let from = 0; from < notes; from += BATCH) {
    db.transaction(() => {
      for (let i = from; i < Math.min(notes, from + BATCH); i++) {
        insertImportedNote(svc, projectId, {
          noteableType: 'Issue',
          noteableId: issue.id,
          authorId: i % 20 ? 1 : manifest.authorId,
          body: `Comment ${i}: ${['works for me', 'still broken', 'see the log', 'fixed in main'][i % 4]}`,
          createdAt: at(i),
          updatedAt: at(notes - i),
          importedFrom: 'none',
        });
      }
    })();
  }
  console.log(`notes: ${notes} on issue #${BUSY_ISSUE_IID} after ${fmt((performance.now() - started) / 1000)} s`);

  const events = Number(opts.events);
  const insertEvent = db.prepare(
    `INSERT INTO events (project_id, group_id, author_id, action, target_type, target_id, target_iid, target_title, data, created_at)
     VALUES (?, NULL, ?, ?, 'Issue', ?, ?, ?, NULL, ?)`,
  );
  for (let from = 0; from < events; from += BATCH) {
    db.transaction(() => {
      for (let i = from; i < Math.min(events, from + BATCH); i++) {
        insertEvent.run(projectId, i % 20 ? 1 : manifest.authorId, ['created', 'updated', 'closed', 'reopened'][i % 4], issue.id, BUSY_ISSUE_IID, 'Busy issue', at(i));
      }
    })();
  }
  console.log(`events: ${events} in the big project after ${fmt((performance.now() - started) / 1000)} s`);
  db.close();
  manifest.busyIssueIid = BUSY_ISSUE_IID;
  manifest.counts['notes on the busy issue'] = notes;
  manifest.counts['events (big, added)'] = events;
  writeFileSync(manifestPath(dataDir), JSON.stringify(manifest, null, 2));
}

main();
