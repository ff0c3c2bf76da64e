import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

const enc = encodeURIComponent;

/** A project whose repository has a first commit on `main` (a README). */
const projectWithRepository = (overrides: Record<string, unknown> = {}) => s.createProject({ initialize_with_readme: true, ...overrides });

/** Commits `files` to `branch` through the repository API; a new branch starts from `main`. Answers the commit id. */
async function commitFiles(projectId: number, files: Record<string, string>, branch = 'main'): Promise<string> {
  const branchExists = (await s.get(`/projects/${projectId}/repository/branches/${enc(branch)}`)).status === 200;
  const actions = [];
  for (const [file_path, content] of Object.entries(files)) {
    const exists = (await s.get(`/projects/${projectId}/repository/files/${enc(file_path)}`, { query: { ref: branchExists ? branch : 'main' } })).status === 200;
    actions.push({ action: exists ? 'update' : 'create', file_path, content });
  }
  const res = await s.post(`/projects/${projectId}/repository/commits`, {
    branch,
    commit_message: `CI files on ${branch}`,
    actions,
    ...(branchExists || branch === 'main' ? {} : { start_branch: 'main' }),
  });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
  return res.body.id;
}

const createBranch = async (projectId: number, branch: string) => {
  const res = await s.post(`/projects/${projectId}/repository/branches`, { branch, ref: 'main' });
  if (res.status !== 201) throw new Error(`branch: ${res.status} ${res.text}`);
};

describe('POST /projects/:id/ci/lint', () => {
  it('answers 200 with valid, errors, warnings, merged_yaml and includes', async () => {
    const p = await s.createProject();
    const res = await s.post(`/projects/${p.id}/ci/lint`, { content: 'test:\n  script: echo 1\n' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.body).toEqual({ valid: true, errors: [], warnings: [], merged_yaml: '---\ntest:\n  script: echo 1\n', includes: [] });
  });

  it('reports errors with null merged_yaml and includes', async () => {
    const p = await s.createProject();
    const res = await s.post(`/projects/${p.id}/ci/lint`, { content: 'rubocop:\n  scriptt:\n    - bundle exec rubocop\n' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      valid: false,
      errors: ['jobs rubocop config should implement the script:, run:, or trigger: keyword', 'jobs config should contain at least one visible job'],
      warnings: [],
      merged_yaml: null,
      includes: null,
    });
  });

  it("checks each keyword's value as GitLab does: durations, regexps RE2 refuses, expressions, matrix size, services", async () => {
    const p = await s.createProject();
    const content = [
      'rspec:',
      '  script: rspec',
      '  timeout: 31 days',
      '  retry: { max: 3, when: [script_failure, gremlins] }',
      '  only: ["/^(?!main).+/"]',
      '  parallel:',
      '    matrix:',
      '      - { A: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21], B: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }',
      '  services:',
      '    - name: postgres',
      '      pull_policy: sometimes',
      '      docker: { platform: 64 }',
      'deploy:',
      '  script: deploy',
      '  rules:',
      '    - if: $CI_COMMIT_BRANCH == main',
      '  environment: { name: production, deployment_tier: live }',
    ].join('\n');
    const res = await s.post(`/projects/${p.id}/ci/lint`, { content });
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    expect(res.body.errors).toEqual([
      'jobs:rspec:only config should be an array of strings or regular expressions using re2 syntax',
      'jobs:rspec:services:service executor opts value at `/docker/platform` is not a string',
      'jobs:rspec:timeout config should not exceed the limit',
      'retry max must be less than or equal to 2',
      'retry when contains unknown values: gremlins',
      'jobs:rspec:parallel:matrix config generates too many jobs (maximum is 200)',
      'jobs:deploy:rules:rule if invalid expression syntax',
      'jobs:deploy:environment deployment tier must be one of production, staging, testing, development, other',
    ]);
  });

  it('answers exactly "Invalid configuration format" for content that is not a mapping', async () => {
    const p = await s.createProject();
    const res = await s.post(`/projects/${p.id}/ci/lint`, { content: 'invalid' });
    expect(res.body.errors).toEqual(['Invalid configuration format']);
  });

  it('lists jobs with include_jobs, in the static and the dry-run shapes', async () => {
    const p = await projectWithRepository();
    const content = 'build:\n  stage: build\n  script: make\n  tags: [docker]\ntest:\n  script: rspec\n  needs: [build]\n';
    const res = await s.post(`/projects/${p.id}/ci/lint`, { content, include_jobs: true });
    expect(res.body.jobs).toEqual([
      { name: 'build', stage: 'build', before_script: [], script: ['make'], after_script: [], tag_list: ['docker'], only: { refs: ['branches', 'tags'] }, except: null, environment: null, when: 'on_success', allow_failure: false, needs: null },
      { name: 'test', stage: 'test', before_script: [], script: ['rspec'], after_script: [], tag_list: [], only: { refs: ['branches', 'tags'] }, except: null, environment: null, when: 'on_success', allow_failure: false, needs: [{ name: 'build', artifacts: true, optional: false }] },
    ]);
    const dry = await s.post(`/projects/${p.id}/ci/lint`, { content, include_jobs: true, dry_run: true, ref: 'main' });
    expect(dry.body.valid).toBe(true);
    expect(Object.keys(dry.body.jobs[0])).toEqual(['name', 'stage', 'before_script', 'script', 'after_script', 'tag_list', 'environment', 'when', 'allow_failure']);
    const without = await s.post(`/projects/${p.id}/ci/lint`, { content });
    expect(without.body).not.toHaveProperty('jobs');
  });

  it('simulates a push pipeline on a dry run: rules, only/except and variables decide the jobs', async () => {
    const p = await projectWithRepository();
    await createBranch(p.id, 'docs');
    await createBranch(p.id, 'release-1');
    expect((await s.post(`/projects/${p.id}/repository/tags`, { tag_name: 'v1.0', ref: 'main' })).status).toBe(201);
    const content = [
      'variables:',
      '  DEPLOY: "yes"',
      'build:',
      '  script: make',
      'docs:',
      '  script: mkdocs',
      '  rules:',
      '    - if: $CI_COMMIT_BRANCH == "docs"',
      'deploy:',
      '  script: ./deploy',
      '  rules:',
      '    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH && $DEPLOY == "yes"',
      '      when: manual',
      'nightly:',
      '  script: ./nightly',
      '  only: [schedules]',
      'release:',
      '  script: ./release',
      '  only: [/^release-.*$/]',
      'lint:',
      '  script: ./lint',
      '  except: [main]',
      'publish:',
      '  script: ./publish',
      '  rules:',
      '    - if: $CI_COMMIT_TAG =~ /^v\\d/',
      'branch-only:',
      '  script: ./branch',
      '  only: [branches]',
      '',
    ].join('\n');
    const names = async (ref?: string) => {
      const res = await s.post(`/projects/${p.id}/ci/lint`, { content, dry_run: true, include_jobs: true, ...(ref ? { ref } : {}) });
      expect(res.status).toBe(200);
      return res.body.jobs.map((j: any) => `${j.name}:${j.when}`);
    };
    expect(await names()).toEqual(['build:on_success', 'deploy:manual', 'branch-only:on_success']);
    expect(await names('docs')).toEqual(['build:on_success', 'docs:on_success', 'lint:on_success', 'branch-only:on_success']);
    expect(await names('release-1')).toEqual(['build:on_success', 'release:on_success', 'lint:on_success', 'branch-only:on_success']);
    // A tag pipeline: CI_COMMIT_TAG instead of CI_COMMIT_BRANCH, and `only: [branches]` does not match.
    expect(await names('v1.0')).toEqual(['build:on_success', 'lint:on_success', 'publish:on_success']);
    // The static check lists every job.
    const statik = await s.post(`/projects/${p.id}/ci/lint`, { content, include_jobs: true });
    expect(statik.body.jobs.map((j: any) => j.name)).toEqual(['build', 'docs', 'deploy', 'nightly', 'release', 'lint', 'publish', 'branch-only']);
  });

  it('reports a dry run that would create no pipeline as invalid, keeping merged_yaml', async () => {
    const p = await projectWithRepository();
    await createBranch(p.id, 'feature-x');
    const ruled = 'test:\n  script: echo\n  rules:\n    - if: $CI_COMMIT_BRANCH == "other"\n';
    const none = await s.post(`/projects/${p.id}/ci/lint`, { content: ruled, dry_run: true, include_jobs: true });
    expect(none.body).toEqual({
      valid: false,
      errors: ['Pipeline will not run for the selected trigger. The rules configuration prevented any jobs from being added to the pipeline.'],
      warnings: [],
      merged_yaml: '---\ntest:\n  script: echo\n  rules:\n  - if: $CI_COMMIT_BRANCH == "other"\n',
      includes: [],
      jobs: [],
    });
    expect((await s.post(`/projects/${p.id}/ci/lint`, { content: ruled })).body.valid).toBe(true);
    const workflow = 'workflow:\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "merge_request_event"\ntest:\n  script: echo\n';
    const filtered = await s.post(`/projects/${p.id}/ci/lint`, { content: workflow, dry_run: true });
    expect(filtered.body).toMatchObject({ valid: false, errors: ['Pipeline filtered out by workflow rules.'] });
    const regex = 'test:\n  script: echo\n  rules:\n    - if: $CI_COMMIT_REF_NAME =~ /^feat/ || $CI_PIPELINE_SOURCE == "web"\n';
    expect((await s.post(`/projects/${p.id}/ci/lint`, { content: regex, dry_run: true, ref: 'feature-x' })).body.valid).toBe(true);
    expect((await s.post(`/projects/${p.id}/ci/lint`, { content: regex, dry_run: true, ref: 'main' })).body.valid).toBe(false);
  });

  it('answers a dry run on a ref that is no branch or tag as Ci::CreatePipelineService does', async () => {
    const content = 'test:\n  script: echo\n';
    const notFound = { valid: false, errors: ['Reference not found'], warnings: [], merged_yaml: null, includes: null };
    const empty = await s.createProject();
    expect((await s.post(`/projects/${empty.id}/ci/lint`, { content, dry_run: true })).body).toEqual(notFound);
    const p = await projectWithRepository();
    expect((await s.post(`/projects/${p.id}/ci/lint`, { content, dry_run: true, ref: 'nope' })).body).toEqual(notFound);
    await createBranch(p.id, 'twice');
    expect((await s.post(`/projects/${p.id}/repository/tags`, { tag_name: 'twice', ref: 'main' })).status).toBe(201);
    expect((await s.post(`/projects/${p.id}/ci/lint`, { content, dry_run: true, ref: 'twice' })).body.errors).toEqual(['Ref is ambiguous']);
    // The static check needs no ref.
    expect((await s.post(`/projects/${empty.id}/ci/lint`, { content })).body.valid).toBe(true);
  });

  it('evaluates rules:exists against the project files at the dry-run ref', async () => {
    const p = await projectWithRepository();
    await commitFiles(p.id, { Dockerfile: 'FROM scratch\n' });
    const content = 'container:\n  script: docker build .\n  rules:\n    - exists: [Dockerfile]\ngems:\n  script: bundle\n  rules:\n    - exists: ["**/Gemfile"]\n';
    const res = await s.post(`/projects/${p.id}/ci/lint`, { content, dry_run: true, include_jobs: true });
    expect(res.body.jobs.map((j: any) => j.name)).toEqual(['container']);
  });

  it('requires content', async () => {
    const p = await s.createProject();
    const res = await s.post(`/projects/${p.id}/ci/lint`, {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'content is missing' });
  });

  it('needs Developer (create_pipeline): reporters get 403, strangers 404', async () => {
    const p = await s.createProject({ visibility: 'private' });
    const reporter = await s.createUser();
    const stranger = await s.createUser();
    await s.addMember('projects', p.id, reporter.user.id, 20);
    expect((await s.post(`/projects/${p.id}/ci/lint`, { content: 'a:\n  script: x\n' }, { token: reporter.token })).status).toBe(403);
    expect((await s.post(`/projects/${p.id}/ci/lint`, { content: 'a:\n  script: x\n' }, { token: stranger.token })).body).toEqual({
      message: '404 Project Not Found',
    });
    expect((await s.post(`/projects/${p.id}/ci/lint`, { content: 'a:\n  script: x\n' }, { token: null })).status).toBe(401);
  });

  it('resolves include:local from the repository (default branch; the ref on a dry run) and lists the include', async () => {
    const p = await projectWithRepository();
    const head = await commitFiles(p.id, { 'ci/build.yml': 'build:\n  stage: build\n  script: make\n' });
    await commitFiles(p.id, { 'ci/build.yml': 'build:\n  stage: build\n  script: make release\n' }, 'release');
    const content = 'include:\n  - local: ci/build.yml\ntest:\n  script: rspec\n  needs: [build]\n';
    const res = await s.post(`/projects/${p.id}/ci/lint`, { content, include_jobs: true });
    expect(res.body.valid).toBe(true);
    expect(res.body.merged_yaml).toBe('---\nbuild:\n  stage: build\n  script: make\ntest:\n  script: rspec\n  needs:\n  - build\n');
    expect(res.body.includes).toHaveLength(1);
    expect(res.body.includes[0]).toMatchObject({ type: 'local', location: 'ci/build.yml', extra: {}, context_project: p.path_with_namespace });
    expect(res.body.includes[0]).toMatchObject({ context_sha: head, blob: `${s.url}/${p.path_with_namespace}/-/blob/${head}/ci/build.yml`, raw: `${s.url}/${p.path_with_namespace}/-/raw/${head}/ci/build.yml` });
    // A static check reads the project's head commit whatever `ref` says; a dry run reads the ref's.
    expect((await s.post(`/projects/${p.id}/ci/lint`, { content, include_jobs: true, ref: 'release' })).body.jobs[0].script).toEqual(['make']);
    const onRelease = await s.post(`/projects/${p.id}/ci/lint`, { content, include_jobs: true, dry_run: true, ref: 'release' });
    expect(onRelease.body.jobs[0].script).toEqual(['make release']);
    const missing = await s.post(`/projects/${p.id}/ci/lint`, { content: 'include: nope.yml\na:\n  script: x\n' });
    expect(missing.body.errors).toEqual(['Local file `nope.yml` does not exist!']);
  });

  it('follows nested and wildcard local includes through the repository', async () => {
    const p = await projectWithRepository();
    await commitFiles(p.id, {
      'ci/a.yml': 'include: ci/nested/b.yml\na:\n  script: a\n',
      'ci/nested/b.yml': 'include: ci/nested/c.yml\nb:\n  script: b\n',
      'ci/nested/c.yml': 'c:\n  script: c\n',
      'jobs/one.yml': 'one:\n  script: one\n',
      'jobs/two.yml': 'two:\n  script: two\n',
      'jobs/empty.yaml': '',
    });
    const res = await s.post(`/projects/${p.id}/ci/lint`, { content: 'include:\n  - ci/a.yml\n  - local: jobs/*.yml\n', include_jobs: true });
    expect(res.body.errors).toEqual([]);
    // Each file's includes merge before its own keys (Processor#perform), so the deepest come first.
    expect(res.body.jobs.map((j: any) => j.name)).toEqual(['c', 'b', 'a', 'one', 'two']);
    expect(res.body.includes.map((i: any) => i.location).sort()).toEqual(['ci/a.yml', 'ci/nested/b.yml', 'ci/nested/c.yml', 'jobs/one.yml', 'jobs/two.yml']);
    const empty = await s.post(`/projects/${p.id}/ci/lint`, { content: 'include: jobs/empty.yaml\na:\n  script: x\n' });
    expect(empty.body.errors).toEqual(['Local file `jobs/empty.yaml` is empty!']);
  });
});

describe('GET /projects/:id/ci/lint', () => {
  it('answers 404 Repository Not Found for a project with an empty repository', async () => {
    const p = await s.createProject();
    const res = await s.get(`/projects/${p.id}/ci/lint`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Repository Not Found' });
  });

  it('lints the CI file of the default branch, content_ref or the deprecated sha', async () => {
    const p = await projectWithRepository();
    await commitFiles(p.id, { '.gitlab-ci.yml': 'test:\n  script: echo main\n' });
    await commitFiles(p.id, { '.gitlab-ci.yml': 'test:\n  stage: nope\n  script: echo\n' }, 'feature');
    const main = await s.get(`/projects/${p.id}/ci/lint`, { query: { include_jobs: true } });
    expect(main.status).toBe(200);
    expect(main.body.valid).toBe(true);
    expect(main.body.jobs[0].script).toEqual(['echo main']);
    const feature = await s.get(`/projects/${p.id}/ci/lint`, { query: { content_ref: 'feature' } });
    expect(feature.body.errors).toEqual(['test job: chosen stage nope does not exist; available stages are .pre, build, test, deploy, .post']);
    expect((await s.get(`/projects/${p.id}/ci/lint`, { query: { sha: 'feature' } })).body.valid).toBe(false);
    // Includes are read at the content_ref's commit, a branch or a commit SHA.
    const first = await commitFiles(p.id, { 'ci/a.yml': 'b:\n  script: y\n', '.gitlab-ci.yml': 'include: ci/a.yml\n' }, 'feature');
    await commitFiles(p.id, { 'ci/a.yml': 'b:\n  stage: nope\n  script: y\n' }, 'feature');
    const viaInclude = await s.get(`/projects/${p.id}/ci/lint`, { query: { content_ref: 'feature' } });
    expect(viaInclude.body.errors).toEqual(['b job: chosen stage nope does not exist; available stages are .pre, build, test, deploy, .post']);
    const atFirst = await s.get(`/projects/${p.id}/ci/lint`, { query: { content_ref: first } });
    expect(atFirst.body).toMatchObject({ valid: true, includes: [{ location: 'ci/a.yml', context_sha: first }] });
    const missing = await s.get(`/projects/${p.id}/ci/lint`, { query: { content_ref: 'nope' } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Commit Not Found' });
  });

  it('reads the project\'s ci_config_path, and reports a commit without the CI file', async () => {
    const p = await projectWithRepository();
    const res = await s.get(`/projects/${p.id}/ci/lint`);
    expect(res.body).toEqual({ valid: false, errors: ['Please provide content of .gitlab-ci.yml'], warnings: [], merged_yaml: null, includes: null });
    await commitFiles(p.id, { 'ci/pipeline.yml': 'from-config-path:\n  script: x\n' });
    expect((await s.put(`/projects/${p.id}`, { ci_config_path: 'ci/pipeline.yml' })).status).toBe(200);
    const configured = await s.get(`/projects/${p.id}/ci/lint`, { query: { include_jobs: true } });
    expect(configured.body.jobs.map((j: any) => j.name)).toEqual(['from-config-path']);
  });

  it('simulates the pipeline of dry_run_ref (or ref) on a dry run, needing create_pipeline', async () => {
    const p = await projectWithRepository({ visibility: 'private' });
    await commitFiles(p.id, { '.gitlab-ci.yml': 'test:\n  script: echo\n  only: [stable]\n' });
    await createBranch(p.id, 'stable');
    expect((await s.get(`/projects/${p.id}/ci/lint`, { query: { dry_run: true } })).body.errors).toEqual([
      'Pipeline will not run for the selected trigger. The rules configuration prevented any jobs from being added to the pipeline.',
    ]);
    const onStable = await s.get(`/projects/${p.id}/ci/lint`, { query: { dry_run: true, dry_run_ref: 'stable', include_jobs: true } });
    expect(onStable.body).toMatchObject({ valid: true, jobs: [{ name: 'test', stage: 'test', when: 'on_success' }] });
    expect((await s.get(`/projects/${p.id}/ci/lint`, { query: { dry_run: true, ref: 'stable' } })).body.valid).toBe(true);
    const reporter = await s.createUser();
    await s.addMember('projects', p.id, reporter.user.id, 20);
    const asReporter = await s.get(`/projects/${p.id}/ci/lint`, { query: { dry_run: true, dry_run_ref: 'stable' }, token: reporter.token });
    expect(asReporter.body.errors).toEqual(['Insufficient permissions to create a new pipeline']);
  });

  it('refuses sha with content_ref and ref with dry_run_ref', async () => {
    const p = await s.createProject();
    expect((await s.get(`/projects/${p.id}/ci/lint`, { query: { sha: 'a', content_ref: 'b' } })).body).toEqual({ error: 'sha, content_ref are mutually exclusive' });
    expect((await s.get(`/projects/${p.id}/ci/lint`, { query: { ref: 'a', dry_run_ref: 'b' } })).body).toEqual({ error: 'ref, dry_run_ref are mutually exclusive' });
  });

  it('needs read access to the code: guests of a private project get 403', async () => {
    const p = await projectWithRepository({ visibility: 'private' });
    await commitFiles(p.id, { '.gitlab-ci.yml': 'a:\n  script: x\n' });
    const guest = await s.createUser();
    await s.addMember('projects', p.id, guest.user.id, 10);
    expect((await s.get(`/projects/${p.id}/ci/lint`, { token: guest.token })).status).toBe(403);
    const reporter = await s.createUser();
    await s.addMember('projects', p.id, reporter.user.id, 20);
    expect((await s.get(`/projects/${p.id}/ci/lint`, { token: reporter.token })).status).toBe(200);
  });
});

describe('POST /ci/lint (legacy instance lint)', () => {
  it('answers status valid or invalid with errors', async () => {
    const ok = await s.post('/ci/lint', { content: '---\n:test_job:\n  :script: echo 1\n' });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ valid: true, errors: [], warnings: [], includes: [], status: 'valid' });
    const merged = await s.post('/ci/lint', { content: 'a:\n  script: x\n', include_merged_yaml: true, include_jobs: true });
    expect(merged.body.merged_yaml).toBe('---\na:\n  script: x\n');
    expect(merged.body.jobs).toHaveLength(1);
    const bad = await s.post('/ci/lint', { content: 'invalid' }, { token: null });
    expect(bad.status).toBe(200);
    expect(bad.body).toEqual({ valid: false, errors: ['Invalid configuration format'], warnings: [], includes: null, status: 'invalid' });
  });
});
