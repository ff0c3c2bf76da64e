import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runPython, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

/** The `gitlab` CLI of python-gitlab 3.12, pointed at the live service. */
function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('/usr/bin/python3', ['-m', 'gitlab', '--server-url', served.url, '--private-token', served.token, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('python-gitlab 3.12 project.ci_lint', () => {
  it('create, get and validate flows, unchanged; get reads the repository', () => {
    const out = runPython(
      served,
      `
p = gl.projects.create({"name": "lint-compat", "initialize_with_readme": True})
ok = p.ci_lint.create({"content": "test:\\n  script: echo 1\\n", "include_jobs": True})
bad = p.ci_lint.create({"content": "invalid"})
p.ci_lint.validate({"content": "---\\n:test_job:\\n  :script: echo 1\\n"})
try:
    p.ci_lint.validate({"content": "build:\\n  stage: nope\\n  script: x\\n"})
    raised = None
except gitlab.exceptions.GitlabCiLintError as e:
    raised = str(e)
p.files.create({"file_path": "ci/build.yml", "branch": "main", "content": "build:\\n  stage: build\\n  script: make\\n", "commit_message": "build job"})
p.files.create({"file_path": ".gitlab-ci.yml", "branch": "main", "content": "include: ci/build.yml\\njob:\\n  script: make test\\n  only: [stable]\\n", "commit_message": "CI"})
got = p.ci_lint.get(include_jobs=True)
included = p.ci_lint.create({"content": "include: ci/build.yml\\n", "include_jobs": True})
p.branches.create({"branch": "stable", "ref": "main"})
dry = p.ci_lint.get(dry_run=True, dry_run_ref="stable", include_jobs=True)
off = p.ci_lint.get(dry_run=True, include_jobs=True)
first = p.commits.list(ref_name="main", get_all=True)[-1].id
old = p.ci_lint.get(content_ref=first)
print(json.dumps({"ok": ok.valid, "jobs": [j["name"] for j in ok.jobs], "merged": ok.merged_yaml,
                  "bad": [bad.valid, bad.errors], "raised": raised, "get": [got.valid, [j["name"] for j in got.jobs]],
                  "include": got.includes[0]["location"], "included": [j["name"] for j in included.jobs],
                  "dry": [j["name"] for j in dry.jobs], "off": [j["name"] for j in off.jobs], "old": old.errors}))
`,
    );
    expect(out).toEqual({
      ok: true,
      jobs: ['test'],
      merged: '---\ntest:\n  script: echo 1\n',
      bad: [false, ['Invalid configuration format']],
      raised: 'build job: chosen stage nope does not exist; available stages are .pre, build, test, deploy, .post',
      get: [true, ['build', 'job']],
      include: 'ci/build.yml',
      included: ['build'],
      dry: ['build', 'job'],
      off: ['build'],
      old: ['Please provide content of .gitlab-ci.yml'],
    });
  });

  it('instance gl.ci_lint and the deprecated gl.lint', () => {
    const out = runPython(
      served,
      `
ok = gl.ci_lint.create({"content": "test:\\n  script: echo 1\\n"})
gl.ci_lint.validate({"content": "---\\n:test_job:\\n  :script: echo 1\\n"})
try:
    gl.ci_lint.validate({"content": "invalid"})
    raised = None
except gitlab.exceptions.GitlabCiLintError as e:
    raised = str(e)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    legacy = gl.lint("Invalid")
print(json.dumps({"status": ok.status, "raised": raised, "legacy": [legacy[0], legacy[1]]}))
`,
    );
    expect(out).toEqual({ status: 'valid', raised: 'Invalid configuration format', legacy: [false, ['Invalid configuration format']] });
  });

  it('the CLI validates Ruby-symbol keys and reports invalid content', () => {
    const content = '---\n:test_job:\n  :script: echo 1\n';
    expect(cli('ci-lint', 'create', '--content', content).status).toBe(0);
    expect(cli('ci-lint', 'validate', '--content', content).status).toBe(0);
    const bad = cli('ci-lint', 'validate', '--content', 'invalid');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('CI YAML Lint failed (Invalid configuration format)');
    const project = cli('-o', 'json', 'project', 'create', '--name', 'cli-lint');
    const id = String(JSON.parse(project.stdout).id);
    expect(cli('project-ci-lint', 'validate', '--project-id', id, '--content', content).status).toBe(0);
    const projectBad = cli('project-ci-lint', 'validate', '--project-id', id, '--content', 'invalid');
    expect(projectBad.status).not.toBe(0);
    expect(projectBad.stderr).toContain('CI YAML Lint failed (Invalid configuration format)');
  });
});
