/**
 * A group tree of about 5,000 records seeded through the API of a running instance (users,
 * subgroups, labels, epics, projects with issues, MRs, notes, badges and snippets), and the small
 * client the bench scripts call instances with. Used by bench/bulk-import.ts and
 * bench/migration-latency.ts.
 */
import { readFileSync } from 'node:fs';

export const TOKEN = 'glpat-bench-root-token-00000';

export type Call = (method: string, path: string, body?: unknown) => Promise<any>;

/** CPU seconds a process has used so far (user + system, Linux /proc). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export function client(url: string): Call {
  return async (method, path, body) => {
    const res = await fetch(`${url}/api/v4${path}`, {
      method,
      headers: { 'private-token': TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
}

/** Runs `work(i)` for i < n, `lanes` at a time. */
export async function times(n: number, lanes: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: lanes }, async () => {
    while (next < n) await work(next++);
  }));
}

/** The tree: bench > {a, b}; two projects in bench, one in each subgroup. */
export async function seed(call: Call): Promise<number> {
  let records = 0;
  const users: { id: number; username: string }[] = [];
  for (let i = 0; i < 10; i++) users.push(await call('POST', '/users', { username: `dev${i}`, email: `dev${i}@bench.example`, name: `Dev ${i}`, password: 'password123' }));
  const root = await call('POST', '/groups', { name: 'Bench', path: 'bench' });
  const groups = [root, await call('POST', '/groups', { name: 'A', path: 'a', parent_id: root.id }), await call('POST', '/groups', { name: 'B', path: 'b', parent_id: root.id })];
  for (const [gi, g] of groups.entries()) {
    for (const u of users) await call('POST', `/groups/${g.id}/members`, { user_id: u.id, access_level: 30 });
    records += users.length;
    await times(20, 8, (i) => call('POST', `/groups/${g.id}/labels`, { name: `g${gi}-label-${i}`, color: '#336699' }));
    await times(40, 8, async (i) => {
      const epic = await call('POST', `/groups/${g.id}/epics`, { title: `Epic ${i}`, labels: `g${gi}-label-${i % 20}` });
      await call('POST', `/groups/${g.id}/epics/${epic.id}/notes`, { body: `Note on epic ${i}` });
    });
    records += 20 + 40 * 2;
  }
  const projects = [
    await call('POST', '/projects', { name: 'one', namespace_id: root.id }),
    await call('POST', '/projects', { name: 'two', namespace_id: root.id }),
    await call('POST', '/projects', { name: 'three', namespace_id: groups[1].id }),
    await call('POST', '/projects', { name: 'four', namespace_id: groups[2].id }),
  ];
  for (const p of projects) {
    await times(10, 8, (i) => call('POST', `/projects/${p.id}/labels`, { name: `p-label-${i}`, color: '#993366' }));
    await times(5, 5, (i) => call('POST', `/projects/${p.id}/badges`, { link_url: `https://ci.example/${i}`, image_url: `https://ci.example/${i}.svg` }));
    await times(550, 8, async (i) => {
      const issue = await call('POST', `/projects/${p.id}/issues`, { title: `Issue ${i}`, description: `Body of issue ${i}`, labels: `p-label-${i % 10}` });
      if (i % 2 === 0) await call('POST', `/projects/${p.id}/issues/${issue.iid}/notes`, { body: `Comment on ${i}` });
    });
    await times(150, 8, async (i) => {
      const mr = await call('POST', `/projects/${p.id}/merge_requests`, { title: `MR ${i}`, source_branch: `feature-${i}`, target_branch: 'main' });
      await call('POST', `/projects/${p.id}/merge_requests/${mr.iid}/notes`, { body: `Review of ${i}` });
    });
    await times(10, 5, (i) => call('POST', `/projects/${p.id}/snippets`, { title: `Snippet ${i}`, visibility: 'private', files: [{ file_path: `s${i}.txt`, content: `snippet ${i}\n` }] }));
    records += 10 + 5 + 550 + 275 + 150 * 2 + 10;
  }
  return records;
}
