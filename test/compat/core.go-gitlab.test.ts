import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runGo, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

// Debian's go-gitlab 0.73 (github.com/xanzy/go-gitlab), unchanged.
describe('go-gitlab against a live Sandlab', () => {
  it('creates a group tree and a project in it, found through namespaces', () => {
    const out = runGo(
      served,
      `
	g, _, err := git.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.String("Go Group"), Path: gitlab.String("go-group")})
	must(err)
	sub, _, err := git.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.String("Go Sub"), Path: gitlab.String("go-sub"), ParentID: gitlab.Int(g.ID)})
	must(err)
	ns, _, err := git.Namespaces.GetNamespace("go-group/go-sub")
	must(err)
	exists, _, err := git.Namespaces.NamespaceExists("go-group", nil)
	must(err)
	p, _, err := git.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("go-project"), NamespaceID: gitlab.Int(ns.ID)})
	must(err)
	subs, _, err := git.Groups.ListSubGroups(g.ID, nil)
	must(err)
	return map[string]any{"ns": ns.FullPath, "kind": ns.Kind, "parent": ns.ParentID == g.ID, "exists": exists.Exists,
		"project": p.PathWithNamespace, "subgroups": len(subs), "sub": sub.FullPath}`,
    );
    expect(out).toEqual({ ns: 'go-group/go-sub', kind: 'group', parent: true, exists: true, project: 'go-group/go-sub/go-project', subgroups: 1, sub: 'go-group/go-sub' });
  });

  it('pages through a list with the Link header and reads issues back', () => {
    const out = runGo(
      served,
      `
	p, _, err := git.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("go-issues")})
	must(err)
	for i := 0; i < 25; i++ {
		_, _, err := git.Issues.CreateIssue(p.ID, &gitlab.CreateIssueOptions{Title: gitlab.String(fmt.Sprintf("issue %d", i)), Labels: &gitlab.Labels{"go"}})
		must(err)
	}
	opt := &gitlab.ListProjectIssuesOptions{ListOptions: gitlab.ListOptions{PerPage: 10}}
	seen := 0
	pages := 0
	for {
		issues, resp, err := git.Issues.ListProjectIssues(p.ID, opt)
		must(err)
		seen += len(issues)
		pages++
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	first, _, err := git.Issues.GetIssue(p.ID, 1)
	must(err)
	_, resp, err := git.Projects.GetProject("nobody/nothing", nil)
	return map[string]any{"seen": seen, "pages": pages, "title": first.Title, "labels": first.Labels, "missing": resp.StatusCode}`,
    );
    expect(out).toEqual({ seen: 25, pages: 3, title: 'issue 0', labels: ['go'], missing: 404 });
  });
});
