import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runGo, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

describe('go-gitlab 0.73 Validate', () => {
  it('lints content (ProjectNamespaceLint) and the repository CI file (ProjectLint, a dry run)', () => {
    const out = runGo(
      served,
      `
	p, _, err := git.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.String("go-lint"), InitializeWithReadme: gitlab.Bool(true)})
	must(err)
	_, _, err = git.RepositoryFiles.CreateFile(p.ID, "templates/deploy.yml", &gitlab.CreateFileOptions{
		Branch: gitlab.String("main"), CommitMessage: gitlab.String("deploy template"),
		Content: gitlab.String("deploy:\\n  stage: deploy\\n  script: ./deploy\\n  rules:\\n    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH\\n"),
	})
	must(err)
	_, _, err = git.RepositoryFiles.CreateFile(p.ID, ".gitlab-ci.yml", &gitlab.CreateFileOptions{
		Branch: gitlab.String("main"), CommitMessage: gitlab.String("CI"),
		Content: gitlab.String("include:\\n  - local: templates/deploy.yml\\nunit:\\n  script: go test ./...\\n"),
	})
	must(err)
	posted, _, err := git.Validate.ProjectNamespaceLint(p.ID, &gitlab.ProjectNamespaceLintOptions{Content: gitlab.String("include: templates/deploy.yml\\nunit:\\n  script: x\\n  needs: [deploy]\\n")})
	must(err)
	got, _, err := git.Validate.ProjectLint(p.ID, &gitlab.ProjectLintOptions{DryRun: gitlab.Bool(true)})
	must(err)
	return map[string]any{"posted": []any{posted.Valid, posted.Errors}, "got": []any{got.Valid, got.Errors, len(got.MergedYaml) > 0}}`,
    );
    expect(out).toEqual({
      posted: [false, ['unit job: need deploy is not defined in current or prior stages']],
      got: [true, [], true],
    });
  });
});
