/**
 * The differential check of what a service keeps between requests (test/helpers/kept-diff.ts):
 * random writes to a long-running service, every list of its pool compared after each batch with a
 * service started afresh on the same data dir. Prints every divergence; exits 1 if any.
 *
 *   npx tsx bench/kept-diff.ts [--dir <data dir, a COPY: it is written to>] [--token <root token>]
 *     [--seed 1] [--batches 8] [--writes 12] [--reads 40] [--pool 400]
 *
 * Prints, per endpoint, caller and list shape, how many reads reached something kept (fewer SQL
 * statements on the kept service than on the fresh one): a widening that reaches nothing kept checks nothing.
 * Without --dir, a data dir is seeded in a temporary folder (seedKeptDiffData) and removed after.
 * On a copy of a scale dir: --dir /work/tmp/<you>/le/big --token glpat-bench-root-token-00000001.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runKeptDiff, seedKeptDiffData } from '../test/helpers/kept-diff';

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    token: { type: 'string', default: 'glpat-kept-diff-root-token-0001' },
    seed: { type: 'string', default: '1' },
    batches: { type: 'string', default: '8' },
    writes: { type: 'string', default: '12' },
    reads: { type: 'string', default: '40' },
    pool: { type: 'string', default: '400' },
  },
});

async function main(): Promise<void> {
  const seeded = values.dir === undefined;
  const dataDir = values.dir ?? mkdtempSync(join(tmpdir(), 'sandlab-kept-diff-'));
  const started = Date.now();
  try {
    if (seeded) await seedKeptDiffData(dataDir, values.token!);
    const result = await runKeptDiff({
      dataDir,
      rootToken: values.token!,
      seed: Number(values.seed),
      batches: Number(values.batches),
      writesPerBatch: Number(values.writes),
      readsPerBatch: Number(values.reads),
      poolSize: Number(values.pool),
      log: (line) => console.log(line),
    });
    const writes = Object.entries(result.writes).map(([k, v]) => `${k} ${v.ok}/${v.ok + v.failed}`);
    console.log(`seed ${values.seed}: ${result.reads} reads compared, writes (ok/all): ${writes.join(', ')}`);
    // Per endpoint, caller and list shape: reads, those that reached something kept (fewer statements
    // on the kept service than on the fresh one), and the statements each service prepared for them.
    console.log('reads (reached something kept / all; statements kept / fresh):');
    for (const [kind, t] of Object.entries(result.kinds).sort(([a], [b]) => a.localeCompare(b)))
      console.log(`  ${kind}: ${t.reached}/${t.reads}; ${t.keptStatements}/${t.freshStatements}`);
    console.log(`${result.divergences.length} divergences in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (const d of result.divergences) console.log(`- batch ${d.batch} ${d.who} GET ${d.path}: ${d.what}\n    after: ${d.writes.join('\n           ')}`);
    process.exitCode = result.divergences.length ? 1 : 0;
  } finally {
    if (seeded) rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
