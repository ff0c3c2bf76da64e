/**
 * Summarizes a `.cpuprofile` (node --cpu-prof, or bench/http.ts --cpu-prof DIR): the frames with
 * the most self time and the most inclusive time, in percent of the sampled time.
 *
 * Run: npx tsx bench/cpuprofile-summary.ts FILE.cpuprofile [--top 40] [--match REGEX of frames to keep in the inclusive list]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const { values: opts, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '40' }, match: { type: 'string' } } });
const profile = JSON.parse(readFileSync(positionals[0], 'utf8')) as Profile;
const top = Number(opts.top);

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const frameName = (n: Node): string => {
  const file = n.callFrame.url.replace(/^.*\/(node_modules\/)?/, (m) => (m.includes('node_modules') ? 'nm/' : ''));
  return `${n.callFrame.functionName || '(anonymous)'} ${file}:${n.callFrame.lineNumber + 1}`;
};

// Self time per node from the samples, then per frame name; inclusive time counts a frame once per sample.
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
for (const [id, us] of selfUs) {
  total += us;
  const name = frameName(byId.get(id)!);
  self.set(name, (self.get(name) ?? 0) + us);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const n = frameName(byId.get(cur)!);
    if (seen.has(n)) continue;
    seen.add(n);
    inclusive.set(n, (inclusive.get(n) ?? 0) + us);
  }
}
const idle = [...self].filter(([n]) => n.startsWith('(idle)')).reduce((s, [, us]) => s + us, 0);
const busy = total - idle;
const print = (title: string, m: Map<string, number>, filter: (n: string) => boolean): void => {
  console.log(`\n${title} (% of ${(busy / 1000).toFixed(0)} ms busy)`);
  for (const [n, us] of [...m].filter(([n]) => filter(n) && !n.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * us) / busy).toFixed(1).padStart(6)}%  ${n}`);
  }
};
print('self', self, () => true);
const match = opts.match ? new RegExp(opts.match) : null;
print('inclusive', inclusive, (n) => !match || match.test(n));
