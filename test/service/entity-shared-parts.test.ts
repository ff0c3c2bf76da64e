import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';

// What issue and merge request entities of a page share is made once, not per record
// (areas/core/entities.ts: the project's API URL, the last one asked; the upper-cased issue types;
// one reference text for short and relative; one task_completion_status). These tests pin that
// each row still shows its own project's links under the base URL of its own request, pages whose
// records interleave two projects, read through two hosts in turn, and each issue type's `type`.

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

describe("a page's shared entity parts", () => {
  let group: any;
  const projects: any[] = [];

  beforeAll(async () => {
    group = await s.createGroup();
    for (let p = 0; p < 2; p++) projects.push(await s.createProject({ namespace_id: group.id, initialize_with_readme: true }));
    // Created in turn, so newest-first lists alternate between the two projects.
    for (let i = 0; i < 6; i++) {
      const project = projects[i % 2];
      ok(await s.post(`/projects/${project.id}/issues`, { title: `Issue ${i}`, issue_type: i % 3 === 1 ? 'incident' : 'issue' }));
      ok(await s.post(`/projects/${project.id}/merge_requests`, { title: `MR ${i}`, source_branch: `b${i}`, target_branch: 'main' }));
    }
  }, 60_000);

  /** Each row's links, references and shared fields against its project as the same request's host shows it. */
  const check = async (path: string, kind: 'issues' | 'merge_requests', host?: string, mixed = true): Promise<void> => {
    const get = (p: string) => (host ? s.getWithHost(p, host) : s.get(p));
    const api = new Map<number, { self: string; path: string; web: string }>();
    for (const p of projects) {
      const own = (await get(`/projects/${p.id}`)).body;
      api.set(p.id, { self: own._links.self, path: own.path_with_namespace, web: own.web_url });
    }
    const res = await get(path);
    expect(res.status).toBe(200);
    const rows = res.body as any[];
    expect(new Set(rows.map((r) => r.project_id)).size).toBe(mixed ? 2 : 1);
    // Neighbours of different projects: the shared URL is each row's own.
    if (mixed) expect(rows.some((r, k) => k > 0 && r.project_id !== rows[k - 1].project_id)).toBe(true);
    for (const row of rows) {
      const project = api.get(row.project_id)!;
      const sigil = kind === 'issues' ? '#' : '!';
      expect(row.references).toEqual({ short: `${sigil}${row.iid}`, relative: `${sigil}${row.iid}`, full: `${project.path}${sigil}${row.iid}` });
      expect(row.task_completion_status).toEqual({ count: 0, completed_count: 0 });
      if (kind === 'issues') {
        expect(row._links).toEqual({
          self: `${project.self}/issues/${row.iid}`,
          notes: `${project.self}/issues/${row.iid}/notes`,
          award_emoji: `${project.self}/issues/${row.iid}/award_emoji`,
          project: project.self,
          closed_as_duplicate_of: null,
        });
        expect(row.type).toBe(row.issue_type.toUpperCase());
        expect(row.web_url).toBe(`${project.web}/-/issues/${row.iid}`);
      } else {
        expect(row.reference).toBe(`!${row.iid}`);
        expect(row.web_url).toBe(`${project.web}/-/merge_requests/${row.iid}`);
      }
      // The row reads as its own GET through the same host.
      const own = (await get(`/projects/${row.project_id}/${kind}/${row.iid}`)).body;
      for (const key of Object.keys(row)) if (key !== 'subscribed') expect([key, row[key]]).toEqual([key, own[key]]);
    }
  };

  it("issues of two projects in turn show each one's links, through two hosts in turn", async () => {
    for (const host of [undefined, 'gitlab.example.test:8443', undefined, 'other.example.test']) {
      await check(`/groups/${group.id}/issues?per_page=100`, 'issues', host);
      await check(`/issues?scope=all&per_page=100`, 'issues', host);
    }
    // One project's page read through one host after the other: the same project, another base URL.
    for (const host of [undefined, 'gitlab.example.test:8443', 'other.example.test', undefined]) {
      await check(`/projects/${projects[0].id}/issues?per_page=100`, 'issues', host, false);
    }
    const types = ok(await s.get(`/groups/${group.id}/issues?per_page=100`)).map((r: any) => r.type);
    expect(types.filter((t: string) => t === 'INCIDENT')).toHaveLength(2);
    expect(types.filter((t: string) => t === 'ISSUE')).toHaveLength(4);
  });

  it("merge requests of two projects in turn show each one's references, through two hosts in turn", async () => {
    for (const host of [undefined, 'gitlab.example.test:8443', undefined]) {
      await check(`/groups/${group.id}/merge_requests?per_page=100`, 'merge_requests', host);
      await check(`/merge_requests?scope=all&per_page=100`, 'merge_requests', host);
    }
  });
});
