import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runGo, runRuby, startServe } from './harness';
import { startStandInProcess } from '../helpers/stand-ins/process';

// The Ruby gem (4.17) and go-gitlab (0.73) have no import helpers: they call the import API through
// their generic request methods, unchanged (the gem form-encodes the body, Go sends JSON). The
// providers are stand-ins in their own process, serving a real git repository behind their clone URLs.
let served: Served;
let standIns: Awaited<ReturnType<typeof startStandInProcess>>;

beforeAll(async () => {
  standIns = await startStandInProcess('compat');
  process.env.SANDLAB_PROVIDERA_URL = standIns.providera;
  // The Go program reads the Bitbucket Server stand-in's URL from its environment.
  process.env.BBS_URL = standIns.providerb_server;
  served = await startServe();
});
afterAll(async () => {
  await served?.stop();
  await standIns?.stop();
});

describe('imports through the Ruby gem', () => {
  it('gl.post("/import/github") with form parameters imports the issues and the git repository; cancel after the end is a 400', () => {
    const out = runRuby(
      served,
      `
gl.create_group("rb-imports", "rb-imports")
result = gl.post("/import/github", body: { personal_access_token: "gh-token", repo_id: 77, target_namespace: "rb-imports", optional_stages: { collaborators_import: false } })
status = nil
300.times do
  status = gl.get("/projects/#{result.id}/import")
  break if %w[finished failed].include?(status.import_status)
  sleep 0.1
end
cancel = begin
  gl.post("/import/github/cancel", body: { project_id: result.id })
  "canceled"
rescue Gitlab::Error::BadRequest => e
  [e.response_status, e.response_message]
end
refused = begin
  gl.post("/import/github", body: { personal_access_token: "gh-token", repo_id: 77, target_namespace: "nowhere" })
rescue Gitlab::Error::ResponseError => e
  # GitLab answers this one as {"errors": ...}, a key the gem's response_message does not read: its message has the text.
  [e.response_status, e.message]
end
puts JSON.generate(
  result: result.to_h.slice("name", "full_path", "import_source", "import_status"),
  status: status.import_status,
  issues: gl.issues(result.id).map { |i| [i.iid, i.title, i.imported_from] },
  branches: gl.branches(result.id).map(&:name),
  tags: gl.tags(result.id).map(&:name).sort,
  readme: gl.file_contents(result.id, "README.md", "main"),
  cancel: cancel,
  refused: refused
)`,
    );
    expect(out).toEqual({
      result: { name: 'hello-world', full_path: '/rb-imports/hello-world', import_source: 'octo/hello-world', import_status: 'scheduled' },
      status: 'finished',
      issues: [[1, 'First issue', 'github']],
      branches: ['feature', 'main'],
      tags: ['v1.0', 'v1.1'],
      readme: '# Rocket\n\nGoes up.\n',
      cancel: [400, 'The import cannot be canceled because it is finished'],
      refused: [422, expect.stringContaining("'errors' Namespace or group to import repository into does not exist.")],
    });
  });
});

describe('imports through go-gitlab', () => {
  it('NewRequest POST import/bitbucket_server with JSON, then the Branches service lists what was fetched', () => {
    const out = runGo(
      served,
      `
	_, _, err := git.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.String("go-imports"), Path: gitlab.String("go-imports")})
	must(err)
	body := map[string]any{
		"bitbucket_server_url": os.Getenv("BBS_URL"), "bitbucket_server_username": "admin", "personal_access_token": "bbs-token",
		"bitbucket_server_project": "PY", "bitbucket_server_repo": "tool", "target_namespace": "go-imports",
	}
	req, err := git.NewRequest(http.MethodPost, "import/bitbucket_server", body, nil)
	must(err)
	var result struct {
		ID           int    \`json:"id"\`
		FullPath     string \`json:"full_path"\`
		ImportStatus string \`json:"import_status"\`
	}
	resp, err := git.Do(req, &result)
	must(err)
	var project *gitlab.Project
	for i := 0; i < 300; i++ {
		project, _, err = git.Projects.GetProject(result.ID, nil)
		must(err)
		if project.ImportStatus == "finished" || project.ImportStatus == "failed" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	branches, _, err := git.Branches.ListBranches(result.ID, nil)
	must(err)
	names := []string{}
	for _, b := range branches {
		names = append(names, b.Name)
	}
	return map[string]any{"status": resp.StatusCode, "full_path": result.FullPath, "scheduled": result.ImportStatus, "import_status": project.ImportStatus, "default_branch": project.DefaultBranch, "branches": names}
`,
      ['net/http', 'time'],
    );
    expect(out).toEqual({ status: 201, full_path: '/go-imports/tool', scheduled: 'scheduled', import_status: 'finished', default_branch: 'main', branches: ['feature', 'main'] });
  });
});
