import { describe, expect, it } from 'vitest';
import { lintCiConfig, type LintContext } from '../../src/main/service/areas/ci_lint/validator';

const files: Record<string, string> = {
  'templates/build.yml': 'build:\n  stage: build\n  script: make\n',
  'templates/base.yml': '.base:\n  tags: [docker]\n  before_script: [setup]\n',
  'templates/nested.yml': 'include: templates/build.yml\nlint:\n  stage: .pre\n  script: lint\n',
  'templates/broken.yml': 'a:\n  b: 1\n c: 2\n',
  'templates/empty.yml': '',
  'jobs/one.yml': 'one:\n  script: x\n',
  'jobs/two.yml': 'two:\n  script: y\n',
};
const ctx: LintContext = {
  readLocal: (p) => files[p],
  listLocal: () => Object.keys(files),
  describeLocal: (p) => ({ blob: `blob/${p}`, raw: `raw/${p}`, context_project: 'g/p', context_sha: 'abc' }),
};

const VISIBLE = 'jobs config should contain at least one visible job';
const WARN_DOCS = 'read more: https://docs.gitlab.com/ee/ci/jobs/job_troubleshooting.html#job-may-allow-multiple-pipelines-to-run-for-a-single-action-warning';
const ENV_NAME = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'";
const thrice = (errors: string[]): string[] => [...errors, ...errors, ...errors];

/** [title, content, expected errors ([] = valid), expected warnings (optional)] */
const cases: [string, string, string[], string[]?][] = [
  // valid configurations
  ['a single job', 'test:\n  script: echo 1\n', []],
  ['Ruby-symbol keys', '---\n:test_job:\n  :script: echo 1\n', []],
  ['custom stages', 'stages: [build, deploy]\nb:\n  stage: build\n  script: x\nd:\n  stage: deploy\n  script: y\n', []],
  ['.pre and .post always exist', 'stages: [build]\na:\n  stage: .pre\n  script: x\nb:\n  stage: build\n  script: x\nc:\n  stage: .post\n  script: x\n', []],
  ['`type:` is no longer a keyword', 'a:\n  type: build\n  script: x\n', ['jobs:a config contains unknown keys: type']],
  ['script as nested arrays', 'a:\n  script:\n    - [echo 1, [echo 2]]\n    - echo 3\n', []],
  ['needs in the same stage', 'a:\n  script: x\nb:\n  script: y\n  needs: [a]\n', []],
  ['needs of an earlier stage as hash', 'a:\n  stage: build\n  script: x\nb:\n  script: y\n  needs:\n    - job: a\n      artifacts: false\n', []],
  ['optional need of a missing job', 'b:\n  script: y\n  needs:\n    - job: nope\n      optional: true\n', []],
  ['extends multi-level', '.a:\n  tags: [x]\n.b:\n  extends: .a\n  before_script: [y]\nc:\n  extends: .b\n  script: z\n', []],
  ['extends a list', '.a:\n  tags: [x]\n.b:\n  when: manual\nc:\n  extends: [.a, .b]\n  script: z\n', []],
  ['default before_script and tags', 'default:\n  before_script: [setup]\n  tags: [docker]\na:\n  script: x\n', []],
  ['variables at root and job', 'variables:\n  A: "1"\n  B:\n    value: "2"\n    description: b\na:\n  script: x\n  variables:\n    C: c\n', []],
  ['workflow rules', 'workflow:\n  rules:\n    - if: $CI_COMMIT_BRANCH\na:\n  script: x\n  rules:\n    - when: always\n', []],
  ['rules with if and when', 'a:\n  script: x\n  rules:\n    - if: $CI_COMMIT_TAG\n      when: never\n    - if: $CI_COMMIT_BRANCH\n', []],
  ['only and except', 'a:\n  script: x\n  only: [main]\n  except:\n    refs: [tags]\n', []],
  ['environment string and hash', 'a:\n  script: x\n  environment: production\nb:\n  script: x\n  environment:\n    name: review\n    url: https://example.com\n', []],
  ['environment on_stop', 'a:\n  script: x\n  environment:\n    name: review\n    on_stop: stop\nstop:\n  script: x\n  when: manual\n  environment:\n    name: review\n    action: stop\n', []],
  ['allow_failure exit codes', 'a:\n  script: x\n  allow_failure:\n    exit_codes: [1, 2]\n', []],
  ['trigger job without script', 'a:\n  trigger: group/project\n', []],
  ['hidden jobs beside a visible one', '.tmpl:\n  nothing: here\na:\n  script: x\n', []],
  ['include local', 'include: templates/build.yml\ntest:\n  script: x\n  needs: [build]\n', []],
  ['include local as hash, nested', 'include:\n  - local: /templates/nested.yml\ntest:\n  script: x\n', []],
  ['extends a job from an include', 'include: templates/base.yml\ntest:\n  extends: .base\n  script: x\n', []],
  ['YAML anchors and merge keys', '.common: &common\n  tags: [x]\na:\n  <<: *common\n  script: x\n', []],
  ['dependencies in prior stages', 'a:\n  stage: build\n  script: x\nb:\n  script: y\n  dependencies: [a]\n', []],
  // invalid configurations
  ['not a mapping', 'invalid', ['Invalid configuration format']],
  ['a list', '- a\n- b\n', ['Invalid configuration format']],
  ['only comments', '# nothing\n', ['Invalid configuration format']],
  ['empty content', '', ['Please provide content of .gitlab-ci.yml']],
  ['YAML syntax error', 'a:\n  b: 1\n c: 2\n', ['(<unknown>): did not find expected key while parsing a block mapping at line 1 column 1']],
  ['tab indentation', 'a:\n\tscript: x\n', ['(<unknown>): found character that cannot start any token while scanning for the next token at line 2 column 1']],
  ['job without script', 'build_job:\n  stage: build\n', ['jobs build_job config should implement the script:, run:, or trigger: keyword', VISIBLE]],
  ['misspelled script', 'rubocop:\n  scriptt:\n    - bundle exec rubocop\n', ['jobs rubocop config should implement the script:, run:, or trigger: keyword', VISIBLE]],
  ['a job that is a string', 'a:\n  script: x\nfoo: bar\n', ['jobs foo config should implement the script:, run:, or trigger: keyword']],
  ['only hidden jobs', '.a:\n  script: x\n', [VISIBLE]],
  ['unknown job keys', 'test:\n  script: x\n  foo: 1\n  bar: 2\n', ['jobs:test config contains unknown keys: foo, bar']],
  ['unknown stage', 'test:\n  stage: testx\n  script: echo 1\n', ['test job: chosen stage testx does not exist; available stages are .pre, build, test, deploy, .post']],
  ['default stage missing from custom stages', 'stages: [build]\na:\n  script: x\n', ['a job: chosen stage test does not exist; available stages are .pre, build, .post']],
  ['stages not a list of strings', 'stages: build\na:\n  script: x\n', ['stages config should be an array of strings or a nested array of strings up to 10 levels deep']],
  ['need of an unknown job', 'a:\n  script: x\n  needs: [nope]\n', ['a job: undefined need: nope']],
  ['need of a later stage', 'a:\n  stage: build\n  script: x\n  needs: [b]\nb:\n  stage: deploy\n  script: y\n', ['a job: need b is not defined in current or prior stages']],
  ['duplicated needs', 'a:\n  script: x\nb:\n  script: y\n  needs: [a, a]\n', ['b has the following needs duplicated: a.']],
  ['circular needs', 'a:\n  script: x\n  needs: [b]\nb:\n  script: y\n  needs: [a]\n', ['The pipeline has circular dependencies: topological sort failed: ["a", "b"]']],
  ['unknown dependency', 'a:\n  script: x\n  dependencies: [nope]\n', ['a job: undefined dependency: nope']],
  ['extends an unknown job', 'a:\n  extends: .nope\n  script: x\n', ['a: unknown keys in `extends` (.nope)']],
  ['extends cycle', '.a:\n  extends: .b\n.b:\n  extends: .a\nc:\n  extends: .a\n  script: x\n', ['.a: circular dependency detected in `extends`']],
  ['invalid when', 'a:\n  script: x\n  when: sometimes\n', ['jobs:a when should be one of: on_success, on_failure, always, manual, delayed']],
  ['rules with only', 'a:\n  script: x\n  rules:\n    - if: $X\n  only: [main]\n', ['jobs:a config key may not be used with `rules`: only']],
  ['unknown rule key', 'a:\n  script: x\n  rules:\n    - iff: $X\n', ['jobs:a:rules:rule config contains unknown keys: iff']],
  ['allow_failure not a boolean', 'a:\n  script: x\n  allow_failure: maybe\n', ['jobs:a allow failure should be a hash or a boolean value']],
  ['tags not strings', 'a:\n  script: x\n  tags: docker\n', ['jobs:a:tags config should be an array of strings']],
  ['script not strings', 'a:\n  script:\n    key: value\n', ['jobs:a:script config should be a string or a nested array of strings up to 10 levels deep']],
  ['environment of the wrong type', 'a:\n  script: x\n  environment: [a]\n', ['jobs:a:environment config should be a hash or a string', "jobs:a:environment name can't be blank", `jobs:a:environment name ${ENV_NAME}`, `jobs:a:environment name ${ENV_NAME}`]],
  ['on_stop job missing', 'a:\n  script: x\n  environment:\n    name: review\n    on_stop: stop\n', ['a job: on_stop job stop is not defined']],
  ['unknown default keys', 'default:\n  foo: 1\na:\n  script: x\n', ['default config contains unknown keys: foo']],
  ['unknown workflow keys', 'workflow:\n  foo: 1\na:\n  script: x\n', ['workflow config contains unknown keys: foo']],
  ['missing local include', 'include: nope.yml\na:\n  script: x\n', ['Local file `nope.yml` does not exist!']],
  ['wildcard local include', 'include:\n  - local: jobs/*.yml\n', []],
  ['wildcard without matches', 'include:\n  - local: nope/*.yml\na:\n  script: x\n', ['Local file `nope/*.yml` does not exist!']],
  ['empty local include', 'include: templates/empty.yml\na:\n  script: x\n', ['Local file `templates/empty.yml` is empty!']],
  ['broken local include', 'include: templates/broken.yml\na:\n  script: x\n', ['Included file `templates/broken.yml` does not have valid YAML syntax!']],
  ['upper-case names are reported lower-cased', 'Build:\n  script: x\n  Foo: 1\n', ['jobs:build config contains unknown keys: foo']],
  // messages of GitLab's own specs (spec/lib/gitlab/ci/yaml_processor_spec.rb)
  ['mapping values in a compact mapping', 'invalid: yaml: test\n', ['(<unknown>): mapping values are not allowed in this context at line 1 column 14']],
  ['an unknown alias', 'steps: *bad_alias\n', ['Unknown alias: bad_alias']],
  ['a three-job needs cycle', 'job_a:\n  script: build\n  needs: [job_c]\njob_b:\n  script: test\n  needs: [job_a]\njob_c:\n  script: deploy\n  needs: [job_b]\n', ['The pipeline has circular dependencies: topological sort failed: ["job_a", "job_c", "job_b"]']],
  ['a job needing itself', 'job_0:\n  script: build\njob:\n  script: build\n  needs: [job_0, job]\n', ['The pipeline has circular dependencies: self-dependency: job']],
  ['stage of a custom list', 'stages: [build, test]\nrspec:\n  script: test\n  stage: acceptance\n', ['rspec job: chosen stage acceptance does not exist; available stages are .pre, build, test, .post']],
  ['stage not a string', 'rspec:\n  script: test\n  stage: 1\n', ['jobs:rspec:stage config should be a string']],
  ['before_script with a number', 'rspec:\n  script: test\n  before_script: [10, test]\n', ['jobs:rspec:before_script config should be a string or a nested array of strings up to 10 levels deep']],
  // A top-level entry is inherited by `default:` and by each job, which report its errors again.
  ['image of the wrong type', 'image: [test]\nrspec:\n  script: test\n', thrice(['image config should be a hash or a string', 'image name should be a string', "image name can't be blank"])],
  ['services not an array', 'rspec:\n  script: test\n  services: test\n', ['jobs:rspec:services config should be a array']],
  ['services of the wrong type', 'services: [10, test]\nrspec:\n  script: test\n', thrice(['services:service config should be a hash or a string', 'services:service name should be a string', "services:service name can't be blank"])],
  ['variables not a hash', 'variables: test\nrspec:\n  script: test\n', ['variables config should be a hash']],
  ['a variable that is a list', 'variables:\n  test: []\nrspec:\n  script: test\n', ['variable definition must be either a string or a hash']],
  ['exit codes not integers', 'rspec:\n  script: test\n  allow_failure:\n    exit_codes: string\n', ['jobs:rspec:allow_failure exit codes should be an array of integers or an integer']],
  ['artifacts not a hash', 'test:\n  script: x\n  artifacts:\n    - paths:\n    - test/\n', ['jobs:test:artifacts config should be a hash', 'jobs:test:artifacts config should be a hash']],
  ['artifacts details', 'rspec:\n  script: test\n  artifacts:\n    name: 1\n    when: 1\n    expire_in: 7 elephants\n', ['jobs:rspec:artifacts name should be a string', 'jobs:rspec:artifacts when should be a string', 'jobs:rspec:artifacts when should be one of: on_success, on_failure, always', 'jobs:rspec:artifacts expire in should be a duration']],
  ['cache details', 'cache:\n  key: 1\n  paths: string\n  untracked: string\nrspec:\n  script: test\n', thrice(['cache:key should be a hash, a string or a symbol', 'cache:untracked config should be a boolean value', 'cache:paths config should be an array of strings'])],
  ['timeout not a duration', 'deploy:\n  script: test\n  timeout: not-a-number\n', ['jobs:deploy:timeout config should be a duration', 'jobs:deploy:timeout config should not exceed the limit']],
  ['environment name with a colon', 'deploy:\n  script: test\n  environment: production:staging\n', ["jobs:deploy:environment name can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'"]],
  ['on_stop job without stop action', 'review:\n  script: test\n  environment:\n    name: review\n    on_stop: close_review\nclose_review:\n  script: test\n  environment:\n    name: review\n', ['review job: on_stop job close_review needs to have action stop defined']],
  ['dependencies not a list', 'rspec:\n  script: test\n  dependencies: string\n', ['jobs:rspec dependencies should be an array of strings']],
  ['parallel of the wrong type', 'rspec:\n  script: test\n  parallel: test\n', ['jobs:rspec:parallel should be an integer or a hash']],
  ['rules not a list, with unknown keys', 'rspec:\n  script: test\n  bad_tags: mysql\n  rules:\n    wrong: format\n', ['jobs:rspec rules should be an array containing hashes and arrays of hashes', 'jobs:rspec config contains unknown keys: bad_tags']],
  ['start_in with rules', 'job:\n  script: test\n  when: delayed\n  start_in: 10 minutes\n  rules:\n    - if: $VAR\n', ['jobs:job config key may not be used with `rules`: start_in', 'jobs:job start in must be blank']],
  ['delayed job without start_in', 'job:\n  script: test\n  when: delayed\n', ['jobs:job start in should be a duration', 'jobs:job start in should not exceed the limit']],
  ['unknown need keys', 'rspec:\n  script: rspec\n  needs:\n    - pipeline: $THE_PIPELINE_ID\n      job: dependency-job\n      something: else\n', ['jobs:rspec:needs:need config contains unknown keys: something']],
  ['workflow rule when manual', 'workflow:\n  rules:\n    - when: manual\na:\n  script: x\n', ['workflow:rules:rule when unknown value: manual']],
  ['policy of the wrong type', 'rspec:\n  script: test\n  only: main\n', ['jobs:rspec:only has to be either an array of conditions or a hash']],
  ['publish outside pages', 'rspec:\n  script: echo\n  publish: foo\n', ['jobs:rspec publish can only be used within a `pages` job']],
  ['empty needs leave dependencies alone', 'build:\n  script: x\ntest:\n  script: y\n  dependencies: [build]\n  needs: []\n', []],
  ['!reference tags', '.setup:\n  script: [echo a]\n  variables:\n    A: "1"\njob:\n  variables: !reference [.setup, variables]\n  script:\n    - !reference [.setup, script]\n    - echo b\n', []],
  ['a missing !reference', 'job:\n  script:\n    - !reference [.setup, script]\n', ['!reference [".setup", "script"] could not be found']],
  ['a circular !reference', '.a:\n  script: !reference [.b, script]\n.b:\n  script: !reference [.a, script]\njob:\n  script: !reference [.a, script]\n', ['!reference [".b", "script"] is part of a circular chain']],
  // warnings
  ['rules:when without workflow rules warns', 'a:\n  script: x\n  rules:\n    - when: always\n', [], [`jobs:a may allow multiple pipelines to run for a single action due to \`rules:when\` clause with no \`workflow:rules\` - ${WARN_DOCS}`]],
  ['remote include is a warning offline', 'include: https://example.com/ci.yml\na:\n  script: x\n', [], ['Included file `https://example.com/ci.yml` (remote) was not fetched: Sandlab validates offline, only `include:local` files are read']],
];

describe('CI lint configurations', () => {
  it('has at least 40 cases', () => expect(cases.length).toBeGreaterThanOrEqual(40));
  it.each(cases)('%s', (_title, content, errors, warnings) => {
    const result = lintCiConfig(content, ctx);
    expect(result.errors).toEqual(errors);
    expect(result.valid).toBe(errors.length === 0);
    if (warnings) expect(result.warnings).toEqual(warnings);
    if (errors.length) {
      expect(result.merged_yaml).toBeNull();
      expect(result.jobs).toEqual([]);
    } else expect(result.merged_yaml).toMatch(/^---\n/);
  });
});

describe('CI lint results', () => {
  it('lists jobs stage by stage with defaults merged', () => {
    const result = lintCiConfig(
      'default:\n  before_script: [setup]\n  after_script: [teardown]\n  tags: [docker]\n' +
        'deploy:\n  stage: deploy\n  script: d\n  environment: production\n  when: manual\n' +
        'build:\n  stage: build\n  script: [b1, b2]\n  inherit:\n    default: false\n' +
        'test:\n  script: t\n  needs: [build]\n  except: [tags]\n',
      ctx,
    );
    expect(result.jobs).toEqual([
      { name: 'build', stage: 'build', before_script: [], script: ['b1', 'b2'], after_script: [], tag_list: [], only: { refs: ['branches', 'tags'] }, except: null, environment: null, when: 'on_success', allow_failure: false, needs: null },
      { name: 'test', stage: 'test', before_script: ['setup'], script: ['t'], after_script: ['teardown'], tag_list: ['docker'], only: { refs: ['branches', 'tags'] }, except: { refs: ['tags'] }, environment: null, when: 'on_success', allow_failure: false, needs: [{ name: 'build', artifacts: true, optional: false }] },
      { name: 'deploy', stage: 'deploy', before_script: ['setup'], script: ['d'], after_script: ['teardown'], tag_list: ['docker'], only: { refs: ['branches', 'tags'] }, except: null, environment: 'production', when: 'manual', allow_failure: true, needs: null },
    ]);
  });

  it('shows merged_yaml after include and extends', () => {
    const result = lintCiConfig('include: templates/base.yml\ntest:\n  extends: .base\n  script: x\n', ctx);
    expect(result.merged_yaml).toBe('---\n.base:\n  tags:\n  - docker\n  before_script:\n  - setup\ntest:\n  tags:\n  - docker\n  before_script:\n  - setup\n  extends: .base\n  script: x\n');
    expect(result.includes).toEqual([
      { type: 'local', location: 'templates/base.yml', blob: 'blob/templates/base.yml', raw: 'raw/templates/base.yml', extra: {}, context_project: 'g/p', context_sha: 'abc' },
    ]);
  });

  it('resolves !reference into jobs and merged_yaml', () => {
    const result = lintCiConfig('.setup:\n  script: [echo a]\njob:\n  script:\n    - !reference [.setup, script]\n    - echo b\n', ctx);
    expect(result.jobs[0].script).toEqual(['echo a', 'echo b']);
    expect(result.merged_yaml).toBe('---\n.setup:\n  script:\n  - echo a\njob:\n  script:\n  - - echo a\n  - echo b\n');
  });

  it('drops the default only: when rules are used', () => {
    const result = lintCiConfig('a:\n  script: x\n  rules:\n    - if: $X\n', ctx);
    expect(result.jobs[0].only).toBeNull();
  });
});
