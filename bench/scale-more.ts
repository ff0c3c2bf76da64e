/**
 * Adds to a data dir `bench/build-scale.ts` built (its `big/`) the lists the scale bench had no
 * million rows for: merge requests, project snippets and labels of the big project, and epics of
 * its group. Everything goes through the service's own write paths, thousands per transaction:
 * merge requests through the importers' bulk writer (insertImportedMergeRequest: upstream iids,
 * states and times, no activity events, as the builder writes the big project's issues), snippets
 * through createSnippet (the snippet, its first revision and blob), labels through createLabel,
 * epics through nextEpicIds and the epic row as createEpic writes it (without its activity event
 * and label events, as an importer would). Opens the data dir with this checkout's service (its
 * migrations run first) and records what it added in the manifest (`moreLists`). Run once per
 * data dir, on a copy meant for benchmarks; `--seconds` stops each kind early (the counts say
 * what was built).
 *
 * Run: npx tsx bench/scale-more.ts --dir bench/.data [--merge-requests 1000000] [--snippets 1000000]
 *      [--epics 1000000] [--labels 1000000] [--seconds 900]
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createService } from '../src/main/service';
import type { ServiceContext } from '../src/main/service/context';
import { insertImportedMergeRequest } from '../src/main/service/areas/core/imported';
import { findNamespaceById } from '../src/main/service/areas/core/namespaces';
import { findProjectById } from '../src/main/service/areas/core/projects';
import { nextEpicIds } from '../src/main/service/areas/epics/epics';
import { createLabel, findOrCreateGroupLabels } from '../src/main/service/areas/labels/labels';
import { createSnippet } from '../src/main/service/areas/snippets/snippets';
import { manifestPath, readManifest } from './build-scale';
import { ROOT, fmt } from './lib';
import { TOKEN } from './targets';

const { values: opts } = parseArgs({
  options: {
    dir: { type: 'string', default: join(ROOT, 'bench/.data') },
    'merge-requests': { type: 'string', default: '1000000' },
    snippets: { type: 'string', default: '1000000' },
    epics: { type: 'string', default: '1000000' },
    labels: { type: 'string', default: '1000000' },
    /** Time box per kind of record. */
    seconds: { type: 'string', default: '900' },
  },
});

const BATCH = 5_000;
const DAY = 24 * 3600 * 1000;
const SINCE = Date.parse('2023-01-01T00:00:00Z');
/** Spread over three years, in insertion order. */
const at = (i: number, n: number): string => new Date(SINCE + Math.floor((i / n) * 3 * 365 * DAY)).toISOString();
const hex40 = (i: number, salt: string): string => (salt + i.toString(16)).padStart(40, '0').slice(-40);

/** Runs `one(i)` for i < n, BATCH per transaction, until done or the time box ends; returns how many. */
function batched(svc: ServiceContext, what: string, n: number, one: (i: number) => void): number {
  const t0 = performance.now();
  const box = Number(opts.seconds) * 1000;
  let done = 0;
  while (done < n && performance.now() - t0 < box) {
    const end = Math.min(n, done + BATCH);
    svc.db.transaction(() => {
      for (let i = done; i < end; i++) one(i);
    })();
    done = end;
    process.stderr.write(`\r  ${what}: ${done.toLocaleString('en-US')} / ${n.toLocaleString('en-US')} (${fmt(done / ((performance.now() - t0) / 1000), 0)}/s)   `);
  }
  process.stderr.write('\n');
  console.log(`${what}: ${done} in ${fmt((performance.now() - t0) / 1000)} s${done < n ? ' (time box reached)' : ''}`);
  return done;
}

async function main(): Promise<void> {
  const dataDir = join(resolve(opts.dir), 'big');
  const manifest = readManifest(dataDir);
  if (!manifest) throw new Error(`build the data first: npx tsx bench/build-scale.ts --dir ${opts.dir}`);
  if (manifest.moreLists) throw new Error(`${dataDir} already has its added lists`);
  const service = await createService({ dataDir, port: 0, rootToken: TOKEN });
  const svc = service.context;
  const db = svc.db;
  try {
    const project = findProjectById(svc, manifest.bigProjectId)!;
    const group = findNamespaceById(svc, manifest.groupId)!;
    const milestone = db.prepare('SELECT id FROM milestones WHERE project_id = ? AND title = ?').get(project.id, manifest.milestone ?? 'v1') as { id: number } | undefined;
    const labels = manifest.labels;
    const firstIid = (db.prepare('SELECT coalesce(max(iid), 0) AS n FROM merge_requests WHERE project_id = ?').get(project.id) as { n: number }).n + 1;

    // A tenth merged or closed, a third labelled, a twentieth by another author, a quarter on the milestone.
    const wantedMrs = Number(opts['merge-requests']);
    const mergeRequests = batched(svc, 'merge requests (big, added)', wantedMrs, (i) => {
      const createdAt = at(i, wantedMrs);
      const state = i % 20 === 0 ? 'merged' : i % 20 === 10 ? 'closed' : 'opened';
      insertImportedMergeRequest(svc, project.id, {
        iid: firstIid + i,
        title: `Change ${i}: ${['fix crash on start', 'speed up the list', 'docs typo', 'login flow', 'export format'][i % 5]}`,
        description: `Changes for request ${i}.`,
        state,
        authorId: i % 20 === 1 ? manifest.authorId : 1,
        labels: i % 3 === 0 ? [...new Set([labels[i % labels.length] ?? 'bug', i % 9 === 0 ? 'bug' : (labels[(i * 7) % labels.length] ?? 'bug')])] : [],
        sourceBranch: `change-${i}`,
        targetBranch: 'main',
        baseSha: hex40(i, 'b'),
        headSha: hex40(i, 'c'),
        mergedAt: state === 'merged' ? createdAt : null,
        mergedById: state === 'merged' ? 1 : null,
        closedAt: state === 'closed' ? createdAt : null,
        closedById: state === 'closed' ? 1 : null,
        milestoneId: milestone && i % 4 === 0 ? milestone.id : null,
        createdAt,
        updatedAt: createdAt,
        importedFrom: 'none',
      });
    });

    const wantedSnippets = Number(opts.snippets);
    const snippets = batched(svc, 'snippets (big, added)', wantedSnippets, (i) => {
      createSnippet(svc, {
        projectId: project.id,
        authorId: i % 20 === 1 ? manifest.authorId : 1,
        title: `Snippet ${i}: ${['config', 'script', 'notes', 'query'][i % 4]}`,
        visibility: (['internal', 'private', 'public'] as const)[i % 3],
        files: [{ path: `snippet-${i}.txt`, content: `content of snippet ${i}\n` }],
        createdAt: at(i, wantedSnippets),
        updatedAt: at(i, wantedSnippets),
      });
    });

    const wantedEpics = Number(opts.epics);
    const [epicLabel] = findOrCreateGroupLabels(svc, group, ['bug'], '#428bca');
    const insertEpic = db.prepare(
      `INSERT INTO epics (id, group_id, iid, title, description, state, author_id, labels, closed_at, closed_by_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const epics = batched(svc, 'epics (group, added)', wantedEpics, (i) => {
      const { id, iid } = nextEpicIds(svc, group.id);
      const createdAt = at(i, wantedEpics);
      const closed = i % 10 === 0;
      insertEpic.run(
        id,
        group.id,
        iid,
        `Epic ${i}: ${['roadmap', 'performance', 'onboarding', 'billing'][i % 4]}`,
        `Goals of epic ${i}.`,
        closed ? 'closed' : 'opened',
        i % 20 === 1 ? manifest.authorId : 1,
        i % 3 === 0 ? JSON.stringify([epicLabel.title]) : '[]',
        closed ? createdAt : null,
        closed ? 1 : null,
        createdAt,
        createdAt,
      );
    });

    const wantedLabels = Number(opts.labels);
    const labelCount = batched(svc, 'labels (big project, added)', wantedLabels, (i) => {
      createLabel(svc, { kind: 'project', project }, { title: `scale-${String(i).padStart(7, '0')}`, color: ['#428bca', '#d9534f', '#5cb85c'][i % 3] });
    });

    manifest.moreLists = true;
    manifest.counts['merge requests (big, added)'] = mergeRequests;
    manifest.counts['snippets (big, added)'] = snippets;
    manifest.counts['epics (group, added)'] = epics;
    manifest.counts['labels (big project, added)'] = labelCount;
    writeFileSync(manifestPath(dataDir), JSON.stringify(manifest, null, 2));
  } finally {
    await service.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
