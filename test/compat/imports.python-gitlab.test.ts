import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, pythonGitlabAvailable, runPython, startServe } from './harness';
import { startStandInProcess } from '../helpers/stand-ins/process';

// python-gitlab 3.12's import calls, unchanged, against a live `serve` whose providers are stand-ins
// (in their own process: the python scripts run synchronously and would block stand-ins living here).
let served: Served;
let standIns: Awaited<ReturnType<typeof startStandInProcess>>;
let bbsUrl = '';

beforeAll(async () => {
  standIns = await startStandInProcess('compat');
  bbsUrl = standIns.providerb_server;
  // The served process reads provider A's public host from the environment it inherits.
  process.env.SANDLAB_PROVIDERA_URL = standIns.providera;
  served = await startServe();
});
afterAll(async () => {
  await served?.stop();
  await standIns?.stop();
});

describe.skipIf(!pythonGitlabAvailable())('python-gitlab 3.12 imports', () => {
  it('gl.projects.import_github(...) schedules the import; project.imports.get() follows it to finished', () => {
    const out = runPython(
      served,
      `
import time
group = gl.groups.create({"name": "py-imports", "path": "py-imports"})
result = gl.projects.import_github("gh-token", 77, "py-imports")
project = gl.projects.get(result["id"])
status = project.imports.get()
for _ in range(300):
    status.refresh()
    if status.import_status in ("finished", "failed"):
        break
    time.sleep(0.1)
issues = project.issues.list(get_all=True)
mrs = project.mergerequests.list(get_all=True)
project = gl.projects.get(result["id"])
branches = [b.name for b in project.branches.list(get_all=True)]
tags = sorted(t.name for t in project.tags.list(get_all=True))
readme = project.files.raw(file_path="README.md", ref=project.default_branch).decode()
renamed = gl.projects.import_github("gh-token", 77, "py-imports", new_name="hello-again")
print(json.dumps({
    "result": result, "status": status.import_status, "import_type": status.import_type,
    "project_status": gl.projects.get(result["id"]).import_status,
    "issues": [[i.iid, i.title, i.imported_from] for i in issues],
    "mrs": [[m.iid, m.source_branch, m.target_branch] for m in mrs],
    "renamed": renamed["full_path"],
    "default_branch": project.default_branch, "branches": branches, "tags": tags, "readme": readme,
}))
`,
    );
    expect(out.result).toMatchObject({ name: 'hello-world', full_path: '/py-imports/hello-world', import_status: 'scheduled', import_source: 'octo/hello-world' });
    expect(out.status).toBe('finished');
    expect(out.import_type).toBe('github');
    expect(out.project_status).toBe('finished');
    expect(out.issues).toEqual([[1, 'First issue', 'github']]);
    expect(out.mrs).toEqual([[2, 'topic', 'main']]);
    expect(out.renamed).toBe('/py-imports/hello-again');
    // The git repository came too: the stand-in's branches, tags and files.
    expect(out).toMatchObject({ default_branch: 'main', branches: ['feature', 'main'], tags: ['v1.0', 'v1.1'], readme: '# Rocket\n\nGoes up.\n' });
  });

  it('gl.projects.import_bitbucket_server(...) with target_namespace', () => {
    const out = runPython(
      served,
      `
import time
gl.groups.create({"name": "py-bitbucket", "path": "py-bitbucket"})
result = gl.projects.import_bitbucket_server("${bbsUrl}", "admin", "bbs-token", "PY", "tool", target_namespace="py-bitbucket")
project = gl.projects.get(result["id"])
for _ in range(300):
    project = gl.projects.get(result["id"])
    if project.import_status in ("finished", "failed"):
        break
    time.sleep(0.1)
print(json.dumps({"result": result, "status": project.import_status, "mrs": [m.title for m in project.mergerequests.list(get_all=True)],
                  "branches": [b.name for b in project.branches.list(get_all=True)]}))
`,
    );
    expect(out.result).toMatchObject({ name: 'tool', full_path: '/py-bitbucket/tool', import_source: 'Python/tool' });
    expect(out.status).toBe('finished');
    expect(out.mrs).toEqual(['Tooling']);
    expect(out.branches).toEqual(['feature', 'main']);
  });

  it('refusals raise python-gitlab errors with GitLab statuses', () => {
    const out = runPython(
      served,
      `
codes = []
for call in (
    lambda: gl.projects.import_github("wrong-token", 77, "py-imports", new_name="nope"),
    lambda: gl.projects.import_github("gh-token", 77, "no-such-namespace"),
    lambda: gl.projects.import_bitbucket_server("${bbsUrl}", "admin", "bbs-token", "PY", "missing"),
):
    try:
        call()
        codes.append(None)
    except gitlab.exceptions.GitlabError as e:
        codes.append([e.response_code, json.loads(e.response_body)])
print(json.dumps(codes))
`,
    );
    expect(out).toEqual([
      [401, { error: 'Access denied to your GitHub account.' }],
      [422, { errors: 'Namespace or group to import repository into does not exist.' }],
      [422, { message: { error: 'Project PY/missing could not be found' } }],
    ]);
  });
});
