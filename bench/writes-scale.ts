/**
 * Writes at scale. Every kind of write a client makes to a project's records (issues, merge
 * requests, notes, labels, milestones, award emoji, snippets; epics in the group) timed on the big
 * project of a data dir `bench/build-scale.ts` built (a million issues; with bench/scale-more.ts a
 * million merge requests too) against the same write on the small project of the same instance,
 * and the instance-wide writes (projects, groups, users, members) of the big instance against the
 * small instance. A write must not cost more because the tables it lands in are big: each line
 * prints the server's main-thread CPU and the client's wall time, medians of several runs after a
 * warm-up, and the ratio.
 *
 * Run: npx tsx bench/writes-scale.ts [--dir bench/.data] [--runs 7] [--cli old/out/main/cli.js] [--only REGEX]
 * It writes into the data dir: run it on a copy.
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readScaleDirs } from './build-scale';
import { ROOT, ensureBuilt, fmt, machineLine, mainThreadCpuMs, median, rssMb, spawnSandlab, stop } from './lib';

const { values: opts } = parseArgs({
  options: {
    dir: { type: 'string', default: join(ROOT, 'bench/.data') },
    runs: { type: 'string', default: '7' },
    cli: { type: 'string' },
    only: { type: 'string' },
  },
});
const runs = Number(opts.runs);
const only = opts.only ? new RegExp(opts.only) : null;

interface Server {
  url: string;
  pid: number;
  token: string;
  groupId: number;
  /** The big and small projects of the big instance (a move goes from one to the other). */
  projects: [number, number];
  /** The big project's issue with 200,000 notes (bench/scale-busy.ts), if the data has one. */
  busyIssueIid?: number;
}
interface Sample {
  cpu: number;
  ms: number;
  status: number;
}

let seq = 0;
/** A name no earlier run of this bench used on this data dir. */
const unique = (what: string): string => `${what}-${process.pid}-${Date.now().toString(36)}-${++seq}`;

async function call(server: Server, method: string, path: string, body?: unknown): Promise<{ status: number; json: any; sample: Sample }> {
  const c0 = mainThreadCpuMs(server.pid);
  const t0 = performance.now();
  const res = await fetch(`${server.url}/api/v4${path}`, {
    method,
    headers: { 'private-token': server.token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const sample = { ms: performance.now() - t0, cpu: mainThreadCpuMs(server.pid) - c0, status: res.status };
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, json, sample };
}

/** What one write needs made first (not timed), and the write itself (timed). */
interface Write {
  name: string;
  prepare?: (s: Server, project: number) => Promise<any>;
  write: (s: Server, project: number, prepared: any) => [method: string, path: string, body?: unknown];
}

const newIssue = async (s: Server, p: number) => (await call(s, 'POST', `/projects/${p}/issues`, { title: unique('issue') })).json;
const newMergeRequest = async (s: Server, p: number) =>
  (await call(s, 'POST', `/projects/${p}/merge_requests`, { title: unique('mr'), source_branch: unique('src'), target_branch: 'main' })).json;

const newIssueWithNotes = async (s: Server, p: number) => {
  const i = await newIssue(s, p);
  for (let n = 0; n < 3; n++) await call(s, 'POST', `/projects/${p}/issues/${i.iid}/notes`, { body: unique('note') });
  return i;
};
const labelled = async (s: Server, p: number) =>
  (await call(s, 'POST', `/projects/${p}/issues`, { title: unique('issue'), labels: 'bug,label-1' })).json;
/** A comment of the busy issue (the big project's 200,000-note #2; on the small project an issue of a few notes), made and then deleted by the write. */
const busyNote = async (s: Server, p: number) => {
  const iid = p === s.projects[0] && s.busyIssueIid ? s.busyIssueIid : (await newIssueWithNotes(s, p)).iid;
  const n = (await call(s, 'POST', `/projects/${p}/issues/${iid}/notes`, { body: unique('note') })).json;
  return { iid, id: n.id };
};
/** The other project of the instance: an issue moves from the big project to the small one and back. */
const otherProject = (s: Server, p: number): number => (p === s.projects[0] ? s.projects[1] : s.projects[0]);
/** A label (or milestone) of the project on `count` of its new issues. */
const usedLabel = async (s: Server, p: number) => {
  const name = unique('used');
  await call(s, 'POST', `/projects/${p}/labels`, { name, color: '#336699' });
  for (let n = 0; n < 20; n++) await call(s, 'POST', `/projects/${p}/issues`, { title: unique('issue'), labels: name });
  return name;
};
const usedMilestone = async (s: Server, p: number) => {
  const m = (await call(s, 'POST', `/projects/${p}/milestones`, { title: unique('milestone') })).json;
  for (let n = 0; n < 20; n++) await call(s, 'POST', `/projects/${p}/issues`, { title: unique('issue'), milestone_id: m.id });
  return m;
};
const newEpic = async (s: Server) => (await call(s, 'POST', `/groups/${s.groupId}/epics`, { title: unique('epic'), labels: 'bug' })).json;

const projectWrites: Write[] = [
  { name: 'POST issue', write: (_s, p) => ['POST', `/projects/${p}/issues`, { title: unique('issue'), labels: 'bug' }] },
  { name: 'PUT issue title', prepare: newIssue, write: (_s, p, i) => ['PUT', `/projects/${p}/issues/${i.iid}`, { title: unique('retitled') }] },
  { name: 'PUT issue add_labels', prepare: newIssue, write: (_s, p, i) => ['PUT', `/projects/${p}/issues/${i.iid}`, { add_labels: 'bug,label-1' }] },
  { name: 'PUT issue state_event=close', prepare: newIssue, write: (_s, p, i) => ['PUT', `/projects/${p}/issues/${i.iid}`, { state_event: 'close' }] },
  {
    name: 'PUT issue state_event=reopen',
    prepare: async (s, p) => {
      const i = await newIssue(s, p);
      await call(s, 'PUT', `/projects/${p}/issues/${i.iid}`, { state_event: 'close' });
      return i;
    },
    write: (_s, p, i) => ['PUT', `/projects/${p}/issues/${i.iid}`, { state_event: 'reopen' }],
  },
  { name: 'PUT issue labels', prepare: labelled, write: (_s, p, i) => ['PUT', `/projects/${p}/issues/${i.iid}`, { labels: 'label-2,label-3' }] },
  { name: 'PUT issue remove_labels', prepare: labelled, write: (_s, p, i) => ['PUT', `/projects/${p}/issues/${i.iid}`, { remove_labels: 'bug' }] },
  { name: 'POST issue move', prepare: newIssueWithNotes, write: (s, p, i) => ['POST', `/projects/${p}/issues/${i.iid}/move`, { to_project_id: otherProject(s, p) }] },
  { name: 'POST issue note', prepare: newIssue, write: (_s, p, i) => ['POST', `/projects/${p}/issues/${i.iid}/notes`, { body: unique('note') }] },
  { name: 'POST issue award emoji', prepare: newIssue, write: (_s, p, i) => ['POST', `/projects/${p}/issues/${i.iid}/award_emoji`, { name: 'thumbsup' }] },
  {
    name: 'DELETE issue award emoji',
    prepare: async (s, p) => {
      const i = await newIssue(s, p);
      return { iid: i.iid, award: (await call(s, 'POST', `/projects/${p}/issues/${i.iid}/award_emoji`, { name: 'thumbsup' })).json.id };
    },
    write: (_s, p, a) => ['DELETE', `/projects/${p}/issues/${a.iid}/award_emoji/${a.award}`],
  },
  { name: 'DELETE issue', prepare: newIssue, write: (_s, p, i) => ['DELETE', `/projects/${p}/issues/${i.iid}`] },
  { name: 'DELETE issue with notes', prepare: newIssueWithNotes, write: (_s, p, i) => ['DELETE', `/projects/${p}/issues/${i.iid}`] },
  { name: 'DELETE busy issue note', prepare: busyNote, write: (_s, p, n) => ['DELETE', `/projects/${p}/issues/${n.iid}/notes/${n.id}`] },
  {
    name: 'POST merge request',
    write: (_s, p) => ['POST', `/projects/${p}/merge_requests`, { title: unique('mr'), source_branch: unique('src'), target_branch: 'main' }],
  },
  { name: 'PUT merge request title', prepare: newMergeRequest, write: (_s, p, m) => ['PUT', `/projects/${p}/merge_requests/${m.iid}`, { title: unique('retitled') }] },
  { name: 'PUT merge request close', prepare: newMergeRequest, write: (_s, p, m) => ['PUT', `/projects/${p}/merge_requests/${m.iid}`, { state_event: 'close' }] },
  { name: 'POST merge request note', prepare: newMergeRequest, write: (_s, p, m) => ['POST', `/projects/${p}/merge_requests/${m.iid}/notes`, { body: unique('note') }] },
  { name: 'DELETE label on 20 issues', prepare: usedLabel, write: (_s, p, name) => ['DELETE', `/projects/${p}/labels/${encodeURIComponent(name)}`] },
  { name: 'DELETE milestone on 20 issues', prepare: usedMilestone, write: (_s, p, m) => ['DELETE', `/projects/${p}/milestones/${m.id}`] },
  { name: 'POST label', write: (_s, p) => ['POST', `/projects/${p}/labels`, { name: unique('label'), color: '#336699' }] },
  { name: 'POST milestone', write: (_s, p) => ['POST', `/projects/${p}/milestones`, { title: unique('milestone') }] },
  { name: 'POST snippet', write: (_s, p) => ['POST', `/projects/${p}/snippets`, { title: unique('snippet'), file_name: 'a.txt', content: 'x', visibility: 'private' }] },
];

const groupWrites: Write[] = [
  { name: 'POST epic', write: (s) => ['POST', `/groups/${s.groupId}/epics`, { title: unique('epic'), labels: 'bug' }] },
  { name: 'PUT epic labels', prepare: newEpic, write: (s, _p, e) => ['PUT', `/groups/${s.groupId}/epics/${e.iid}`, { labels: 'label-2,label-3' }] },
  { name: 'PUT epic add_labels', prepare: newEpic, write: (s, _p, e) => ['PUT', `/groups/${s.groupId}/epics/${e.iid}`, { add_labels: 'label-1' }] },
];

const instanceWrites: Write[] = [
  { name: 'POST project', write: () => ['POST', '/projects', { name: unique('project') }] },
  { name: 'POST group', write: () => ['POST', '/groups', { name: unique('group'), path: unique('group') }] },
  { name: 'POST user', write: () => ['POST', '/users', { username: unique('user'), name: 'U', email: `${unique('user')}@example.com`, password: 'correct-horse-battery-staple-1' }] },
  {
    name: 'POST group member',
    prepare: async (s) => (await call(s, 'POST', '/users', { username: unique('member'), name: 'M', email: `${unique('member')}@example.com`, password: 'correct-horse-battery-staple-1' })).json,
    write: (s, _p, u) => ['POST', `/groups/${s.groupId}/members`, { user_id: u.id, access_level: 30 }],
  },
];

async function measure(server: Server, project: number, w: Write): Promise<Sample> {
  const samples: Sample[] = [];
  for (let i = 0; i <= runs; i++) {
    const prepared = w.prepare ? await w.prepare(server, project) : undefined;
    const [method, path, body] = w.write(server, project, prepared);
    const { sample } = await call(server, method, path, body);
    if (sample.status >= 300) throw new Error(`${w.name}: ${method} ${path} answered ${sample.status}`);
    if (i > 0) samples.push(sample); // the first is a warm-up
  }
  return { cpu: median(samples.map((x) => x.cpu)), ms: median(samples.map((x) => x.ms)), status: samples[0].status };
}

async function main(): Promise<void> {
  ensureBuilt();
  const { dir, big, small } = readScaleDirs(opts.dir);
  console.log(`machine: ${machineLine()}`);
  console.log(`big instance: ${JSON.stringify(big.counts)}`);
  console.log(`median of ${runs} writes after one warm-up: server main-thread CPU and client wall time, milliseconds\n`);
  const cli = opts.cli ? resolve(opts.cli) : undefined;
  const bigProc = await spawnSandlab(join(dir, 'big'), big.token, { cli });
  const smallProc = await spawnSandlab(join(dir, 'small'), small.token, { cli });
  const serverOf = (proc: typeof bigProc, m: typeof big): Server => ({
    url: proc.url,
    pid: proc.child.pid!,
    token: m.token,
    groupId: m.groupId,
    projects: [m.bigProjectId, m.smallProjectId],
    busyIssueIid: m.busyIssueIid,
  });
  const bigServer = serverOf(bigProc, big);
  const smallServer = serverOf(smallProc, small);
  try {
    const header = `${'write'.padEnd(34)} ${'CPU big'.padStart(9)} ${'small'.padStart(7)} ${'ratio'.padStart(7)} ${'wall big'.padStart(9)} ${'small'.padStart(7)}`;
    console.log(header);
    console.log('-'.repeat(header.length));
    const row = (name: string, b: Sample, s: Sample): void =>
      console.log(`${name.padEnd(34)} ${fmt(b.cpu, 2).padStart(9)} ${fmt(s.cpu, 2).padStart(7)} ${`${fmt(b.cpu / s.cpu, 1)}x`.padStart(7)} ${fmt(b.ms, 1).padStart(9)} ${fmt(s.ms, 1).padStart(7)}`);
    const chosen = (w: Write): boolean => !only || only.test(w.name);
    // Project and group writes: the big project against the small one, on the big instance.
    for (const w of [...projectWrites, ...groupWrites].filter(chosen)) {
      row(w.name, await measure(bigServer, big.bigProjectId, w), await measure(bigServer, big.smallProjectId, w));
    }
    // Instance-wide writes: the big instance against the small instance.
    for (const w of instanceWrites.filter(chosen)) {
      row(`${w.name} (instance)`, await measure(bigServer, big.bigProjectId, w), await measure(smallServer, small.smallProjectId, w));
    }
    console.log(`\nbig instance RSS after the writes: ${fmt(rssMb(bigServer.pid))} MB`);
  } finally {
    await stop(bigProc.child);
    await stop(smallProc.child);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
