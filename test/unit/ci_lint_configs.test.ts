import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Root } from '../../src/main/service/areas/ci_lint/entries/root';
import { lintCiConfig, loadYaml, type LintContext } from '../../src/main/service/areas/ci_lint/validator';

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

/** A configuration written the way GitLab's specs write it: `YAML.dump` of a hash. */
const Y = (config: Record<string, unknown>): string => stringify(config);
/** A config with one job `rspec` (the name GitLab's entry specs give their job), and other entries. */
const rspec = (job: Record<string, unknown>, rest: Record<string, unknown> = {}): string => Y({ ...rest, rspec: job });
const JOB_WHEN = 'on_success, on_failure, always, manual, delayed';
const SCRIPT_OR_TRIGGER = 'config should implement the script:, run:, or trigger: keyword';

/**
 * Configurations ported from GitLab's specs (spec/lib/gitlab/ci/yaml_processor_spec.rb and
 * spec/lib/gitlab/ci/config/entry/*_spec.rb), each with the complete error list GitLab's lint
 * gives for it: the spec's expected message, plus the others GitLab's validators add beside it
 * (its specs mostly check `include`). An entry spec checks one entry alone; here it sits in a job
 * named `rspec`, so "job ..." reads "jobs:rspec ...".
 * [spec, title, content, expected errors ([] = valid), expected warnings (optional)]
 */
const specCases: [string, string, string, string[], string[]?][] = [
  // --- yaml_processor_spec.rb --------------------------------------------------------------------
  ['yaml_processor', 'workflow:variables are not allowed', 'workflow:\n  rules:\n    - if: $VAR == "value"\n  variables:\n    UNSUPPORTED: "unparsed"\n',
    ['workflow config contains unknown keys: variables', 'jobs config should contain at least one visible job']],
  ['yaml_processor', 'a warning raised together with errors', 'rspec:\n  script: rspec\n  rules:\n    - when: always\ninvalid:\n  script: echo\n  artifacts:\n    - wrong_key: value\n',
    ['jobs:invalid:artifacts config should be a hash', 'jobs:invalid:artifacts config should be a hash'], [`jobs:rspec may allow multiple pipelines to run for a single action due to \`rules:when\` clause with no \`workflow:rules\` - ${WARN_DOCS}`]],
  ['yaml_processor', 'stage does not exist, with a warning', 'rspec:\n  stage: custom_stage\n  script: rspec\n  rules:\n    - when: always\n',
    ['rspec job: chosen stage custom_stage does not exist; available stages are .pre, build, test, deploy, .post'], [`jobs:rspec may allow multiple pipelines to run for a single action due to \`rules:when\` clause with no \`workflow:rules\` - ${WARN_DOCS}`]],
  ['yaml_processor', 'job dependency does not exist', 'build:\n  stage: build\n  script: echo\n  rules:\n    - when: always\ntest:\n  stage: test\n  script: echo\n  needs: [unknown_job]\n',
    ['test job: undefined need: unknown_job']],
  ['yaml_processor', 'job dependency defined in a later stage', 'build:\n  stage: build\n  script: echo\n  needs: [test]\n  rules:\n    - when: always\ntest:\n  stage: test\n  script: echo\n',
    ['build job: need test is not defined in current or prior stages']],
  ['yaml_processor', 'rules:needs that all pass', "stages:\n  - lint\nlint_job:\n  needs: [lint_job_2]\n  stage: lint\n  script: 'echo lint_job'\n  rules:\n    - if: $var == null\n      needs:\n        - lint_job_2\n        - job: lint_job_3\n          optional: true\nlint_job_2:\n  stage: lint\n  script: 'echo job'\n  rules:\n    - if: $var == null\nlint_job_3:\n  stage: lint\n  script: 'echo job'\n  rules:\n    - if: $var == null\n", []],
  ['yaml_processor', 'a rules:needs in a following stage', "stages: [lint, test]\nlint_job:\n  stage: lint\n  script: 'echo lint_job'\n  rules:\n    - if: $var == null\n      needs: [test_job]\ntest_job:\n  stage: test\n  script: 'echo job'\n  rules:\n    - if: $var == null\n",
    ['lint_job job: need test_job is not defined in current or prior stages']],
  ['yaml_processor', 'several rules:needs in a following stage', "stages: [lint, test]\nlint_job:\n  stage: lint\n  script: 'echo lint_job'\n  rules:\n    - if: $var == null\n      needs: [test_job, test_job_2]\ntest_job:\n  stage: test\n  script: 'echo job'\n  rules:\n    - if: $var == null\ntest_job_2:\n  stage: test\n  script: 'echo job'\n  rules:\n    - if: $var == null\n",
    ['lint_job job: need test_job is not defined in current or prior stages']],
  ['yaml_processor', 'a rules:needs as a string and a hash', "stages: [test]\ntest_job_1:\n  stage: test\n  script: 'echo lint_job'\n  rules:\n    - if: $var == null\n      needs:\n        - test_job_2\n        - job: test_job_2\ntest_job_2:\n  stage: test\n  script: 'echo job'\n  rules:\n    - if: $var == null\n",
    ['test_job_1 has the following needs duplicated: test_job_2.']],
  ['yaml_processor', 'a rules:needs hash in a following stage', "stages: [lint, test]\nlint_job:\n  stage: lint\n  script: 'echo lint_job'\n  rules:\n    - if: $var == null\n      needs:\n        - job: test_job\n          artifacts: false\n          optional: false\ntest_job:\n  stage: test\n  script: 'echo job'\n  rules:\n    - if: $var == null\n",
    ['lint_job job: need test_job is not defined in current or prior stages']],
  ['yaml_processor', 'a rules:needs job that does not exist', 'build:\n  stage: build\n  script: echo\n  rules:\n    - when: always\ntest:\n  stage: test\n  script: echo\n  rules:\n    - if: $var == null\n      needs: [unknown_job]\n',
    ['test job: undefined need: unknown_job']],
  ['yaml_processor', 'only: an integer', rspec({ script: 'rspec', stage: 'test', only: 1 }), ['jobs:rspec:only has to be either an array of conditions or a hash']],
  ['yaml_processor', 'only: integers', rspec({ script: 'rspec', stage: 'test', only: [1, 1] }), ['jobs:rspec:only config should be an array of strings or regular expressions using re2 syntax']],
  ['yaml_processor', 'only: a regexp RE2 refuses', rspec({ script: 'rspec', stage: 'test', only: ['/*invalid/'] }), ['jobs:rspec:only config should be an array of strings or regular expressions using re2 syntax']],
  ['yaml_processor', 'except: an integer', rspec({ script: 'rspec', except: 1 }), ['jobs:rspec:except has to be either an array of conditions or a hash']],
  ['yaml_processor', 'except: integers', rspec({ script: 'rspec', except: [1, 1] }), ['jobs:rspec:except config should be an array of strings or regular expressions using re2 syntax']],
  ['yaml_processor', 'except: a regexp RE2 refuses', rspec({ script: 'rspec', except: ['/*invalid/'] }), ['jobs:rspec:except config should be an array of strings or regular expressions using re2 syntax']],
  ['yaml_processor', 'nested before_script arrays', Y({ before_script: [[['global script'], 'echo 1'], 'echo 2', ['ls'], 'pwd'], test: { script: ['script'] } }), []],
  ['yaml_processor', 'hooks with nested scripts', Y({ test: { script: ['script'], hooks: { pre_get_sources_script: [[['global script'], 'echo 1'], 'echo 2', ['ls'], 'pwd'] } } }), []],
  ['yaml_processor', 'hooks from default', Y({ default: { hooks: { pre_get_sources_script: ['echo 1', 'echo 2', 'pwd'] } }, test: { script: ['script'] } }), []],
  ['yaml_processor', 'extended docker image and services', Y({ image: { name: 'image:1.0', entrypoint: ['/usr/local/bin/init', 'run'] }, services: ['mysql', { name: 'docker:dind', alias: 'docker', entrypoint: ['/usr/local/bin/init', 'run'], command: ['/usr/local/bin/init', 'run'] }], before_script: ['pwd'], rspec: { script: 'rspec' } }), []],
  ['yaml_processor', 'image pull_policy', 'image:\n  name: ruby:2.7\n  pull_policy: if-not-present\ntest:\n  script: exit 0\n', []],
  ['yaml_processor', 'service pull_policy', 'services:\n  - name: postgres:11.9\n    pull_policy: if-not-present\ntest:\n  script: exit 0\n', []],
  ['yaml_processor', 'image and service docker options', 'test:\n  script: exit 0\n  image:\n    name: ruby:2.7\n    docker:\n      platform: linux/amd64\n      user: dave\n  services:\n    - name: postgres:11.9\n      docker:\n        platform: linux/amd64\n        user: john\n', []],
  ['yaml_processor', 'job variables as a list', 'before_script: [pwd]\nrspec:\n  script: rspec\n  variables: [VAR1 value1 VAR2 value2]\n', ['jobs:rspec:variables config should be a hash']],
  ['yaml_processor', 'job variables: null', 'before_script: [pwd]\nrspec:\n  script: rspec\n  variables: null\n', []],
  ['yaml_processor', 'variables of different types', 'before_script: [pwd]\nrspec:\n  variables:\n    VAR1: value1\n    VAR2: :value2\n    VAR3: 123\n  script: rspec\n', []],
  ['yaml_processor', 'variables with data', 'variables:\n  VAR1: value1\n  VAR2:\n    value: value2\n    description: description2\n  VAR3:\n    value: value3\n    expand: false\nrspec:\n  script: rspec\n  variables:\n    VAR4: value4\n    VAR5:\n      value: value5\n      expand: false\n    VAR6:\n      value: value6\n      expand: true\n', []],
  ['yaml_processor', 'overriding extends', '.base:\n  script: test\n  variables:\n    VAR1: base var 1\ntest1:\n  extends: .base\n  variables:\n    VAR1: test1 var 1\n    VAR2: test2 var 2\ntest2:\n  extends: .base\n  variables:\n    VAR2: test2 var 2\ntest3:\n  extends: .base\n  variables: {}\ntest4:\n  extends: .base\n  variables: null\n', []],
  ['yaml_processor', 'recursive extends', 'rspec:\n  extends: .test\n  script: rspec\n  when: always\n.template:\n  before_script:\n    - bundle install\n.test:\n  extends: .template\n  script: test\n  image: image:test\n', []],
  ['yaml_processor', 'delayed with start_in', rspec({ script: 'rspec', when: 'delayed', start_in: '1 hour' }), []],
  ['yaml_processor', 'delayed without start_in', rspec({ script: 'rspec', when: 'delayed' }), ['jobs:rspec start in should be a duration', 'jobs:rspec start in should not exceed the limit']],
  ['yaml_processor', 'parallel: 5', rspec({ script: 'rspec', parallel: 5, variables: { VAR1: 1 } }), []],
  ['yaml_processor', 'parallel: matrix', rspec({ script: 'rspec', parallel: { matrix: [{ PROVIDER: 'aws', STACK: ['monitoring', 'app1', 'app2'] }, { PROVIDER: 'ovh', STACK: ['monitoring', 'backup', 'app'] }, { PROVIDER: 'gcp', STACK: ['data', 'processing'] }] }, variables: { VAR1: 1 } }), []],
  ['yaml_processor', 'cache with unknown keys', Y({ cache: { untracked: true, invalid: 'key' }, rspec: { script: 'rspec' } }), thrice(['cache config contains unknown keys: invalid'])],
  ['yaml_processor', 'cache keys, files and prefixes', Y({ default: { cache: { paths: ['logs/', 'binaries/'], untracked: true, key: { files: ['file'] } } }, rspec: { script: 'rspec', cache: [{ paths: ['binaries/'], untracked: true, key: 'keya' }, { paths: ['logs/'], untracked: true, key: { files: ['file'], prefix: 'prefix' } }] } }), []],
  ['yaml_processor', 'id_tokens in default and job', Y({ default: { id_tokens: { ID_TOKEN_1: { aud: 'http://gcp.com' } } }, rspec: { script: 'rspec', id_tokens: { ID_TOKEN_2: { aud: 'http://job.com' } } } }), []],
  ['yaml_processor', 'artifacts with expose_as', Y({ image: 'image:1.0', services: ['mysql'], before_script: ['pwd'], rspec: { artifacts: { paths: ['logs/', 'binaries/'], expose_as: 'Exposed artifacts', untracked: true, name: 'custom_name', expire_in: '7d' }, script: 'rspec' } }), []],
  ['yaml_processor', 'artifacts expire_in never', rspec({ script: 'rspec', artifacts: { paths: ['releases/'], expire_in: 'never', when: 'on_failure' } }), []],
  ['yaml_processor', 'artifacts as a list', 'test:\n  script:\n    - echo "Hello world"\n  artifacts:\n    - paths:\n    - test/\n', ['jobs:test:artifacts config should be a hash', 'jobs:test:artifacts config should be a hash']],
  ['yaml_processor', 'a complete release', Y({ stages: ['build', 'test', 'release'], release: { stage: 'release', only: ['tags'], script: ['make changelog | tee release_changelog.txt'], release: { tag_name: '$CI_COMMIT_TAG', tag_message: 'Annotated tag message', name: 'Release $CI_TAG_NAME', description: './release_changelog.txt', ref: 'b3235930aa443112e639f941c69c578912189bdd', released_at: '2019-03-15T08:00:00Z', milestones: ['m1', 'm2', 'm3'], assets: { links: [{ name: 'cool-app.zip', url: 'http://my.awesome.download.site/1.0-$CI_COMMIT_SHORT_SHA.zip' }, { name: 'cool-app.exe', url: 'http://my.awesome.download.site/1.0-$CI_COMMIT_SHORT_SHA.exe' }] } } } }), []],
  ['yaml_processor', 'environment with a url and a port variable', Y({ deploy_to_production: { stage: 'deploy', script: 'test', environment: { name: 'production', url: 'http://production.gitlab.com:$PORT' } } }), []],
  ['yaml_processor', 'environment: 1', Y({ deploy_to_production: { stage: 'deploy', script: 'test', environment: 1 } }),
    ['jobs:deploy_to_production:environment config should be a hash or a string', "jobs:deploy_to_production:environment name can't be blank", `jobs:deploy_to_production:environment name ${ENV_NAME}`, `jobs:deploy_to_production:environment name ${ENV_NAME}`]],
  ['yaml_processor', 'environment name with a colon', Y({ deploy_to_production: { stage: 'deploy', script: 'test', environment: 'production:staging' } }), [`jobs:deploy_to_production:environment name ${ENV_NAME}`]],
  ['yaml_processor', 'on_stop job with the environment stopped', Y({ review: { stage: 'deploy', script: 'test', environment: { name: 'review', on_stop: 'close_review' } }, close_review: { stage: 'deploy', script: 'test', environment: { name: 'review', action: 'stop' } } }), []],
  ['yaml_processor', 'on_stop job not defined', Y({ review: { stage: 'deploy', script: 'test', environment: { name: 'review', on_stop: 'close_review' } } }), ['review job: on_stop job close_review is not defined']],
  ['yaml_processor', 'on_stop job without environment', Y({ review: { stage: 'deploy', script: 'test', environment: { name: 'review', on_stop: 'close_review' } }, close_review: { stage: 'deploy', script: 'test' } }), ['review job: on_stop job close_review does not have environment defined']],
  ['yaml_processor', 'on_stop job of another environment', Y({ review: { stage: 'deploy', script: 'test', environment: { name: 'review', on_stop: 'close_review' } }, close_review: { stage: 'deploy', script: 'test', environment: 'production' } }), ['review job: on_stop job close_review have different environment name']],
  ['yaml_processor', 'on_stop job without stop action', Y({ review: { stage: 'deploy', script: 'test', environment: { name: 'review', on_stop: 'close_review' } }, close_review: { stage: 'deploy', script: 'test', environment: { name: 'review' } } }), ['review job: on_stop job close_review needs to have action stop defined']],
  ['yaml_processor', 'timeout: not-a-number', Y({ deploy_to_production: { stage: 'deploy', script: 'test', timeout: 'not-a-number' } }), ['jobs:deploy_to_production:timeout config should be a duration', 'jobs:deploy_to_production:timeout config should not exceed the limit']],
  ['yaml_processor', 'timeout: 1m 3s', Y({ deploy_to_production: { stage: 'deploy', script: 'test', timeout: '1m 3s' } }), []],
  ...dependencyCases(),
  ...needsCases(),
  ['yaml_processor', 'rules of every kind', Y({ var_default: { stage: 'build', script: 'test', rules: [{ if: '$VAR == null' }] }, var_when: { stage: 'build', script: 'test', rules: [{ if: '$VAR == null', when: 'always' }] }, var_and_changes: { stage: 'build', script: 'test', rules: [{ if: '$VAR == null', changes: ['README'], when: 'always' }] }, changes_not_var: { stage: 'test', script: 'test', rules: [{ if: '$VAR != null', changes: ['README'] }] }, var_not_changes: { stage: 'test', script: 'test', rules: [{ if: '$VAR == null', changes: ['other/file.rb'], when: 'always' }] }, nothing: { stage: 'test', script: 'test', rules: [{ when: 'manual' }] }, var_never: { stage: 'deploy', script: 'test', rules: [{ if: '$VAR == null', when: 'never' }] }, var_delayed: { stage: 'deploy', script: 'test', rules: [{ if: '$VAR == null', when: 'delayed', start_in: '3 hours' }] }, two_rules: { stage: 'deploy', script: 'test', rules: [{ if: '$VAR == null', when: 'on_success' }, { changes: ['README'], when: 'manual' }] } }), [],
    [`jobs:nothing may allow multiple pipelines to run for a single action due to \`rules:when\` clause with no \`workflow:rules\` - ${WARN_DOCS}`]],
  ['yaml_processor', 'rules with a job-level when', Y({ var_default: { stage: 'build', script: 'test', when: 'always', rules: [{ if: '$VAR == null' }] } }), []],
  ['yaml_processor', 'rules with a job-level when: delayed', Y({ var_default: { stage: 'build', script: 'test', when: 'delayed', start_in: '10 minutes', rules: [{ if: '$VAR == null' }] } }),
    ['jobs:var_default config key may not be used with `rules`: start_in', 'jobs:var_default start in must be blank']],
  ['yaml_processor', 'cross-pipeline needs', 'rspec:\n  stage: test\n  script: rspec\n  needs:\n    - pipeline: $THE_PIPELINE_ID\n      job: dependency-job\n', []],
  ['yaml_processor', 'cross-pipeline needs with a hard-coded id', 'rspec:\n  stage: test\n  script: rspec\n  needs:\n    - pipeline: "123"\n      job: dependency-job\n', []],
  ['yaml_processor', 'cross-pipeline needs with an unknown key', 'rspec:\n  stage: test\n  script: rspec\n  needs:\n    - pipeline: $THE_PIPELINE_ID\n      job: dependency-job\n      something: else\n', ['jobs:rspec:needs:need config contains unknown keys: something']],
  ['yaml_processor', 'hidden jobs with and without script', Y({ '.hidden_job': { image: 'image:1.0' }, '.hidden_job2': { image: 'image:1.0', script: 'test' }, normal_job: { script: 'test' } }), []],
  ['yaml_processor', 'a job as a template', 'job1: &JOBTMPL\n  stage: build\n  script: execute-script-for-job\n\njob2: *JOBTMPL\n', []],
  ['yaml_processor', 'a template merged into jobs', '.template: &JOBTMPL\n  stage: build\n\njob1:\n  <<: *JOBTMPL\n  script: execute-script-for-job\n\njob2:\n  <<: *JOBTMPL\n  script: execute-script-for-job\n', []],
  ...childPipelineCases(),
  ['yaml_processor', 'invalid YAML', 'invalid: yaml: test', ['(<unknown>): mapping values are not allowed in this context at line 1 column 14']],
  ['yaml_processor', 'a string document', 'invalid_yaml', ['Invalid configuration format']],
  ['yaml_processor', 'YAML.dump of a string', Y({ x: 1 }).replace(/.*/s, "--- 'invalid: yaml: test'\n"), ['Invalid configuration format']],
  ['yaml_processor', 'tags: a string', rspec({ script: 'test', tags: 'mysql' }), ['jobs:rspec:tags config should be an array of strings']],
  ['yaml_processor', 'before_script with a number', rspec({ script: 'test', before_script: [10, 'test'] }), ['jobs:rspec:before_script config should be a string or a nested array of strings up to 10 levels deep']],
  ['yaml_processor', 'after_script with a number', rspec({ script: 'test', after_script: [10, 'test'] }), ['jobs:rspec:after_script config should be a string or a nested array of strings up to 10 levels deep']],
  ['yaml_processor', 'a blank job name', '"":\n  script: test\n', ["jobs:job name can't be blank"]],
  ['yaml_processor', 'a job name that is a number', '10:\n  script: test\n', ['jobs:10 name should be a symbol']],
  ['yaml_processor', 'a job image that is a list', rspec({ script: 'test', image: ['test'] }), ['jobs:rspec:image config should be a hash or a string', 'jobs:rspec:image name should be a string', "jobs:rspec:image name can't be blank"]],
  ['yaml_processor', 'services: a string', Y({ services: 'test', rspec: { script: 'test' } }), thrice(['services config should be a array'])],
  ['yaml_processor', 'job services: a string', rspec({ script: 'test', services: 'test' }), ['jobs:rspec:services config should be a array']],
  ['yaml_processor', 'job services of the wrong type', rspec({ script: 'test', services: [10, 'test'] }), ['jobs:rspec:services:service config should be a hash or a string', 'jobs:rspec:services:service name should be a string', "jobs:rspec:services:service name can't be blank"]],
  ['yaml_processor', 'a job that is a string', Y({ extra: 'bundle update' }), [`jobs extra ${SCRIPT_OR_TRIGGER}`, VISIBLE]],
  ['yaml_processor', 'services of a job named extra', Y({ extra: { script: 'rspec', services: 'test' } }), ['jobs:extra:services config should be a array']],
  ['yaml_processor', 'no jobs', Y({ before_script: ['bundle update'] }), [VISIBLE]],
  ['yaml_processor', 'a job without script', rspec({ before_script: 'test' }), [`jobs rspec ${SCRIPT_OR_TRIGGER}`, VISIBLE]],
  ['yaml_processor', 'only a hidden job', Y({ before_script: ['bundle update'], '.hidden': { script: 'ls' } }), [VISIBLE]],
  ['yaml_processor', 'allow_failure: a string', rspec({ script: 'test', allow_failure: 'string' }), ['jobs:rspec allow failure should be a hash or a boolean value']],
  ['yaml_processor', 'allow_failure exit codes: a string', rspec({ script: 'test', allow_failure: { exit_codes: 'string' } }), ['jobs:rspec:allow_failure exit codes should be an array of integers or an integer']],
  ['yaml_processor', 'stage: a number', rspec({ script: 'test', stage: 1 }), ['jobs:rspec:stage config should be a string']],
  ['yaml_processor', 'a stage not predefined', rspec({ script: 'test', stage: 'acceptance' }), ['rspec job: chosen stage acceptance does not exist; available stages are .pre, build, test, deploy, .post']],
  ['yaml_processor', 'a stage not defined', Y({ stages: ['build', 'test'], rspec: { script: 'test', stage: 'acceptance' } }), ['rspec job: chosen stage acceptance does not exist; available stages are .pre, build, test, .post']],
  ['yaml_processor', 'stages: a string', Y({ stages: 'test', rspec: { script: 'test' } }), ['stages config should be an array of strings or a nested array of strings up to 10 levels deep']],
  ['yaml_processor', 'stages with a boolean', Y({ stages: [true, 'test'], rspec: { script: 'test' } }), ['stages config should be an array of strings or a nested array of strings up to 10 levels deep']],
  ['yaml_processor', 'variables: a string', Y({ variables: 'test', rspec: { script: 'test' } }), ['variables config should be a hash']],
  ['yaml_processor', 'a variable that is a list', Y({ variables: { test: [] }, rspec: { script: 'test' } }), ['variable definition must be either a string or a hash']],
  ['yaml_processor', 'when: a number', rspec({ script: 'test', when: 1 }), ['jobs:rspec when should be a string', `jobs:rspec when should be one of: ${JOB_WHEN}`]],
  ['yaml_processor', 'artifacts name: a number', Y({ stages: ['build', 'test'], rspec: { script: 'test', artifacts: { name: 1 } } }), ['jobs:rspec:artifacts name should be a string']],
  ['yaml_processor', 'artifacts when: a number', Y({ stages: ['build', 'test'], rspec: { script: 'test', artifacts: { when: 1 } } }), ['jobs:rspec:artifacts when should be a string', 'jobs:rspec:artifacts when should be one of: on_success, on_failure, always']],
  ['yaml_processor', 'artifacts expire_in: a number', Y({ stages: ['build', 'test'], rspec: { script: 'test', artifacts: { expire_in: 1 } } }), ['jobs:rspec:artifacts expire in should be a duration']],
  ['yaml_processor', 'artifacts expire_in: 7 elephants', Y({ stages: ['build', 'test'], rspec: { script: 'test', artifacts: { expire_in: '7 elephants' } } }), ['jobs:rspec:artifacts expire in should be a duration']],
  ['yaml_processor', 'artifacts untracked: a string', Y({ stages: ['build', 'test'], rspec: { script: 'test', artifacts: { untracked: 'string' } } }), ['jobs:rspec:artifacts untracked should be a boolean value']],
  ['yaml_processor', 'artifacts paths: a string', Y({ stages: ['build', 'test'], rspec: { script: 'test', artifacts: { paths: 'string' } } }), ['jobs:rspec:artifacts paths should be an array of strings']],
  ['yaml_processor', 'cache untracked: a string', Y({ cache: { untracked: 'string' }, rspec: { script: 'test' } }), thrice(['cache:untracked config should be a boolean value'])],
  ['yaml_processor', 'cache paths: a string', Y({ cache: { paths: 'string' }, rspec: { script: 'test' } }), thrice(['cache:paths config should be an array of strings'])],
  ['yaml_processor', 'cache key: a number', Y({ cache: { key: 1 }, rspec: { script: 'test' } }), thrice(['cache:key should be a hash, a string or a symbol'])],
  ['yaml_processor', 'job cache key: a number', Y({ stages: ['build', 'test'], rspec: { script: 'test', cache: { key: 1 } } }), ['jobs:rspec:cache:key should be a hash, a string or a symbol']],
  ['yaml_processor', 'cache key files: numbers', Y({ stages: ['build', 'test'], rspec: { script: 'test', cache: { key: { files: [1] } } } }), ['jobs:rspec:cache:key:files config should be an array of strings']],
  ['yaml_processor', 'cache key files: empty', Y({ stages: ['build', 'test'], rspec: { script: 'test', cache: { key: { files: [] } } } }), ['jobs:rspec:cache:key:files config requires at least 1 item']],
  // The spec predates `files_commits`: GitLab now asks for exactly one of the two.
  ['yaml_processor', 'cache key: only a prefix', Y({ stages: ['build', 'test'], rspec: { script: 'test', cache: { key: { prefix: 'prefix-key' } } } }), ['jobs:rspec:cache:key config must use exactly one of these keys: files, files_commits']],
  ['yaml_processor', 'cache key prefix: a number', Y({ stages: ['build', 'test'], rspec: { script: 'test', cache: { key: { prefix: 1, files: ['file'] } } } }), ['jobs:rspec:cache:key:prefix config should be a string or symbol']],
  ['yaml_processor', 'job cache untracked: a string', Y({ stages: ['build', 'test'], rspec: { script: 'test', cache: { untracked: 'string' } } }), ['jobs:rspec:cache:untracked config should be a boolean value']],
  ['yaml_processor', 'job cache paths: a string', Y({ stages: ['build', 'test'], rspec: { script: 'test', cache: { paths: 'string' } } }), ['jobs:rspec:cache:paths config should be an array of strings']],
  ['yaml_processor', 'dependencies: a string', Y({ stages: ['build', 'test'], rspec: { script: 'test', dependencies: 'string' } }), ['jobs:rspec dependencies should be an array of strings']],
  ['yaml_processor', 'only variables: an invalid expression', rspec({ script: 'test', only: { variables: ['== null'] } }), ['jobs:rspec:only variables invalid expression syntax']],
  ['yaml_processor', 'only changes: numbers', rspec({ script: 'test', only: { changes: [1] } }), ['jobs:rspec:only changes should be an array of strings']],
  ['yaml_processor', 'extends of an unknown job', rspec({ extends: 'something', script: 'test' }), ['rspec: unknown keys in `extends` (something)']],
  ['yaml_processor', 'parallel: a string', rspec({ parallel: 'test', script: 'test' }), ['jobs:rspec:parallel should be an integer or a hash']],
  ['yaml_processor', 'rules:changes', 'rspec:\n  script: exit 0\n  rules:\n    - changes: [README.md]\n', []],
  ['yaml_processor', 'rules:changes:paths', 'rspec:\n  script: exit 0\n  rules:\n    - changes:\n        paths: [README.md]\n', []],
  ['yaml_processor', 'workflow:rules:changes', 'workflow:\n  rules:\n    - changes: [README.md]\nrspec:\n  script: exit 0\n', []],
  ['yaml_processor', 'several keyword errors', rspec({ script: 'test', bad_tags: 'mysql', rules: { wrong: 'format' } }), ['jobs:rspec rules should be an array containing hashes and arrays of hashes', 'jobs:rspec config contains unknown keys: bad_tags']],
  ['yaml_processor', 'publish outside a pages job', 'not-pages:\n  script: echo\n  publish: foo\n', ['jobs:not-pages publish can only be used within a `pages` job']],
  ['yaml_processor', 'publish in a pages job', 'pages:\n  script: echo\n  publish: foo\n', []],
  ['yaml_processor', 'pages: path_prefix', 'pages:\n  script: echo\n  pages:\n    path_prefix: foo\n', []],
  ...jobSpecCases(),
  ...imageSpecCases(),
  ...retryParallelSpecCases(),
  ...needsSpecCases(),
  ...rulesSpecCases(),
  ...policyWorkflowSpecCases(),
  ...artifactsCacheSpecCases(),
  ...environmentReleaseSpecCases(),
  ...triggerBridgeSpecCases(),
  ...processableDefaultSpecCases(),
  ...variablesSpecCases(),
  ...includeJobsSpecCases(),
  ...yamlSpecCases(),
];

/** spec/lib/gitlab/ci/config/entry/job_spec.rb */
function jobSpecCases(): [string, string, string, string[]][] {
  const nested = (depth: number): unknown => (depth === 0 ? [{ if: '$THIS == "other"', when: 'always' }] : [{ if: '$THIS == "other"', when: 'always' }, nested(depth - 1)]);
  const other = { 'another-job': { stage: 'test', script: 'echo' } };
  return [
    ['job', 'a script', rspec({ script: 'rspec' }), []],
    ['job', 'when: and rules:', rspec({ script: 'echo', when: 'on_failure', rules: [{ if: '$VARIABLE', when: 'on_success' }] }), []],
    ['job', 'start_in of exactly a week', rspec({ script: 'echo', when: 'delayed', start_in: '1 week' }), []],
    ['job', 'needs', rspec({ stage: 'test', script: 'echo', needs: ['another-job'] }, other), []],
    ['job', 'needs and dependencies', rspec({ stage: 'test', script: 'echo', dependencies: ['another-job'], needs: ['another-job'] }, other), []],
    ['job', 'a release', rspec({ script: ['make changelog | tee release_changelog.txt'], release: { tag_name: 'v0.06', name: 'Release $CI_TAG_NAME', description: './release_changelog.txt' } }), []],
    ['job', 'rules nested in arrays', rspec({ script: 'ls', cache: { key: 'test' }, rules: [{ if: '$CI_PIPELINE_SOURCE == "schedule"', when: 'never' }, [{ if: '$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH' }, { if: '$CI_PIPELINE_SOURCE == "merge_request_event"' }]] }), []],
    ['job', 'a job that is a list', rspec(['incorrect'] as never), [`jobs rspec ${SCRIPT_OR_TRIGGER}`, VISIBLE]],
    ['job', 'an empty job', rspec({}), [`jobs rspec ${SCRIPT_OR_TRIGGER}`, VISIBLE]],
    ['job', 'unknown keys', rspec({ script: 'echo', unknown: true }), ['jobs:rspec config contains unknown keys: unknown']],
    ['job', 'script and run together', rspec({ script: 'rspec', run: [{ name: 'step1', step: 'some reference' }] }), ['jobs:rspec config these keys cannot be used together: script, run']],
    ['job', 'a blank script', rspec({ script: null }), ["jobs:rspec script can't be blank"]],
    ['job', 'extends: a number', rspec({ script: 'echo', extends: 123 }), ['rspec: unknown keys in `extends` (123)']],
    ['job', 'parallel: true', rspec({ script: 'echo', parallel: true }), ['jobs:rspec:parallel should be an integer or a hash']],
    ['job', 'parallel: 0', rspec({ script: 'echo', parallel: 0 }), ['jobs:rspec:parallel config must be greater than or equal to 1']],
    ['job', 'parallel: {}', rspec({ script: 'echo', parallel: {} }), ['jobs:rspec:parallel config missing required keys: matrix']],
    ['job', 'start_in: nil', rspec({ script: 'echo', when: 'delayed', start_in: null }), ['jobs:rspec start in should be a duration', 'jobs:rspec start in should not exceed the limit']],
    ['job', 'start_in: not a duration', rspec({ script: 'echo', when: 'delayed', start_in: 'test' }), ['jobs:rspec start in should be a duration', 'jobs:rspec start in should not exceed the limit']],
    ['job', 'start_in: more than a week', rspec({ script: 'echo', when: 'delayed', start_in: '8 days' }), ['jobs:rspec start in should not exceed the limit']],
    ['job', 'when: a list', rspec({ script: 'exit 0', when: ['always'] }), ['jobs:rspec when should be a string', `jobs:rspec when should be one of: ${JOB_WHEN}`]],
    ['job', 'when: a boolean', rspec({ script: 'exit 0', when: true }), ['jobs:rspec when should be a string', `jobs:rspec when should be one of: ${JOB_WHEN}`]],
    ['job', 'start_in without when: delayed', rspec({ script: 'echo', start_in: '1 day' }), ['jobs:rspec start in must be blank']],
    ['job', 'dependencies: a string', rspec({ script: 'echo', dependencies: 'build-job' }), ['jobs:rspec dependencies should be an array of strings']],
    ['job', 'dependencies outside needs', rspec({ stage: 'test', script: 'echo', dependencies: ['another-job'], needs: ['build-job'] }), ['jobs:rspec dependencies the another-job should be part of needs']],
    ['job', 'dependencies with only cross-pipeline needs', rspec({ script: 'echo', dependencies: ['rspec'], needs: [{ job: 'rspec', pipeline: 'other' }] }), ['jobs:rspec needs corresponding to dependencies must be from the same pipeline']],
    ['job', 'timeout: 3 months', rspec({ timeout: '3 months', script: 'test' }), ['jobs:rspec:timeout config should not exceed the limit']],
    ['job', 'timeout: a number', rspec({ timeout: 100, script: 'test' }), ['jobs:rspec:timeout config should be a duration', 'jobs:rspec:timeout config should not exceed the limit']],
    ['job', 'timeout: 1m 1s', rspec({ script: 'echo', timeout: '1m 1s' }), []],
    ['job', 'a release without description', rspec({ script: ['make changelog | tee release_changelog.txt'], release: { tag_name: 'v0.06', name: 'Release $CI_TAG_NAME' } }), ['jobs:rspec:release description should be a string', "jobs:rspec:release description can't be blank"]],
    ['job', 'rules nested more than 10 levels', rspec({ script: 'ls', cache: { key: 'test' }, rules: [{ if: '$THIS == "that"', when: 'always' }, nested(10)] }), ['jobs:rspec rules should be an array containing hashes and arrays of hashes']],
    ['job', 'a rule with an invalid key', rspec({ script: 'ls', cache: { key: 'test' }, rules: [{ invalid_key: 'invalid' }, [{ if: '$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH' }, { if: '$CI_PIPELINE_SOURCE == "merge_request_event"' }]] }), ['jobs:rspec:rules:rule config contains unknown keys: invalid_key']],
    ['job', 'only: with rules:', rspec({ only: ['merge_requests'], rules: [{ if: '$THIS' }], script: 'echo' }), ['jobs:rspec config key may not be used with `rules`: only']],
    ['job', 'only: nil with rules:', rspec({ only: null, rules: [{ if: '$THIS' }], script: 'echo' }), []],
    ['job', 'only: with rules: nil', rspec({ only: ['merge_requests'], rules: null, script: 'echo' }), []],
    ['job', 'except: with rules:', rspec({ except: { refs: ['master'] }, rules: [{ if: '$THIS' }], script: 'echo' }), ['jobs:rspec config key may not be used with `rules`: except']],
    ['job', 'except: nil with rules:', rspec({ except: null, rules: [{ if: '$THIS' }], script: 'echo' }), []],
    ['job', 'except: with rules: nil', rspec({ except: { refs: ['master'] }, rules: null, script: 'echo' }), []],
    ['job', 'only: and except: with rules:', rspec({ only: ['merge_requests'], except: { refs: ['master'] }, rules: [{ if: '$THIS' }], script: 'echo' }), ['jobs:rspec config key may not be used with `rules`: only, except']],
    ['job', 'only: and except: nil with rules:', rspec({ only: null, except: null, rules: [{ if: '$THIS' }], script: 'echo' }), []],
    ['job', 'only: and except: with rules: nil', rspec({ only: ['merge_requests'], except: { refs: ['master'] }, rules: null, script: 'echo' }), []],
    ['job', 'publish outside a pages job', rspec({ script: 'echo', publish: 'foo' }), ['jobs:rspec publish can only be used within a `pages` job']],
    ['job', 'a job named pages', Y({ pages: { script: 'echo' } }), []],
    ['job', 'a pages job with publish', Y({ pages: { script: 'echo', publish: 'foo' } }), []],
    ['job', 'a pages job with pages:', Y({ pages: { script: 'echo', pages: { path_prefix: 'foo' } } }), []],
    ['job', 'pages: true', rspec({ script: 'echo', pages: true }), []],
    ['job', 'pages: a hash', rspec({ script: 'echo', pages: { path_prefix: 'foo' } }), []],
    ['job', 'pages: true and publish', rspec({ script: 'echo', pages: true, publish: 'foo' }), []],
    ['job', 'pages: false and publish', Y({ pages: { script: 'echo', pages: false, publish: 'foo' } }), ['jobs:pages publish can only be used within a `pages` job']],
    ['job', 'hooks and id_tokens', rspec({ before_script: ['ls', 'pwd'], script: 'rspec', after_script: ['cleanup'], id_tokens: { TEST_ID_TOKEN: { aud: 'https://gitlab.com' } }, hooks: { pre_get_sources_script: 'echo hello' } }), []],
    ['job', 'retry with exit codes', rspec({ script: 'rspec', retry: { max: 1, when: 'always', exit_codes: 255 } }), []],
    ['job', '100 tags', rspec({ tags: Array.from({ length: 100 }, (_, i) => `tag-${i}`), script: 'test' }), ['jobs:rspec:tags config must be less than the limit of 50 tags']],
    ['job', 'two tags', rspec({ tags: ['tag1', 'tag2'], script: 'test' }), []],
  ];
}

/** image_spec, imageable_spec, service_spec, services_spec, pull_policy_spec (ports: see the Web IDE cases). */
function imageSpecCases(): [string, string, string, string[]][] {
  const image = (config: unknown): string => rspec({ script: 'echo', image: config });
  const service = (config: unknown): string => rspec({ script: 'echo', services: [config] });
  const PORTS = [{ number: 80, protocol: 'http', name: 'foobar' }];
  return [
    ['image', 'a name', image('image:1.0'), []],
    ['image', 'a name and an entrypoint', image({ name: 'image:1.0', entrypoint: ['/bin/sh', 'run'] }), []],
    ['image', 'docker: {}', image({ name: 'image:1.0', docker: {} }), []],
    ['image', 'docker platform', image({ name: 'image:1.0', docker: { platform: 'amd64' } }), []],
    ['image', 'docker platform: a number', image({ name: 'image:1.0', docker: { platform: 1 } }), ['jobs:rspec:image executor opts value at `/docker/platform` is not a string']],
    ['image', 'docker user', image({ name: 'image:1.0', docker: { user: 'dave' } }), []],
    ['image', 'docker user: a UID', image({ name: 'image:1.0', docker: { user: '1001' } }), []],
    ['image', 'docker user: a number', image({ name: 'image:1.0', docker: { user: 1 } }), ['jobs:rspec:image executor opts value at `/docker/user` is not a string']],
    ['image', 'an unknown docker option', image({ name: 'image:1.0', docker: { unknown_key: 'foo' } }), ['jobs:rspec:image executor opts object property at `/docker/unknown_key` is a disallowed additional property']],
    ['image', 'ports outside the Web IDE', image({ name: 'image:1.0', entrypoint: ['/bin/sh', 'run'], ports: PORTS }), ['jobs:rspec:image config contains disallowed keys: ports']],
    ['image', 'pull_policy', image({ name: 'image:1.0', pull_policy: 'if-not-present' }), []],
    ['image', 'a list', image(['image:1.0']), ['jobs:rspec:image config should be a hash or a string', 'jobs:rspec:image name should be a string', "jobs:rspec:image name can't be blank"]],
    ['image', 'an unknown key', image({ name: 'image:1.0', non_existing: 'test' }), ['jobs:rspec:image config contains unknown keys: non_existing']],
    ['imageable', 'an unknown key at the top level', Y({ image: { name: 'image:1.0', non_existing: 'test' }, rspec: { script: 'echo' } }), thrice(['image config contains unknown keys: non_existing'])],
    ['service', 'a name', service('postgresql:9.5'), []],
    ['service', 'name, alias, command, entrypoint, variables', service({ name: 'postgresql:9.5', alias: 'db', command: ['cmd', 'run'], entrypoint: ['/bin/sh', 'run'], variables: { MY_VAR: 'variable' } }), []],
    ['service', 'ports outside the Web IDE', service({ name: 'postgresql:9.5', alias: 'db', command: ['cmd', 'run'], entrypoint: ['/bin/sh', 'run'], ports: PORTS }), ['jobs:rspec:services:service config contains disallowed keys: ports']],
    ['service', 'docker platform', service({ name: 'postgresql:9.5', docker: { platform: 'amd64' } }), []],
    ['service', 'docker user', service({ name: 'postgresql:9.5', docker: { user: 'dave' } }), []],
    ['service', 'an invalid docker option', service({ name: 'postgresql:9.5', docker: { invalid: 'option' } }), ['jobs:rspec:services:service executor opts object property at `/docker/invalid` is a disallowed additional property']],
    ['service', 'docker platform: a number', service({ name: 'postgresql:9.5', docker: { platform: 123 } }), ['jobs:rspec:services:service executor opts value at `/docker/platform` is not a string']],
    ['service', 'pull_policy', service({ name: 'postgresql:9.5', pull_policy: 'if-not-present' }), []],
    // Services flatten nested lists ([@config].flatten): a list is never a service.
    ['service', 'a list', service(['postgresql:9.5']), []],
    ['service', 'an unknown key', service({ name: 'postgresql:9.5', non_existing: 'test' }), ['jobs:rspec:services:service config contains unknown keys: non_existing']],
    ['service', 'ports without an alias', service({ name: 'postgresql:9.5', command: ['cmd', 'run'], entrypoint: ['/bin/sh', 'run'], ports: PORTS }),
      ['jobs:rspec:services:service config contains disallowed keys: ports', 'jobs:rspec:services:service alias should be a string', "jobs:rspec:services:service alias can't be blank"]],
    ['service', 'an alias and no ports', service({ name: 'postgresql:9.5', alias: 'db', command: ['cmd', 'run'], entrypoint: ['/bin/sh', 'run'] }), []],
    ['services', 'names and hashes', rspec({ script: 'echo', services: ['postgresql:9.5', { name: 'postgresql:9.1', alias: 'postgres_old' }] }), []],
    ['services', 'a string', rspec({ script: 'echo', services: 'postgresql:9.5' }), ['jobs:rspec:services config should be a array']],
    ['services', 'ports outside the Web IDE', rspec({ script: 'echo', services: ['postgresql:9.5', { name: 'postgresql:9.1', alias: 'postgres_old', ports: PORTS }] }), ['jobs:rspec:services:service config contains disallowed keys: ports']],
    ['pull_policy', 'an empty list', image({ name: 'image:1.0', pull_policy: [] }), ["jobs:rspec:image:pull_policy config can't be blank"]],
    ['pull_policy', 'a hash', image({ name: 'image:1.0', pull_policy: {} }), ['jobs:rspec:image:pull_policy config should be an array of strings or a string']],
    ['pull_policy', 'always', image({ name: 'image:1.0', pull_policy: 'always' }), []],
    ['pull_policy', 'an invalid policy', image({ name: 'image:1.0', pull_policy: 'invalid' }), ['jobs:rspec:image:pull_policy config is not included in the list']],
    ['pull_policy', 'an empty string', image({ name: 'image:1.0', pull_policy: '' }), ['jobs:rspec:image:pull_policy config is not included in the list']],
    ['pull_policy', 'a list', image({ name: 'image:1.0', pull_policy: ['always', 'if-not-present'] }), []],
    ['pull_policy', 'a list with an invalid policy', image({ name: 'image:1.0', pull_policy: ['always', 'invalid'] }), ['jobs:rspec:image:pull_policy config contains unknown values: invalid']],
  ];
}

/** retry_spec, product/parallel_spec, product/matrix_spec, product/variables_spec (at today's limits: 200 jobs, one variable). */
function retryParallelSpecCases(): [string, string, string, string[]][] {
  const retry = (config: unknown): string => rspec({ script: 'echo', retry: config });
  const parallel = (config: unknown): string => rspec({ script: 'echo', parallel: config });
  const matrix = (config: unknown): string => parallel({ matrix: config });
  const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  return [
    ['retry', '2', retry(2), []],
    ['retry', 'max', retry({ max: 2 }), []],
    ['retry', 'exit_codes: a number', retry({ exit_codes: 255 }), []],
    ['retry', 'exit_codes: numbers', retry({ exit_codes: [255, 142] }), []],
    ['retry', 'when: a failure reason', retry({ when: 'unknown_failure' }), []],
    ['retry', 'when: always', retry({ when: 'always' }), []],
    ['retry', 'when: failure reasons', retry({ when: ['unknown_failure', 'runner_system_failure'] }), []],
    ['retry', 'when: every documented reason', retry({ when: ['always', 'unknown_failure', 'script_failure', 'api_failure', 'stuck_or_timeout_failure', 'runner_system_failure', 'runner_unsupported', 'stale_schedule', 'job_execution_timeout', 'archived_failure', 'unmet_prerequisites', 'scheduler_failure', 'data_integrity_failure'] }), []],
    ['retry', 'when: a failure reason of CommitStatus', retry({ when: ['job_token_expired', 'no_matching_runner'] }), []],
    ['retry', 'true', retry(true), ['retry config has to be either an integer or a hash']],
    ['retry', '-1', retry(-1), ['retry config must be greater than or equal to 0']],
    ['retry', '1.5', retry(1.5), ['retry config has to be either an integer or a hash']],
    ['retry', '10', retry(10), ['retry config must be less than or equal to 2']],
    ['retry', 'unknown keys', retry({ max: 2, unknown_key: 'something', one_more: 'key' }), ['retry config contains unknown keys: unknown_key, one_more']],
    ['retry', 'max: -1', retry({ max: -1 }), ['retry max must be greater than or equal to 0']],
    ['retry', 'max: 1.5', retry({ max: 1.5 }), ['retry max must be an integer']],
    ['retry', 'max: 10', retry({ max: 10 }), ['retry max must be less than or equal to 2']],
    ['retry', 'exit_codes: true', retry({ exit_codes: true }), ['retry exit codes should be an array of integers or an integer']],
    ['retry', 'exit_codes: strings', retry({ exit_codes: ['string 1', 'string 2'] }), ['retry exit codes should be an array of integers or an integer']],
    ['retry', 'exit_codes: mixed', retry({ exit_codes: [255, '155'] }), ['retry exit codes should be an array of integers or an integer']],
    ['retry', 'when: true', retry({ when: true }), ['retry when should be an array of strings or a string']],
    ['retry', 'when: an unknown reason', retry({ when: 'unknown_reason' }), ['retry when is not included in the list']],
    ['retry', 'when: an unknown reason in a list', retry({ when: ['unknown_reason', 'runner_system_failure'] }), ['retry when contains unknown values: unknown_reason']],
    ['parallel', 'true', parallel(true), ['jobs:rspec:parallel should be an integer or a hash']],
    ['parallel', '0', parallel(0), ['jobs:rspec:parallel config must be greater than or equal to 1']],
    ['parallel', '201', parallel(201), ['jobs:rspec:parallel config must be less than or equal to 200']],
    ['parallel', '1.5', parallel(1.5), ['jobs:rspec:parallel config must be an integer']],
    ['parallel', '{}', parallel({}), ['jobs:rspec:parallel config missing required keys: matrix']],
    ['parallel', '2', parallel(2), []],
    ['parallel', 'a number in a bridge', Y({ bridge: { trigger: 'other/project', parallel: 2 } }), ['jobs:bridge:parallel config cannot use "parallel: <number>".']],
    ['parallel', 'a matrix', parallel({ matrix: [{ PROVIDER: 'aws', STACK: ['monitoring', 'app1', 'app2'] }, { PROVIDER: 'gcp', STACK: ['data', 'processing'] }] }), []],
    ['parallel', 'a matrix in a bridge', Y({ bridge: { trigger: 'other/project', parallel: { matrix: [{ PROVIDER: ['aws', 'gcp'] }] } } }), []],
    ['matrix', 'several rows', matrix([{ VAR_1: [1, 2, 3], VAR_2: [4, 5, 6] }, { VAR_3: ['a', 'b'], VAR_4: ['c', 'd'] }]), []],
    ['matrix', 'too many jobs', matrix([{ VAR_1: range(1, 20), VAR_2: range(11, 21) }]), ['jobs:rspec:parallel:matrix config generates too many jobs (maximum is 200)']],
    ['matrix', 'exactly 200 jobs', matrix([{ VAR_1: range(1, 20), VAR_2: range(1, 10) }]), []],
    ['matrix', 'one variable with values', matrix([{ VAR_1: ['build', 'test'] }]), []],
    ['matrix', 'one variable with one value', matrix([{ VAR_1: ['test'] }]), []],
    ['matrix', 'a hash', matrix({}), ['jobs:rspec:parallel:matrix config should be an array of hashes']],
    ['matrix', 'rows of every shape', matrix([{ PROVIDER: 'aws', STACK: ['monitoring', 'app1', 'app2'] }, { STACK: ['monitoring', 'backup', 'app'], PROVIDER: 'ovh' }, { PROVIDER: 'gcp', STACK: ['data', 'processing'], ARGS: 'normal' }, { PROVIDER: 'vultr', STACK: 'data', ARGS: 'store' }]), []],
    ['product/variables', 'numbers, strings and lists', 'rspec:\n  script: echo\n  parallel:\n    matrix:\n      - VARIABLE_1: 1\n        VARIABLE_2: value 2\n        VARIABLE_3: :value_3\n        5: [value 5]\n        VARIABLE_6: [value 6]\n', []],
    ['product/variables', 'a list row', matrix([['VAR', 'test']]), ['jobs:rspec:parallel:matrix config should be an array of hashes']],
    ['product/variables', 'an empty list value', matrix([{ VAR: 'test', VAR2: [] }]), ['jobs:rspec:parallel:matrix:variables config should be a hash of key value pairs, value can be an array']],
    ['product/variables', 'a nested list value', matrix([{ VAR: 'test', VAR2: [1, [2]] }]), ['jobs:rspec:parallel:matrix:variables config should be a hash of key value pairs, value can be an array']],
    ['product/variables', 'one variable', matrix([{ VAR: 'test' }]), []],
    ['product/variables', 'an empty row', matrix([{}]), ['jobs:rspec:parallel:matrix:variables config requires at least 1 items']],
  ];
}

/** need_spec, needs_spec. */
function needsSpecCases(): [string, string, string, string[]][] {
  const needs = (config: unknown, jobs: Record<string, unknown> = {}): string =>
    Y({ ...Object.fromEntries(Object.entries(jobs).map(([k, v]) => [k, { stage: 'build', script: 'echo', ...(v as object) }])), rspec: { script: 'echo', needs: config } });
  return [
    ['need', 'a job name', needs(['job_name'], { job_name: {} }), []],
    ['need', 'an empty name', needs(['']), ["jobs:rspec:needs:need config can't be blank"]],
    ['need', 'job and artifacts', needs([{ job: 'job_name', artifacts: true }, { job: 'other', artifacts: false }], { job_name: {}, other: {} }), []],
    ['need', 'artifacts: nil and optional: nil', needs([{ job: 'job_name', artifacts: null, optional: null }], { job_name: {} }), []],
    ['need', 'optional', needs([{ job: 'job_name', optional: true }, { job: 'other', optional: false }], { job_name: {}, other: {} }), []],
    ['need', 'an empty job name', needs([{ job: '', artifacts: true }]), ["jobs:rspec:needs:need job can't be blank"]],
    ['need', 'unknown keys', needs([{ job: 'job_name', artifacts: false, some: 'key' }]), ['jobs:rspec:needs:need config contains unknown keys: some']],
    ['need', 'parallel:matrix strings', needs([{ job: 'job_name', parallel: { matrix: [{ platform: 'p1', stack: 's1' }] } }], { job_name: {} }), []],
    ['need', 'parallel:matrix lists', needs([{ job: 'job_name', parallel: { matrix: [{ platform: ['p1', 'p2'], stack: ['s1', 's2'] }] } }], { job_name: {} }), []],
    ['need', 'parallel:matrix of a matrix job', needs([{ job: 'job_name', parallel: { matrix: [{ platform: ['p1', 'p2'], stack: 's1' }] } }], { job_name: { parallel: { matrix: [{ platform: ['p1', 'p2', 'p3'], stack: ['s1', 's2'] }] } } }), []],
    ['need', 'a pipeline and a job', needs([{ job: 'job_name', pipeline: '$THE_PIPELINE_ID' }]), []],
    ['need', 'a pipeline, a job and artifacts', needs([{ job: 'job_name', pipeline: '$THE_PIPELINE_ID', artifacts: false }]), []],
    ['need', 'a pipeline with unknown keys', needs([{ job: 'job_name', pipeline: '$THE_PIPELINE_ID', something: 'else' }]), ['jobs:rspec:needs:need config contains unknown keys: something']],
    ['needs', 'a number', needs(123), ['jobs:rspec:needs config can only be a hash or an array']],
    ['needs', 'a list with a number', needs([123]), ['jobs:rspec:needs:need has an unsupported type']],
    ['needs', 'a cross-pipeline need in rules', Y({ rspec: { script: 'echo', rules: [{ if: '$X', needs: [{ job: 'a', pipeline: '$P' }] }] } }), ['jobs:rspec:rules:rule:needs config uses invalid types: cross_dependency']],
    ['needs', 'a hash', needs({ job: 'job_name' }, { job_name: {} }), []],
    ['needs', 'a hash with parallel: a number', needs({ job: 'job_name', parallel: 2 }), ['jobs:rspec:needs config cannot use "parallel: <number>".']],
    ['needs', 'parallel without matrix', needs([{ job: 'job_name', parallel: { not_matrix: [{ one: 'aaa', two: 'bbb' }] } }]), ['jobs:rspec:needs:need:parallel config contains unknown keys: not_matrix', 'jobs:rspec:needs:need:parallel config missing required keys: matrix']],
    ['needs', 'a list with parallel: a number', needs([{ job: 'job_name', parallel: 2 }]), ['jobs:rspec:needs config cannot use "parallel: <number>".']],
    ['needs', 'an empty parallel:matrix', needs([{ job: 'job_name', parallel: { matrix: {} } }]), ['jobs:rspec:needs:need:parallel:matrix config should be an array of hashes']],
    ['needs', 'parallel:matrix: a string', needs([{ job: 'job_name', parallel: { matrix: 'aaa' } }]), ['jobs:rspec:needs:need:parallel:matrix config should be an array of hashes']],
    ['needs', 'complex parallel:matrix needs', needs([{ job: 'job_name1', artifacts: true, parallel: { matrix: [{ A: ['a1', 'a2'], B: ['b1', 'b2', 'b3'], C: ['c1', 'c2'] }] } }, { job: 'job_name2', parallel: { matrix: [{ A: ['a1', 'a2'], D: ['d1', 'd2'] }, { E: ['e1', 'e2'], F: ['f1'] }, { C: ['c1', 'c2', 'c3'], G: ['g1', 'g2'], H: ['h1'] }] } }], { job_name1: {}, job_name2: {} }), []],
    ['needs', 'too many cross-pipeline needs', needs(Array.from({ length: 6 }, (_, i) => ({ pipeline: `$UPSTREAM_PIPELINE_${i}`, job: 'job-1' }))), ['jobs:rspec:needs config must be less than or equal to 5']],
    ['needs', 'five cross-pipeline needs', needs(Array.from({ length: 5 }, (_, i) => ({ pipeline: `$UPSTREAM_PIPELINE_${i}`, job: 'job-1' }))), []],
    ['needs', 'an empty list', needs([]), []],
  ];
}

/** rules_spec, rules/rule_spec, rules/rule/changes_spec, rules/rule/exists_spec. */
function rulesSpecCases(): [string, string, string, string[], string[]?][] {
  const rule = (config: unknown): string => rspec({ script: 'echo', rules: [config] });
  const workflowRule = (config: unknown): string => Y({ workflow: { rules: [config] }, rspec: { script: 'echo' } });
  const RULE = 'jobs:rspec:rules:rule';
  const warned = [`jobs:rspec may allow multiple pipelines to run for a single action due to \`rules:when\` clause with no \`workflow:rules\` - ${WARN_DOCS}`];
  return [
    ['rules', 'one rule', rule({ if: '$THIS == "that"', when: 'never' }), []],
    ['rules', 'two rules', rspec({ script: 'echo', rules: [{ if: '$THIS == "that"', when: 'always' }, { if: '$SKIP', when: 'never' }] }), []],
    ['rules', 'a single rule object', rspec({ script: 'echo', rules: { if: '$SKIP', when: 'never' } }), ['jobs:rspec rules should be an array containing hashes and arrays of hashes']],
    ['rules', 'a single workflow rule object', Y({ workflow: { rules: { if: '$SKIP', when: 'never' } }, rspec: { script: 'echo' } }), ['workflow:rules config should be a array']],
    ['rules', 'nested rules', rspec({ script: 'echo', rules: [{ if: '$THIS == "that"', when: 'always' }, [{ if: '$SKIP', when: 'never' }, { if: '$THIS == "other"', when: 'always' }]] }), []],
    ['rules', 'rules nested two levels', rspec({ script: 'echo', rules: [{ if: '$THIS == "that"', when: 'always' }, [{ if: '$SKIP', when: 'never' }, [{ if: '$THIS == "other"', when: 'always' }]]] }), []],
    ['rule', 'when: manual alone', rule({ when: 'manual' }), [], warned],
    ['rule', 'allow_failure alone', rule({ allow_failure: true }), []],
    ['rule', 'interruptible alone', rule({ interruptible: true }), []],
    ['rule', 'an if: clause', rule({ if: '$THIS || $THAT', when: 'manual', allow_failure: true, interruptible: true }), []],
    ['rule', 'if: a list of expressions', rule({ if: ['$MY_VAR == "this"', '$YOUR_VAR == "that"'] }), [`${RULE} if invalid expression syntax`]],
    ['rule', 'if: an incomplete expression', rule({ if: '$MY_VAR ==' }), [`${RULE} if invalid expression syntax`]],
    ['rule', 'if: an invalid token', rule({ if: '$MY_VAR == 123' }), [`${RULE} if invalid expression syntax`]],
    ['rule', 'if: an invalid regexp', rule({ if: '$MY_VAR =~ /some ( thing/' }), [`${RULE} if invalid expression syntax`]],
    ['rule', 'if: a lookahead RE2 refuses', rule({ if: '$CI_COMMIT_REF =~ /^(?!master).+/' }), [`${RULE} if invalid expression syntax`]],
    ['rule', 'changes', rule({ changes: ['app/', 'lib/', 'spec/', 'other/*', 'paths/**/*.rb'] }), []],
    ['rule', 'changes: a string', rule({ changes: 'a regular string' }), [`${RULE}:changes should be an array or a hash`]],
    ['rule', 'changes: numbers', rule({ changes: [1, 2] }), [`${RULE}:changes config should be an array of strings`]],
    ['rule', 'changes: 51 paths', rule({ changes: Array(51).fill('app/') }), [`${RULE}:changes config has too many entries (maximum 50)`]],
    ['rule', 'changes: paths and compare_to', rule({ changes: { paths: ['app/', 'lib/'], compare_to: 'branch1' } }), []],
    ['rule', 'exists: a string', rule({ exists: 'paths/**/*.rb' }), []],
    ['rule', 'exists: nil', rule({ exists: null }), []],
    ['rule', 'exists: paths', rule({ exists: ['this.md', 'subdir/that.md'] }), []],
    ['rule', 'exists: []', rule({ exists: [] }), []],
    ['rule', 'exists: numbers', rule({ exists: [1, 2, 3] }), [`${RULE}:exists config should be an array of strings`]],
    ['rule', 'exists: 51 paths', rule({ exists: Array(51).fill('app/*') }), [`${RULE}:exists config has too many entries (maximum 50)`]],
    ['rule', 'exists: {}', rule({ exists: {} }), []],
    ['rule', 'exists: paths, project and ref', rule({ exists: { paths: ['this.md'], project: 'path/to/project', ref: 'refs/heads/branch1' } }), []],
    ['rule', 'a delayed rule', rule({ if: '$THIS || $THAT', when: 'delayed', start_in: '2 days' }), []],
    ['rule', 'start_in without when: delayed', rule({ if: '$THIS || $THAT', start_in: '15 minutes' }), [`${RULE} config contains disallowed keys: start_in`]],
    ['rule', 'when: delayed without start_in', rule({ if: '$THIS || $THAT', when: 'delayed' }), [`${RULE} start in can't be blank`, `${RULE} start in should be a duration`, `${RULE} start in should not exceed the limit`]],
    ['rule', 'start_in of two weeks', rule({ if: '$THIS || $THAT', when: 'delayed', start_in: '2 weeks' }), [`${RULE} start in should not exceed the limit`]],
    ['rule', 'an unknown key', rule({ invalid: 'something' }), [`${RULE} config contains unknown keys: invalid`]],
    ['rule', 'an empty rule', rule({}), [`${RULE} config can't be blank`]],
    ['rule', 'a string workflow rule', workflowRule('string strategy'), ['workflow:rules:rule config should be a hash', 'workflow:rules:rule config should be a hash']],
    ['rule', 'when: false', rule({ if: '$THIS == "that"', when: false }), [`${RULE} when unknown value: false`]],
    ['rule', 'when: explode', rule({ if: '$THIS == "that"', when: 'explode' }), [`${RULE} when unknown value: explode`]],
    ['rule', 'a workflow rule with when: on_success', workflowRule({ if: '$THIS == "that"', when: 'on_success' }), ['workflow:rules:rule when unknown value: on_success']],
    ['rule', 'variables: a string', rule({ if: '$THIS == "that"', variables: 'hello' }), [`${RULE}:variables config should be a hash`]],
    ['rule', 'an invalid auto_cancel', workflowRule({ if: '$THIS == "that"', auto_cancel: { on_new_commit: 'xyz' } }), ['workflow:rules:rule:auto_cancel on new commit must be one of: conservative, interruptible, none']],
    ['rule', 'allow_failure: a string', rule({ if: '$THIS == "that"', allow_failure: 'always' }), [`${RULE} allow failure should be a boolean value`]],
    ['rule', 'interruptible: false', rule({ if: '$THIS == "that"', interruptible: false }), []],
    ['rule', 'interruptible: nil', rule({ if: '$THIS == "that"', interruptible: null }), []],
    ['rule', 'interruptible: a string', rule({ if: '$THIS == "that"', interruptible: 'string' }), [`${RULE} interruptible should be a boolean value`]],
    ['rule', 'auto_cancel in a job rule', rule({ if: '$THIS', auto_cancel: { on_new_commit: 'interruptible' } }), [`${RULE} config contains unknown keys: auto_cancel`]],
    ['changes', 'nil', rule({ if: '$X', changes: null }), []],
    ['exists', 'a number', rule({ exists: 123 }), [`${RULE}:exists should be a string, an array of strings, or a hash`]],
    ['exists', 'paths: nil', rule({ exists: { paths: null } }), []],
    ['exists', 'paths: a string', rule({ exists: { paths: 'string' } }), [`${RULE}:exists paths should be an array of strings`]],
    ['exists', 'paths: numbers', rule({ exists: { paths: [1, 2] } }), [`${RULE}:exists paths should be an array of strings`]],
    ['exists', 'paths: 51 entries', rule({ exists: { paths: Array(51).fill('**/test.txt') } }), [`${RULE}:exists paths has too many entries (maximum 50)`]],
    ['exists', 'project: nil', rule({ exists: { paths: ['abc.md'], project: null } }), []],
    ['exists', 'project: a list', rule({ exists: { paths: ['abc.md'], project: ['path/to/project'] } }), [`${RULE}:exists project should be a string`]],
    ['exists', 'project without paths', rule({ exists: { project: ['path/to/project'] } }), [`${RULE}:exists config missing required keys: paths`, `${RULE}:exists project should be a string`]],
    ['exists', 'ref: nil', rule({ exists: { paths: ['abc.md'], project: 'path/to/project', ref: null } }), []],
    ['exists', 'ref: a list', rule({ exists: { paths: ['abc.md'], project: 'path/to/project', ref: ['ref'] } }), [`${RULE}:exists ref should be a string`]],
    ['exists', 'ref without paths', rule({ exists: { project: 'path/to/project', ref: ['ref'] } }), [`${RULE}:exists config missing required keys: paths`, `${RULE}:exists ref should be a string`]],
    ['exists', 'ref without project', rule({ exists: { paths: ['abc.md'], ref: ['ref'] } }), [`${RULE}:exists config missing required keys: project`, `${RULE}:exists ref should be a string`]],
    ['exists', 'an unknown key', rule({ exists: { paths: ['abc.md'], invalid: 'invalid' } }), [`${RULE}:exists config contains unknown keys: invalid`]],
  ];
}

/** policy_spec, workflow_spec, auto_cancel_spec (only/except, workflow:). */
function policyWorkflowSpecCases(): [string, string, string, string[]][] {
  const only = (config: unknown): string => rspec({ script: 'echo', only: config });
  const workflow = (config: unknown): string => Y({ workflow: config, rspec: { script: 'echo' } });
  const ONLY = 'jobs:rspec:only';
  return [
    ['policy', 'branch names', only(['master', 'feature/branch']), []],
    ['policy', 'a regexp', only(['/^issue-.*$/']), []],
    ['policy', 'an empty regexp', only(['//']), []],
    ['policy', 'a lookahead RE2 refuses', only(['/^(?!master).+/']), [`${ONLY} config should be an array of strings or regular expressions using re2 syntax`]],
    ['policy', 'special keywords', only(['tags', 'triggers', 'branches']), []],
    ['policy', 'a number', only([1]), [`${ONLY} config should be an array of strings or regular expressions using re2 syntax`]],
    ['policy', 'refs', only({ refs: ['master'] }), []],
    ['policy', 'refs: a lookahead RE2 refuses', only({ refs: ['/^(?!master).+/'] }), [`${ONLY} refs should be an array of strings or regular expressions using re2 syntax`]],
    ['policy', 'kubernetes: active', only({ kubernetes: 'active' }), []],
    ['policy', 'kubernetes: something', only({ kubernetes: 'something' }), [`${ONLY} kubernetes unknown value: something`]],
    ['policy', 'variables expressions', only({ variables: ['$VAR == null'] }), []],
    ['policy', 'variables: a string', only({ variables: '$MY_VAR' }), [`${ONLY} variables should be an array of strings`]],
    ['policy', 'variables: an incomplete expression', only({ variables: ['$MY_VAR =='] }), [`${ONLY} variables invalid expression syntax`]],
    ['policy', 'variables: an invalid token', only({ variables: ['$MY_VAR == 123'] }), [`${ONLY} variables invalid expression syntax`]],
    ['policy', 'variables: an invalid regexp', only({ variables: ['$MY_VAR =~ /some ( thing/'] }), [`${ONLY} variables invalid expression syntax`]],
    ['policy', 'changes', only({ changes: ['some/*', 'paths/**/*.rb'] }), []],
    ['policy', 'changes: a string', only({ changes: 'some/*' }), [`${ONLY} changes should be an array of strings`]],
    ['policy', 'changes: numbers', only({ changes: [1, 2] }), [`${ONLY} changes should be an array of strings`]],
    ['policy', 'an unknown key', only({ refs: ['master'], invalid: 'something' }), [`${ONLY} config contains unknown keys: invalid`]],
    ['policy', 'an empty hash', only({}), [`${ONLY} config can't be blank`]],
    ['policy', 'a string', only('string strategy'), [`${ONLY} has to be either an array of conditions or a hash`]],
    ['policy', 'refs and variables in except', rspec({ script: 'echo', except: { refs: ['feature'], variables: ['$VARIABLE'] } }), []],
    ['workflow', 'a string', workflow('build'), ['workflow config should be a hash', 'workflow config should be a hash']],
    ['workflow', 'an unknown key', workflow({ trash: [{ if: '$VAR' }] }), ['workflow config contains unknown keys: trash']],
    ['workflow', 'rules', workflow({ rules: [{ if: '$VAR' }] }), []],
    ['workflow', 'a rule with an unknown key', workflow({ rules: [{ if: '$VAR', trash: 'something' }] }), ['workflow:rules:rule config contains unknown keys: trash']],
    ['workflow', 'a rule with auto_cancel', workflow({ rules: [{ if: '$VAR', auto_cancel: { on_new_commit: 'interruptible' } }] }), []],
    ['workflow', 'a rule with an invalid auto_cancel', workflow({ rules: [{ if: '$VAR', auto_cancel: { on_new_commit: 'xyz' } }] }), ['workflow:rules:rule:auto_cancel on new commit must be one of: conservative, interruptible, none']],
    ['workflow', 'a blank name', workflow({ name: '' }), []],
    ['workflow', 'a name too long', workflow({ name: 'a'.repeat(256) }), ['workflow name is too long (maximum is 255 characters)']],
    ['workflow', 'name: nil', workflow({ name: null }), []],
    ['workflow', 'auto_cancel', workflow({ auto_cancel: { on_new_commit: 'interruptible', on_job_failure: 'none' } }), []],
    ['auto_cancel', 'an invalid on_new_commit', workflow({ auto_cancel: { on_new_commit: 'invalid' } }), ['workflow:auto_cancel on new commit must be one of: conservative, interruptible, none']],
    ['auto_cancel', 'an invalid on_job_failure', workflow({ auto_cancel: { on_job_failure: 'some' } }), ['workflow:auto_cancel on job failure must be one of: none, all']],
    ['auto_cancel', 'an unknown key', workflow({ auto_cancel: { invalid: 'interruptible' } }), ['workflow:auto_cancel config contains unknown keys: invalid']],
  ];
}

/** artifacts_spec, reports_spec, reports/coverage_report_spec, cache_spec, caches_spec, key_spec, files_spec, prefix_spec. */
function artifactsCacheSpecCases(): [string, string, string, string[]][] {
  const artifacts = (config: unknown): string => rspec({ script: 'echo', artifacts: config });
  const cache = (config: unknown): string => rspec({ script: 'echo', cache: config });
  const A = 'jobs:rspec:artifacts';
  const C = 'jobs:rspec:cache';
  const EXPOSE_AS = "can contain only letters, digits, '-', '_' and spaces";
  const reportKeys = ['junit', 'sast', 'secret_detection', 'dependency_scanning', 'container_scanning', 'cluster_image_scanning', 'dast', 'license_scanning', 'performance', 'browser_performance', 'load_performance', 'lsif', 'dotenv', 'terraform', 'accessibility', 'cyclonedx', 'metrics', 'requirements', 'api_fuzzing', 'coverage_fuzzing'];
  const key = (value: unknown): string => cache({ key: value, paths: ['p/'] });
  return [
    ['artifacts', 'paths', artifacts({ paths: ['public/'] }), []],
    ['artifacts', 'paths and reports', artifacts({ paths: ['public/'], reports: { junit: 'junit.xml' } }), []],
    ['artifacts', 'expose_as', artifacts({ paths: ['results.txt'], expose_as: 'Test results' }), []],
    ['artifacts', 'public: false', artifacts({ paths: ['results.txt'], public: false }), []],
    ['artifacts', 'name: a number', artifacts({ name: 10 }), [`${A} name should be a string`]],
    ['artifacts', 'an unknown key', artifacts({ test: 100 }), [`${A} config contains unknown keys: test`]],
    ['artifacts', 'reports: a string', artifacts({ paths: ['public/'], reports: 'junit.xml' }), [`${A} reports should be a hash`]],
    ['artifacts', 'public: a string', artifacts({ paths: ['results.txt'], public: 'false' }), [`${A} public should be a boolean value`]],
    ['artifacts', 'expose_as: a number', artifacts({ paths: ['results.txt'], expose_as: 1 }), [`${A} expose as should be a string`]],
    ['artifacts', 'expose_as too long', artifacts({ paths: ['results.txt'], expose_as: 'A'.repeat(101) }), [`${A} expose as is too long (maximum is 100 characters)`]],
    ['artifacts', 'expose_as empty', artifacts({ paths: ['results.txt'], expose_as: '' }), [`${A} expose as ${EXPOSE_AS}`]],
    ['artifacts', 'expose_as with markup', artifacts({ paths: ['results.txt'], expose_as: '<script>alert("xss");</script>' }), [`${A} expose as ${EXPOSE_AS}`]],
    ['artifacts', 'expose_as without paths', artifacts({ expose_as: 'Test results' }), [`${A} paths can't be blank`]],
    ['artifacts', "expose_as with a '*' path", artifacts({ expose_as: 'Test results', paths: ['test.txt', 'test*.txt'] }), [`${A} paths can't contain '*' when used with 'expose_as'`]],
    ['artifacts', 'exclude', artifacts({ untracked: true, exclude: ['some/directory/'] }), []],
    ['artifacts', 'exclude: a number', artifacts({ untracked: true, exclude: 1234 }), [`${A} exclude should be an array of strings`]],
    ...reportKeys.map((k): [string, string, string, string[]] => ['reports', `${k} as a path and as paths`, artifacts({ reports: { [k]: 'report.json' } }) + artifacts({ reports: { [k]: ['report.json'] } }).replace('rspec:', 'rspec2:'), []]),
    ['reports', 'coverage_report', artifacts({ reports: { coverage_report: { path: 'cobertura-coverage.xml', coverage_format: 'cobertura' } } }), []],
    ['reports', 'coverage_report and dast', artifacts({ reports: { coverage_report: { path: 'cobertura-coverage.xml', coverage_format: 'cobertura' }, dast: 'gl-dast-report.json' } }), []],
    ['reports', 'coverage_report: nil', artifacts({ reports: { coverage_report: null } }), []],
    ...reportKeys.filter((k) => k !== 'sast').map((k): [string, string, string, string[]] => ['reports', `${k}: a number`, artifacts({ reports: { [k]: 10 } }), [`${A}:reports ${k.replace(/_/g, ' ')} should be an array of strings or a string`]]),
    ['reports', 'sast: a number (declared twice)', artifacts({ reports: { sast: 10 } }), [`${A}:reports sast should be an array of strings or a string`, `${A}:reports sast should be an array of strings or a string`]],
    ['reports', 'an unknown report', artifacts({ reports: { codeclimate: 'codeclimate.json' } }), [`${A}:reports config contains unknown keys: codeclimate`]],
    ['coverage_report', 'jacoco', artifacts({ reports: { coverage_report: { coverage_format: 'jacoco', path: 'jacoco.xml' } } }), []],
    ['coverage_report', 'a string', artifacts({ reports: { coverage_report: 'string' } }), [`${A}:reports:coverage_report config should be a hash`, `${A}:reports:coverage_report coverage format can't be blank`, `${A}:reports:coverage_report coverage format must be one of supported formats: cobertura, jacoco.`, `${A}:reports:coverage_report path can't be blank`, `${A}:reports:coverage_report path should be a string`]],
    ['coverage_report', 'an unsupported format', artifacts({ reports: { coverage_report: { coverage_format: 'lcov', path: 'lcov.info' } } }), [`${A}:reports:coverage_report coverage format must be one of supported formats: cobertura, jacoco.`]],
    ['coverage_report', 'without a format', artifacts({ reports: { coverage_report: { path: 'cobertura-coverage.xml' } } }), [`${A}:reports:coverage_report coverage format can't be blank`, `${A}:reports:coverage_report coverage format must be one of supported formats: cobertura, jacoco.`]],
    ['coverage_report', 'without a path', artifacts({ reports: { coverage_report: { coverage_format: 'cobertura' } } }), [`${A}:reports:coverage_report path can't be blank`, `${A}:reports:coverage_report path should be a string`]],
    ['coverage_report', 'path: a number', artifacts({ reports: { coverage_report: { coverage_format: 'cobertura', path: 123 } } }), [`${A}:reports:coverage_report path should be a string`]],
    ['coverage_report', 'an unknown key', artifacts({ reports: { coverage_report: { coverage_format: 'cobertura', path: 'c.xml', foo: 'bar' } } }), [`${A}:reports:coverage_report config contains unknown keys: foo`]],
    ['cache', 'key, untracked, paths, unprotect', cache({ key: 'some key', untracked: true, paths: ['some/path/'], unprotect: false }), []],
    ['cache', 'key files', cache({ key: { files: ['a-file', 'other-file'] }, untracked: true, paths: ['some/path/'] }), []],
    ['cache', 'key files and prefix', cache({ key: { files: ['a-file', 'other-file'], prefix: 'prefix-value' }, paths: ['some/path/'] }), []],
    ['cache', 'unprotect: true', cache({ key: 'k', paths: ['p/'], unprotect: true }), []],
    ...['pull-push', 'push', 'pull', '$VARIABLE'].map((policy): [string, string, string, string[]] => ['cache', `policy: ${policy}`, cache({ key: 'k', paths: ['p/'], policy }), []]),
    ['cache', 'policy: unknown', cache({ key: 'k', paths: ['p/'], policy: 'unknown' }), [`${C} policy should be a variable or one of: pull-push, push, pull`]],
    ...['on_success', 'on_failure', 'always'].map((when): [string, string, string, string[]] => ['cache', `when: ${when}`, cache({ key: 'k', paths: ['p/'], when }), []]),
    ['cache', 'when: unknown', cache({ key: 'k', paths: ['p/'], when: 'unknown' }), [`${C} when should be one of: on_success, on_failure, always`]],
    ['cache', 'fallback_keys', cache({ key: 'k', paths: ['p/'], fallback_keys: ['key-1', 'key-2'] }), []],
    ['cache', 'without a key', cache({ untracked: true, paths: ['some/path/'] }), []],
    // A cache that is no hash is refused by `caches:` first (cache_spec checks the Cache entry alone).
    ['cache', 'a string', cache('ls'), ['jobs:rspec:caches config can only be a hash or an array']],
    ['cache', 'key: a number', cache({ key: 1 }), [`${C}:key should be a hash, a string or a symbol`]],
    ['cache', 'key: {}', cache({ key: {} }), [`${C}:key config must use exactly one of these keys: files, files_commits`]],
    ['cache', 'key files: a string', cache({ key: { files: 'a-file' } }), [`${C}:key:files config should be an array of strings`, `${C}:key:files config has too many items (maximum is 2)`]],
    ['cache', 'key prefix without files', cache({ key: { prefix: 'a-prefix' } }), [`${C}:key config must use exactly one of these keys: files, files_commits`]],
    ['cache', 'key: an unknown key', cache({ key: { unknown: 'a-file' } }), [`${C}:key config contains unknown keys: unknown`, `${C}:key config must use exactly one of these keys: files, files_commits`]],
    ['cache', 'an unknown key', cache({ invalid: true }), [`${C} config contains unknown keys: invalid`]],
    ['cache', 'when: a list', cache({ when: ['always'] }), [`${C} when should be a string`, `${C} when should be one of: on_success, on_failure, always`]],
    ['cache', 'when: a boolean', cache({ when: true }), [`${C} when should be a string`, `${C} when should be one of: on_success, on_failure, always`]],
    ['cache', 'policy: a list', cache({ policy: ['pull-push'] }), [`${C} policy should be a string`]],
    ['cache', 'policy: a boolean', cache({ policy: true }), [`${C} policy should be a string`, `${C} policy should be a variable or one of: pull-push, push, pull`]],
    ['caches', 'an empty hash', cache({}), []],
    ['caches', 'three caches', cache([{ key: 'key', paths: ['logs/'], untracked: true }, { key: 'key2', paths: ['logs/'], untracked: true }, { key: 'key3', paths: ['logs/'], untracked: true }]), []],
    ['caches', 'a string', rspec({ script: 'echo', cache: 'invalid' }), ['jobs:rspec:caches config can only be a hash or an array']],
    ['caches', 'five caches', cache(Array.from({ length: 5 }, (_, i) => ({ key: `key${i}`, paths: ['logs/'], untracked: true }))), ['jobs:rspec:caches config no more than 4 caches can be created']],
    ['caches', 'a number', cache(1), ['jobs:rspec:caches config can only be a hash or an array']],
    ['key', 'files and prefix', key({ files: ['test'], prefix: 'something' }), []],
    ['key', 'files_commits and prefix', key({ files_commits: ['yarn.lock'], prefix: 'deps' }), []],
    ['key', 'files and files_commits', key({ files: ['yarn.lock'], files_commits: ['package.json'] }), [`${C}:key config must use exactly one of these keys: files, files_commits`]],
    ['key', 'a list', key(['incorrect']), [`${C}:key should be a hash, a string or a symbol`]],
    ['key', 'slashes', key('key/with/some/slashes'), [`${C}:key config cannot contain the "/" character`]],
    ['key', 'URI-encoded slashes', key('key%2Fwith%2Fsome%2Fslashes'), [`${C}:key config cannot contain the "/" character`]],
    ['key', 'a dot', key('.'), [`${C}:key config cannot be "." or ".."`]],
    ['key', 'two dots', key('..'), [`${C}:key config cannot be "." or ".."`]],
    ['key', 'URI-encoded dots', key('%2E%2e'), [`${C}:key config cannot be "." or ".."`]],
    ['files', 'two files', key({ files: ['a', 'b'] }), []],
    ['files', 'three files', key({ files: ['a', 'b', 'c'] }), [`${C}:key:files config has too many items (maximum is 2)`]],
    ['files', 'no files', key({ files: [] }), [`${C}:key:files config requires at least 1 item`]],
    ['files', 'numbers', key({ files: [1] }), [`${C}:key:files config should be an array of strings`]],
    ['prefix', 'slashes', key({ files: ['f'], prefix: 'a/b' }), [`${C}:key:prefix config cannot contain the "/" character`]],
    ['prefix', 'a dot', key({ files: ['f'], prefix: '.' }), [`${C}:key:prefix config cannot be "." or ".."`]],
    ['prefix', 'a number', key({ files: ['f'], prefix: 1 }), [`${C}:key:prefix config should be a string or symbol`]],
    ['paths', 'a string', cache({ paths: 'p' }), [`${C}:paths config should be an array of strings`]],
  ];
}

/** environment_spec, kubernetes_spec, release_spec, release/assets_spec, coverage_spec. */
function environmentReleaseSpecCases(): [string, string, string, string[]][] {
  const env = (config: unknown, rest: Record<string, unknown> = {}): string => rspec({ script: 'echo', environment: config }, rest);
  const stopJob = (name: string, environment: string): Record<string, unknown> => ({ [name]: { script: 'echo', environment: { name: environment, action: 'stop' } } });
  const release = (config: unknown): string => rspec({ script: 'echo', release: config });
  const E = 'jobs:rspec:environment';
  const R = 'jobs:rspec:release';
  const TIERS = 'production, staging, testing, development, other';
  return [
    ['environment', 'a name', env('production'), []],
    ['environment', 'a name and a url', env({ name: 'development', url: 'https://example.gitlab.com' }), []],
    ...['start', 'stop', 'prepare', 'verify', 'access'].map((action): [string, string, string, string[]] => ['environment', `action: ${action}`, env({ name: 'production', action }), []]),
    ['environment', 'action: a list', env({ name: 'production', action: ['stop'] }), [`${E} action should be a string`, `${E} action should be start, stop, prepare, verify, or access`]],
    ['environment', 'action: invalid', env({ name: 'production', action: 'invalid' }), [`${E} action should be start, stop, prepare, verify, or access`]],
    ['environment', 'on_stop', env({ name: 'production', on_stop: 'close_app' }, stopJob('close_app', 'production')), []],
    ['environment', 'on_stop: false', env({ name: 'production', on_stop: false }), [`${E} on stop should be a string`]],
    ['environment', 'url: a list', env({ name: 'production', url: ['https://meow.meow'] }), [`${E} url should be a string`]],
    ['environment', 'url too long', env({ name: 'production', url: `https://${'a'.repeat(250)}` }), [`${E} url is too long (maximum is 255 characters)`]],
    ['environment', 'variables in name and url', env({ name: 'review/$CI_COMMIT_REF_NAME', url: 'https://$CI_COMMIT_REF_NAME.review.gitlab.com' }), []],
    ['environment', 'auto_stop_in', env({ name: 'review/$CI_COMMIT_REF_NAME', url: 'https://x', on_stop: 'stop_review', auto_stop_in: '2 days' }, stopJob('stop_review', 'review/$CI_COMMIT_REF_NAME')), []],
    ['environment', 'auto_stop_in: a variable', env({ name: 'review/$CI_COMMIT_REF_NAME', on_stop: 'stop_review', auto_stop_in: '$TTL' }, stopJob('stop_review', 'review/$CI_COMMIT_REF_NAME')), []],
    ['environment', 'a list', env(['env']), [`${E} config should be a hash or a string`, `${E} name can't be blank`, `${E} name ${ENV_NAME}`, `${E} name ${ENV_NAME}`]],
    ['environment', 'no name', env({ url: 'https://example.gitlab.com' }), [`${E} name can't be blank`, `${E} name ${ENV_NAME}`, `${E} name ${ENV_NAME}`]],
    ['environment', 'kubernetes: a string', env({ name: 'production', kubernetes: 'production' }), [`${E} kubernetes should be a hash`]],
    ['environment', 'kubernetes namespace', env({ name: 'production', kubernetes: { namespace: 'production' } }), []],
    ['environment', 'kubernetes: nil', env({ name: 'production', kubernetes: null }), []],
    ['environment', 'deployment_tier', env({ name: 'customer-portal', deployment_tier: 'production' }), []],
    ['environment', 'deployment_tier: a hash', env({ name: 'customer-portal', deployment_tier: { tier: 'production' } }), [`${E} deployment tier should be a string`, `${E} deployment tier must be one of ${TIERS}`]],
    ['environment', 'deployment_tier: nil', env({ name: 'customer-portal', deployment_tier: null }), []],
    ['environment', 'deployment_tier: unknown', env({ name: 'customer-portal', deployment_tier: 'unknown' }), [`${E} deployment tier must be one of ${TIERS}`]],
    ['kubernetes', 'an unknown key', env({ name: 'production', kubernetes: { unknown: 'attribute' } }), [`${E}:kubernetes config contains unknown keys: unknown`]],
    ['kubernetes', 'namespace: a hash', env({ name: 'production', kubernetes: { namespace: { key: 'namespace' } } }), [`${E}:kubernetes namespace should be a string`]],
    ['release', 'tag_name and description', release({ tag_name: 'v0.06', description: './release_changelog.txt' }), []],
    ['release', 'assets as a list (GitLab composes it)', release({ tag_name: 'v0.06', description: './release_changelog.txt', assets: [{ name: 'cool-app.zip', url: 'http://my.awesome.download.site/1.0-$CI_COMMIT_SHORT_SHA.zip' }] }),
      [`${R}:assets config should be a hash`, `${R}:assets links should be an array of hashes`, `${R}:assets links can't be blank`]],
    ['release', 'name', release({ tag_name: 'v0.06', description: 'd', name: 'Release $CI_TAG_NAME' }), []],
    ['release', 'released_at', release({ tag_name: 'v0.06', description: 'd', released_at: '2019-03-15T08:00:00Z' }), []],
    ['release', 'milestones', release({ tag_name: 'v0.06', description: 'd', milestones: ['m1', 'm2', 'm3'] }), []],
    ['release', 'a milestone', release({ tag_name: 'v0.06', description: 'd', milestones: 'm1' }), []],
    ...['b3235930aa443112e639f941c69c578912189bdd', 'b3235930', 'fix/123-branch-name', 'v1.2.3', 'v1.2.3-rc'].map((ref): [string, string, string, string[]] => ['release', `ref: ${ref}`, release({ tag_name: 'v0.06', description: 'd', ref }), []]),
    ['release', 'tag_message', release({ tag_name: 'v0.06', description: 'd', tag_message: 'Annotated tag message' }), []],
    ['release', 'tag_message: nil', release({ tag_name: 'v0.06', description: 'd', tag_message: null }), []],
    ['release', 'description: a number', release({ description: 10 }), [`${R} tag name should be a string`, `${R} tag name can't be blank`, `${R} description should be a string`]],
    ['release', 'no description', release({ tag_name: 'v0.06' }), [`${R} description should be a string`, `${R} description can't be blank`]],
    ['release', 'no tag_name', release({ description: './release_changelog.txt' }), [`${R} tag name should be a string`, `${R} tag name can't be blank`]],
    ['release', 'an unknown key', release({ tag_name: 'v1', description: 'd', test: 100 }), [`${R} config contains unknown keys: test`]],
    ['release', 'released_at: not a date', release({ tag_name: 'v1', description: 'd', released_at: 'ABC123' }), [`${R} released at must be a valid datetime`]],
    ['release', 'ref: not a ref', release({ tag_name: 'v1', description: 'd', ref: 'invalid\\branch' }), [`${R} ref must be a valid ref`]],
    ['release', 'milestones: numbers', release({ tag_name: 'v1', description: 'd', milestones: [1, 2, 3] }), [`${R} milestones should be an array of strings or a string`]],
    ['release', 'tag_message: a number', release({ tag_name: 'v1', description: 'd', tag_message: 100 }), [`${R} tag message should be a string`]],
    ['assets', 'links', release({ tag_name: 'v1', description: 'd', assets: { links: [{ name: 'cool-app.zip', url: 'http://x/1.zip' }, { name: 'cool-app.exe', url: 'http://x/1.exe' }] } }), []],
    ['assets', 'links: a string', release({ tag_name: 'v1', description: 'd', assets: { links: 'xyz' } }), [`${R}:assets links should be an array of hashes`]],
    ['assets', 'links: empty', release({ tag_name: 'v1', description: 'd', assets: { links: [] } }), [`${R}:assets links can't be blank`]],
    ['assets', 'an unknown key', release({ tag_name: 'v1', description: 'd', assets: { test: 100 } }), [`${R}:assets config contains unknown keys: test`, `${R}:assets links should be an array of hashes`, `${R}:assets links can't be blank`]],
    ['coverage', 'without slashes', rspec({ script: 'echo', coverage: 'Code coverage: \\d+\\.\\d+' }), ['jobs:rspec:coverage config must be a regular expression with re2 syntax']],
    ['coverage', 'with slashes', rspec({ script: 'echo', coverage: '/Code coverage: \\d+\\.\\d+/' }), []],
    ['coverage', 'a malformed regexp', rspec({ script: 'echo', coverage: '(malformed regexp' }), ['jobs:rspec:coverage config must be a regular expression with re2 syntax']],
    ['coverage', 'a regexp RE2 refuses', rspec({ script: 'echo', coverage: '/(?<=Total: )\\d+/' }), ['jobs:rspec:coverage config must be a regular expression with re2 syntax']],
  ];
}

/** trigger_spec, trigger/forward_spec, bridge_spec (a bridge named my_bridge). */
function triggerBridgeSpecCases(): [string, string, string, string[]][] {
  const bridge = (config: Record<string, unknown>, rest: Record<string, unknown> = {}): string => Y({ ...rest, my_bridge: config });
  const trigger = (config: unknown): string => bridge({ trigger: config });
  const T = 'jobs:my_bridge:trigger';
  const B = 'jobs:my_bridge';
  const base = { trigger: { project: 'some/project', branch: 'feature' }, extends: '.some-key', stage: 'deploy', variables: { VARIABLE: '123' } };
  const someKey = { '.some-key': { variables: { OTHER: '1' } } };
  const TRIGGER_OR_NEEDS = `${B} config should contain either a trigger or a needs:pipeline`;
  return [
    ['trigger', 'a project', trigger('some/project'), []],
    ['trigger', 'an empty string', trigger(''), [`${T} config can't be blank`]],
    ['trigger', 'project', trigger({ project: 'some/project' }), []],
    ['trigger', 'project: empty', trigger({ project: '' }), [`${T} project can't be blank`]],
    ['trigger', 'project: a list', trigger({ project: ['some/project'] }), [`${T} project should be a string`]],
    ['trigger', 'project: true', trigger({ project: true }), [`${T} project should be a string`]],
    ['trigger', 'branch', trigger({ project: 'some/project', branch: 'feature' }), []],
    ['trigger', 'strategy: depend', trigger({ project: 'some/project', strategy: 'depend' }), []],
    ['trigger', 'strategy: mirror', trigger({ project: 'some/project', strategy: 'mirror' }), []],
    ['trigger', 'strategy: notdepend', trigger({ project: 'some/project', strategy: 'notdepend' }), [`${T} strategy should be depend or mirror`]],
    ['trigger', 'an unknown key', trigger({ project: 'some/project', unknown: 123 }), [`${T} config contains unknown keys: unknown`]],
    ['trigger', 'forward', trigger({ project: 'some/project', forward: { pipeline_variables: true } }), []],
    ['trigger', 'include', trigger({ include: 'path/to/config.yml' }), []],
    ['trigger', 'include and project', trigger({ project: 'some/project', include: 'path/to/config.yml' }), [`${T} config contains unknown keys: project`]],
    ['trigger', 'include and branch', trigger({ branch: 'feature', include: 'path/to/config.yml' }), [`${T} config contains unknown keys: branch`]],
    ['trigger', 'include and forward', trigger({ include: 'path/to/config.yml', forward: { yaml_variables: false } }), []],
    ['trigger', 'a number', trigger(123), [`${T} has to be either a string or a hash`]],
    ['trigger', 'four includes', trigger({ include: ['a.yml', 'b.yml', 'c.yml', 'd.yml'] }), [`${T}:include config is too long (maximum is 3)`]],
    ['forward', 'both false', trigger({ project: 'p', forward: { yaml_variables: false, pipeline_variables: false } }), []],
    ['forward', 'empty', trigger({ project: 'p', forward: {} }), []],
    ['forward', 'an unknown key', trigger({ project: 'p', forward: { xxx_variables: true } }), [`${T}:forward config contains unknown keys: xxx_variables`]],
    ['forward', 'yaml_variables: a string', trigger({ project: 'p', forward: { yaml_variables: 'okay' } }), [`${T}:forward yaml variables should be a boolean value`]],
    ['bridge', 'trigger: a project', bridge({ trigger: 'some/project' }), []],
    ['bridge', 'trigger: a hash', bridge({ trigger: { project: 'some/project', branch: 'feature' } }), []],
    ['bridge', 'when, extends, stage, only, except, variables', bridge({ ...base, when: 'always', only: { variables: ['$SOMEVARIABLE'] }, except: { refs: ['feature'] } }, someKey), []],
    ['bridge', 'rules', bridge({ ...base, rules: [{ if: '$VAR == null', when: 'never' }] }, someKey), []],
    ['bridge', 'rules and when', bridge({ ...base, when: 'always', rules: [{ if: '$VAR == null', when: 'never' }] }, someKey), []],
    ['bridge', 'rules and only', bridge({ ...base, only: { variables: ['$SOMEVARIABLE'] }, rules: [{ if: '$VAR == null', when: 'never' }] }, someKey), [`${B} config key may not be used with \`rules\`: only`, TRIGGER_OR_NEEDS]],
    ['bridge', 'rules and except', bridge({ ...base, except: { refs: ['feature'] }, rules: [{ if: '$VAR == null', when: 'never' }] }, someKey), [`${B} config key may not be used with \`rules\`: except`, TRIGGER_OR_NEEDS]],
    ['bridge', 'only job needs', bridge({ needs: ['some_job'] }, { some_job: { stage: 'build', script: 'echo' } }), [TRIGGER_OR_NEEDS]],
    ['bridge', 'an unknown key', bridge({ trigger: 'some/project', unknown: 123 }), [`${B} config contains unknown keys: unknown`, TRIGGER_OR_NEEDS]],
    ['bridge', 'a script with the trigger (a job)', bridge({ trigger: 'some/project', script: 'something' }), [`${B} config these keys cannot be used together: trigger, script`, `${B} config contains unknown keys: trigger`]],
    ['bridge', 'allow_failure exit codes', bridge({ trigger: 'some/project', allow_failure: { exit_codes: [42] } }), [`${B} allow failure should be a boolean value`, TRIGGER_OR_NEEDS]],
    ['bridge', 'parallel: a number', bridge({ trigger: 'some/project', parallel: 2 }), [`${B}:parallel config cannot use "parallel: <number>".`]],
    ['bridge', 'parallel: a matrix', bridge({ trigger: 'some/project', parallel: { matrix: [{ PROVIDER: 'aws', STACK: ['monitoring', 'app1'] }, { PROVIDER: 'gcp', STACK: ['data'] }] } }), []],
    ['bridge', 'a trigger with forward', bridge({ trigger: { project: 'some/project', forward: { pipeline_variables: true } } }), []],
    ['bridge', 'when: a list', bridge({ trigger: 'some/project', when: ['always'] }), [`${B} when should be a string`, `${B} when should be one of: on_success, on_failure, always, manual`, TRIGGER_OR_NEEDS]],
    ['bridge', 'when: delayed', bridge({ trigger: 'some/project', when: 'delayed' }), [`${B} when should be one of: on_success, on_failure, always, manual`, TRIGGER_OR_NEEDS]],
  ];
}

/** processable_spec, default_spec, hooks_spec, id_token_spec, inherit/*_spec, tags_spec, stages_spec, commands_spec, pages_spec. */
function processableDefaultSpecCases(): [string, string, string, string[], string[]?][] {
  const warned = [`jobs:rspec may allow multiple pipelines to run for a single action due to \`rules:when\` clause with no \`workflow:rules\` - ${WARN_DOCS}`];
  const long = 'a'.repeat(256);
  const inheritDefault = (config: unknown): string => rspec({ script: 'echo', inherit: { default: config } });
  const inheritVariables = (config: unknown): string => rspec({ script: 'echo', inherit: { variables: config } });
  const tags = (n: number): string => rspec({ script: 'echo', tags: Array.from({ length: n }, (_, i) => `tag-${i}`) });
  return [
    ['processable', 'when: and rules:', rspec({ script: 'echo', when: 'on_failure', rules: [{ if: '$VARIABLE', when: 'on_success' }] }), []],
    ['processable', 'a name of 256 characters', Y({ [long]: { script: 'echo' } }), [`jobs:${long} name is too long (maximum is 255 characters)`]],
    ['processable', 'resource_group: a number', rspec({ script: 'echo', resource_group: 123 }), ['jobs:rspec resource group should be a string']],
    ['processable', 'a variable with description', rspec({ script: 'echo', variables: { VAR1: 'val 1', VAR2: { value: 'val 2', description: 'hello var 2' } } }), ['jobs:rspec:variables:var2 config uses invalid data keys: description']],
    ['processable', 'run: and trigger:', rspec({ run: [{ name: 'step1', step: 'some reference' }], trigger: 'test-group/test-project' }), ['jobs:rspec config these keys cannot be used together: run, trigger', 'jobs:rspec config contains unknown keys: trigger']],
    ['processable', 'interruptible: a number', rspec({ script: 'echo', interruptible: 123 }), ['jobs:rspec:interruptible config should be a boolean value']],
    ['processable', 'a last rule of only when: on_success', rspec({ script: 'ls', rules: [{ if: '$CI_COMMIT_BRANCH', when: 'on_success' }, { when: 'on_success' }] }), [], warned],
    ['processable', 'a last rule of only when: never', rspec({ script: 'ls', rules: [{ if: '$CI_COMMIT_BRANCH', when: 'on_success' }, { when: 'never' }] }), [], []],
    ['processable', 'a last rule with if:', rspec({ script: 'ls', rules: [{ if: '$CI_COMMIT_BRANCH', when: 'on_success' }, { if: '$CI_MERGE_REQUEST_ID', when: 'always' }] }), [], []],
    ['processable', 'invalid rules warn of nothing', rspec({ script: 'ls', rules: { when: 'always' } }), ['jobs:rspec rules should be an array containing hashes and arrays of hashes'], []],
    ['processable', 'a last rule of only when, with workflow:rules', Y({ workflow: { rules: [{ if: '$X' }] }, rspec: { script: 'ls', rules: [{ if: '$CI_COMMIT_BRANCH', when: 'on_success' }, { when: 'always' }] } }), [], []],
    ['processable', 'resource groups', rspec({ script: 'ls', resource_group: 'review/$CI_COMMIT_REF_NAME' }), []],
    ['processable', 'environment name, url and action', rspec({ script: 'ls', environment: { name: 'staging', url: 'https://gitlab.com', action: 'prepare' } }), []],
    ['processable', 'default tags and inherit', Y({ default: { tags: ['b', 'c'] }, rspec: { script: 'echo', inherit: { default: ['tags'] } }, other: { script: 'echo', tags: ['a', 'b'], inherit: { default: false } } }), []],
    ['default', 'before_script', Y({ default: { before_script: ['rspec'] }, rspec: { script: 'echo' } }), []],
    ['default', 'empty', Y({ default: {}, rspec: { script: 'echo' } }), []],
    ['default', 'a list', Y({ default: ['incorrect'], rspec: { script: 'echo' } }), ['default config should be a hash']],
    ['default', 'an unknown key', Y({ default: { unknown: true }, rspec: { script: 'echo' } }), ['default config contains unknown keys: unknown']],
    ['default', 'an image also at the top level', Y({ image: 'ruby', default: { image: 'some_image' }, rspec: { script: 'echo' } }), ['image is defined in top-level and `default:` entry']],
    ['default', 'an image, and after_script at the top level', Y({ after_script: ['specified'], default: { image: 'some_image' }, rspec: { script: 'echo' } }), []],
    ['hooks', 'pre_get_sources_script', rspec({ script: 'echo', hooks: { pre_get_sources_script: ['ls'] } }), []],
    ['hooks', 'an unknown hook', rspec({ script: 'echo', hooks: { x_get_something: ['ls'] } }), ['jobs:rspec:hooks config contains unknown keys: x_get_something']],
    ['hooks', 'a string', rspec({ script: 'echo', hooks: 'ls' }), ['jobs:rspec:hooks config should be a hash', 'jobs:rspec:hooks config should be a hash']],
    ['id_token', 'aud: a string', rspec({ script: 'echo', id_tokens: { ID: { aud: 'https://gitlab.com' } } }), []],
    ['id_token', 'aud: a variable', rspec({ script: 'echo', id_tokens: { ID: { aud: '$WATHEVER' } } }), []],
    ['id_token', 'aud: with a variable', rspec({ script: 'echo', id_tokens: { ID: { aud: 'blah-$WATHEVER' } } }), []],
    ['id_token', 'aud: a list', rspec({ script: 'echo', id_tokens: { ID: { aud: ['https://gitlab.com', 'https://aws.com'] } } }), []],
    ['id_token', 'aud: variables', rspec({ script: 'echo', id_tokens: { ID: { aud: ['$WATHEVER', 'blah-$WATHEVER'] } } }), []],
    ['id_token', 'no aud', rspec({ script: 'echo', id_tokens: { ID: {} } }), ['jobs:rspec:id_tokens:id config missing required keys: aud', 'jobs:rspec:id_tokens:id aud should be an array of strings or a string']],
    ['id_token', 'an unknown key', rspec({ script: 'echo', id_tokens: { ID: { aud: 'https://gitlab.com', unknown: 'test' } } }), ['jobs:rspec:id_tokens:id config contains unknown keys: unknown']],
    ['inherit/default', 'true', inheritDefault(true), []],
    ['inherit/default', 'false', inheritDefault(false), []],
    ['inherit/default', '[image]', inheritDefault(['image']), []],
    ['inherit/default', '[unknown]', inheritDefault(['unknown']), ['jobs:rspec:inherit:default config contains unknown values: unknown']],
    ['inherit/default', '[true]', inheritDefault([true]), ['jobs:rspec:inherit:default config should be an array of strings', 'jobs:rspec:inherit:default config contains unknown values: true']],
    ['inherit/default', 'a string', inheritDefault('string'), ['jobs:rspec:inherit:default should be a bool or array of strings']],
    ['inherit/variables', 'true', inheritVariables(true), []],
    ['inherit/variables', 'false', inheritVariables(false), []],
    ['inherit/variables', '[A]', inheritVariables(['A']), []],
    ['inherit/variables', '[A, B]', inheritVariables(['A', 'B']), []],
    ['inherit/variables', '[true]', inheritVariables([true]), ['jobs:rspec:inherit:variables config should be an array of strings']],
    ['inherit/variables', 'a string', inheritVariables('string'), ['jobs:rspec:inherit:variables should be a bool or array of strings']],
    ['inherit', 'an unknown key', rspec({ script: 'echo', inherit: { other: true } }), ['jobs:rspec:inherit config contains unknown keys: other']],
    ['tags', 'numbers', rspec({ script: 'echo', tags: [1, 2] }), ['jobs:rspec:tags config should be an array of strings']],
    ['tags', '50 tags', tags(50), ['jobs:rspec:tags config must be less than the limit of 50 tags']],
    ['tags', '49 tags', tags(49), []],
    ['stages', 'stages', Y({ stages: ['stage1', 'stage2'], rspec: { script: 'echo', stage: 'stage1' } }), []],
    ['stages', 'a hash', Y({ stages: { test: true }, rspec: { script: 'echo' } }), ['stages config should be an array of strings or a nested array of strings up to 10 levels deep']],
    ['commands', 'a list', rspec({ script: ['ls', 'pwd'] }), []],
    ['commands', 'a number', rspec({ script: 1 }), ['jobs:rspec:script config should be a string or a nested array of strings up to 10 levels deep']],
    ['pages', 'a string', rspec({ script: 'echo', pages: 'value' }), ['jobs:rspec:pages config should be a hash or a boolean value']],
    ['pages', 'path_prefix and expire_in', rspec({ script: 'echo', pages: { path_prefix: 'prefix', expire_in: '1 day' } }), []],
    ['pages', 'an unknown key', rspec({ script: 'echo', pages: { unknown: 'echo' } }), ['jobs:rspec:pages config contains unknown keys: unknown']],
    ['pages', 'path_prefix: a number', rspec({ script: 'echo', pages: { path_prefix: 1 } }), ['jobs:rspec:pages path prefix should be a string']],
    ['pages', 'expire_in: never', rspec({ script: 'echo', pages: { expire_in: 'never' } }), []],
    ['pages', 'expire_in: nil', rspec({ script: 'echo', pages: { expire_in: null } }), []],
    ['pages', 'expire_in: not a duration', rspec({ script: 'echo', pages: { expire_in: 'some string that cant be parsed' } }), ['jobs:rspec:pages expire in should be a duration']],
  ];
}

/** variables_spec, variable_spec: root variables allow value, description, expand, options; jobs value and expand; services and rules none. */
function variablesSpecCases(): [string, string, string, string[]][] {
  const root = (variables: unknown): string => Y({ variables, rspec: { script: 'echo' } });
  const job = (variables: unknown): string => rspec({ script: 'echo', variables });
  const service = (variables: unknown): string => rspec({ script: 'echo', services: [{ name: 'postgres', variables }] });
  const rule = (variables: unknown): string => rspec({ script: 'echo', rules: [{ if: '$X', variables }] });
  return [
    ['variables', 'key-value pairs', root({ VARIABLE_1: 'value 1', VARIABLE_2: 'value 2' }), []],
    ['variables', 'numeric keys and values', 'variables:\n  10: 20\nrspec:\n  script: echo\n', []],
    ['variables', 'a symbol value', 'variables:\n  VAR1: :val1\nrspec:\n  script: echo\n', []],
    ['variables', 'a boolean value', root({ VAR1: true }), []],
    ['variables', 'value and description where no data is allowed', rule({ VARIABLE_1: { value: 'value', description: 'variable 1' } }), ['jobs:rspec:rules:rule:variables:variable_1 config must be a string']],
    ['variables', 'value and description at the top level', root({ VARIABLE_1: { value: 'value', description: 'variable 1' } }), []],
    ['variables', 'options at the top level', root({ VARIABLE_1: { value: 'value1', options: ['value1', 'value2'], description: 'variable 1' } }), []],
    ['variables', 'a hash and a string where no data is allowed', service({ VARIABLE_1: { value: 'value 1', description: 'variable 1' }, VARIABLE_2: 'value 2' }), ['jobs:rspec:services:service:variables:variable_1 config must be a string']],
    ['variables', 'a list', job(['VAR', 'test']), ['jobs:rspec:variables config should be a hash']],
    ['variables', 'other data keys', root({ VARIABLE_1: { value: 'value 1', hello: 'variable 1' }, VARIABLE_2: 'value 2' }), ['variables:variable_1 config uses invalid data keys: hello']],
    ['variables', 'a hash without description', root({ VARIABLE_1: { value: 'value 1' } }), []],
    ['variables', 'a value not among the options', root({ VAR: { value: 'val', options: ['val1', 'val2'] } }), ['variables:var config value must be present in options']],
    ...['string', true, false, 2, 2.2].map((value): [string, string, string, string[]] => ['variable', `a simple ${typeof value} value`, job({ VAR1: value }), []]),
    ['variable', 'a list value', job({ VAR1: [] }), ['variable definition must be either a string or a hash']],
    ['variable', 'an empty hash where no data is allowed', rule({ VAR1: {} }), ['jobs:rspec:rules:rule:variables:var1 config must be a string']],
    ['variable', 'value and description where no data is allowed', rule({ VAR1: { value: 'value', description: 'description' } }), ['jobs:rspec:rules:rule:variables:var1 config must be a string']],
    ...['string', true, false, 2, 2.2].map((value): [string, string, string, string[]] => ['variable', `a complex ${typeof value} value`, root({ VAR1: { value, description: 'description' } }), []]),
    ['variable', 'a complex list value', root({ VAR1: { value: [], description: 'description' } }), ['variables:var1 config value must be a scalar']],
    ['variable', 'a complex hash value', root({ VAR1: { value: {}, description: 'description' } }), ['variables:var1 config value must be a scalar']],
    ['variable', 'description in a job', job({ VAR1: { value: 'value', description: 'description' } }), ['jobs:rspec:variables:var1 config uses invalid data keys: description']],
    ['variable', 'value alone where no data is allowed', service({ VAR1: { value: 'value' } }), ['jobs:rspec:services:service:variables:var1 config must be a string']],
    ['variable', 'value alone in a job', job({ VAR1: { value: 'value' } }), []],
    ['variable', 'expand where no data is allowed', rule({ VAR1: { value: 'value', expand: false } }), ['jobs:rspec:rules:rule:variables:var1 config must be a string']],
    ['variable', 'expand in a job', job({ VAR1: { value: 'value', expand: false } }), []],
    ['variable', 'expand: a string', job({ VAR1: { value: 'value', expand: 'true' } }), ['jobs:rspec:variables:var1 config expand should be a boolean value']],
    ['variable', 'options where no data is allowed', rule({ VAR1: { value: 'value', options: ['value', 'value2'] } }), ['jobs:rspec:rules:rule:variables:var1 config must be a string']],
    ['variable', 'options in a job', job({ VAR1: { value: 'value', options: ['value', 'value2'] } }), ['jobs:rspec:variables:var1 config uses invalid data keys: options']],
    ['variable', 'options at the top level', root({ VAR1: { value: 'value', options: ['value', 'value2'] } }), []],
  ];
}

/** include_spec, include/rules/rule_spec (a child pipeline's include), jobs_spec, hidden_spec, allow_failure_spec. */
function includeJobsSpecCases(): [string, string, string, string[]][] {
  const include = (config: unknown): string => Y({ generator: { stage: 'build', script: 'echo' }, my_bridge: { trigger: { include: [config] } } });
  const includeRule = (rule: unknown): string => include({ local: 'test.yml', rules: [rule] });
  const I = 'jobs:my_bridge:trigger:include:include';
  const R = `${I}:rules:rule`;
  const allowFailure = (config: unknown): string => rspec({ script: 'echo', allow_failure: config });
  return [
    ['include', 'a file', include('test.yml'), []],
    ['include', 'an unknown key', include({ not_allowed: 'key' }), [`${I} config contains unknown keys: not_allowed`]],
    ['include', 'local', include({ local: 'test.yml' }), []],
    ['include', 'file', include({ file: 'test.yml' }), []],
    ['include', 'template', include({ template: 'test.yml' }), []],
    ['include', 'component', include({ component: 'path/to/component@1.0' }), []],
    ['include', 'artifact and job', include({ artifact: 'test.yml', job: 'generator' }), []],
    ['include', 'artifact of an undefined job', include({ artifact: 'test.yml', job: 'nope' }), ['my_bridge job: undefined dependency: nope']],
    ['include', 'artifact without job', include({ artifact: 'test.yml' }), [`${I} config must specify the job where to fetch the artifact from`]],
    ['include', 'project, ref and file', include({ project: 'my-group/my-pipeline-library', ref: 'master', file: 'test.yml' }), []],
    ['include', 'project and file', include({ project: 'my-group/my-pipeline-library', file: 'test.yml' }), []],
    ['include', 'project without file', include({ project: 'my-group/my-pipeline-library' }), [`${I} config must specify the file where to fetch the config from`]],
    ['include', 'rules', include({ local: 'test.yml', rules: [{ if: '$VARIABLE' }] }), []],
    ['include', 'rules and inputs', include({ local: 'test.yml', inputs: { stage: 'test' }, rules: [{ if: '$VARIABLE' }] }), []],
    ['include', 'rules of strings', include({ local: 'test.yml', rules: ['$VARIABLE'] }), [`${I} rules should be an array of hashes`]],
    ['include', 'a number', include(123), [`${I} config should be a hash or a string`]],
    ['include/rule', 'if', includeRule({ if: '$THIS || $THAT' }), []],
    ['include/rule', 'if and when: never', includeRule({ if: '$THIS || $THAT', when: 'never' }), []],
    ['include/rule', 'when: on_success', includeRule({ if: '$THIS || $THAT', when: 'on_success' }), [`${R} when unknown value: on_success`]],
    ['include/rule', 'when: nil', includeRule({ if: '$THIS || $THAT', when: null }), []],
    ['include/rule', 'an incomplete if', includeRule({ if: '$MY_VAR ==' }), [`${R} if invalid expression syntax`]],
    ['include/rule', 'an integer operand', includeRule({ if: '$MY_VAR == 123' }), [`${R} if invalid expression syntax`]],
    ['include/rule', 'an invalid regexp', includeRule({ if: '$MY_VAR =~ /some ( thing/' }), [`${R} if invalid expression syntax`]],
    ['include/rule', 'a lookahead', includeRule({ if: '$CI_COMMIT_REF =~ /^(?!master).+/' }), [`${R} if invalid expression syntax`]],
    ['include/rule', 'a list of expressions', includeRule({ if: ['$MY_VAR == "this"', '$YOUR_VAR == "that"'] }), [`${R} if invalid expression syntax`]],
    ['include/rule', 'exists: a string', includeRule({ exists: 'paths/**/*.rb' }), []],
    ['include/rule', 'exists: nil', includeRule({ exists: null }), []],
    ['include/rule', 'exists: paths', includeRule({ exists: ['this.md', 'subdir/that.md'] }), []],
    ['include/rule', 'exists: []', includeRule({ exists: [] }), []],
    ['include/rule', 'exists: numbers', includeRule({ exists: [1, 2, 3] }), [`${R}:exists config should be an array of strings`]],
    ['include/rule', 'exists: 51 paths (no limit here)', includeRule({ exists: Array(51).fill('app/*') }), []],
    ['include/rule', 'exists: {}', includeRule({ exists: {} }), []],
    ['include/rule', 'exists: paths, project and ref', includeRule({ exists: { paths: ['this.md'], project: 'path/to/project', ref: 'refs/heads/branch1' } }), []],
    ['include/rule', 'changes', includeRule({ changes: ['Dockerfile', 'lib/*', 'paths/**/*.rb'] }), []],
    ['include/rule', 'changes: paths and compare_to', includeRule({ changes: { paths: ['Dockerfile'], compare_to: 'branch1' } }), []],
    ['include/rule', 'an unknown key', includeRule({ invalid: 'something' }), [`${R} config contains unknown keys: invalid`]],
    ['include/rule', 'empty', includeRule({}), [`${R} config can't be blank`]],
    ['jobs', 'hidden jobs, a job and a trigger', Y({ '.hidden_job': { script: 'something' }, '.hidden_bridge': { trigger: 'my/project' }, regular_job: { script: 'something' }, my_trigger: { trigger: 'my/project' } }), []],
    ['jobs', 'a job that is nil', Y({ rspec: null }), [`jobs rspec ${SCRIPT_OR_TRIGGER}`, VISIBLE]],
    ['jobs', 'a job named true', 'true:\nrspec:\n  script: echo\n', [`jobs true ${SCRIPT_OR_TRIGGER}`]],
    ['jobs', 'only a hidden job', Y({ '.hidden': { script: [] } }), [VISIBLE]],
    ['hidden', 'a hidden job that is nil', Y({ '.hidden': null, rspec: { script: 'echo' } }), ["jobs:.hidden config can't be blank"]],
    ['allow_failure', 'true', allowFailure(true), []],
    ['allow_failure', 'false', allowFailure(false), []],
    ['allow_failure', 'an exit code', allowFailure({ exit_codes: 137 }), []],
    ['allow_failure', 'exit codes', allowFailure({ exit_codes: [42, 137] }), []],
    ['allow_failure', 'a list', allowFailure([1]), ['jobs:rspec allow failure should be a hash or a boolean value']],
    ['allow_failure', 'exit codes: a string', allowFailure({ exit_codes: 'string' }), ['jobs:rspec:allow_failure exit codes should be an array of integers or an integer']],
    ['allow_failure', 'exit codes: strings', allowFailure({ exit_codes: ['string 1', 'string 2'] }), ['jobs:rspec:allow_failure exit codes should be an array of integers or an integer']],
    ['allow_failure', 'an extra key', allowFailure({ extra: true }), ['jobs:rspec:allow_failure config contains unknown keys: extra']],
  ];
}

/** config/yaml/tags/reference_spec, config/yaml/loader_spec: `!reference` tags and loading. */
function yamlSpecCases(): [string, string, string, string[]][] {
  const job = 'rspec:\n  script: echo\n';
  return [
    ['yaml/reference', 'circular references', `a: !reference [b]\nb: !reference [a]\n${job}`, ['!reference ["b"] is part of a circular chain']],
    ['yaml/reference', 'nested circular references', `a: !reference [b, c]\nb: { c: !reference [d, e, f] }\nd: { e: { f: !reference [a] } }\n${job}`, ['!reference ["b", "c"] is part of a circular chain']],
    ['yaml/reference', 'a missing reference', `a: !reference [b]\n${job}`, ['!reference ["b"] could not be found']],
    ['yaml/reference', 'an empty reference', `a: !reference\n${job}`, ['!reference [] is not valid']],
    ['yaml/reference', 'a string reference', `a: !reference str\n${job}`, ['!reference "str" is not valid']],
    ['yaml/reference', 'a number reference', `a: !reference 1\n${job}`, ['!reference "1" is not valid']],
    ['yaml/reference', 'a reference to a number', `a: !reference [1]\n${job}`, ['!reference [1] is not valid']],
    ['yaml/reference', 'a hash reference', `a: !reference { b: c }\n${job}`, ['!reference {"b"=>"c"} is not valid']],
    ['yaml/reference', 'a path through a list', `a: [1, 2]\nb: [3, 4]\nc: !reference [a, b]\n${job}`, ['!reference ["a", "b"] could not be found']],
    ['yaml/reference', 'references in a list', `.a: { b: [1, 2] }\n.c: { d: { e: [3, 4] } }\n.f: { g: [ !reference [.a, b], 5, !reference [.c, d, e]] }\n${job}`, []],
    ['yaml/reference', 'a whole hash', `.a: { b: { c: 'c', d: 'd' } }\n.e: { f: !reference [.a, b] }\n${job}`, []],
    ['yaml/reference', 'a value of a referenced hash', `.a: { b: { c: 'c', d: 'd' } }\n.e: {  f: { g: !reference [.a, b, c], h: 'h' } }\n.i: !reference [.e, f]\n${job}`, []],
    ['yaml/reference', 'a value before its definition', `.a: { b: !reference [.c, d] }\n.g: { h: { i: 'i', j: 1 } }\n.c: { d: { e: !reference [.g, h, j], f: 'f' } }\n${job}`, []],
    ['yaml/loader', 'not a mapping', 'invalid...yaml', ['Invalid configuration format']],
    ['yaml/loader', 'a format error', 'invalid: yaml: all the time', ['(<unknown>): mapping values are not allowed in this context at line 1 column 14']],
  ];
}

/** yaml_processor_spec "Dependencies": build1, build2 (build), test1, test2 (test), deploy. */
function dependencyCases(): [string, string, string, string[]][] {
  const config = (dependencies: unknown): string =>
    Y({ build1: { stage: 'build', script: 'test' }, build2: { stage: 'build', script: 'test' }, test1: { stage: 'test', script: 'test', dependencies }, test2: { stage: 'test', script: 'test' }, deploy: { stage: 'deploy', script: 'test' } });
  return [
    ['yaml_processor', 'no dependencies', config(null), []],
    ['yaml_processor', 'dependencies on builds', config(['build1', 'build2']), []],
    ['yaml_processor', 'an undefined dependency', config(['undefined']), ['test1 job: undefined dependency: undefined']],
    ['yaml_processor', 'a dependency on a later stage', config(['deploy']), ['test1 job: dependency deploy is not defined in current or prior stages']],
    ['yaml_processor', 'a dependency on a job of an unknown stage', Y({ stages: ['version'], version: { stage: 'version', dependencies: ['release:components:versioning'], script: ['./versioning/versioning'] }, '.release_go': { stage: 'build', script: ['cd versioning'] }, 'release:components:versioning': { stage: 'build', script: ['cd versioning'] } }),
      ['version job: dependency release:components:versioning is not defined in current or prior stages']],
  ];
}

/** yaml_processor_spec "Job Needs": build1, build2, parallel (2) in build; test1 (needs), test2; deploy. */
function needsCases(): [string, string, string, string[]][] {
  const config = (test1: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
    Y({ build1: { stage: 'build', script: 'test' }, build2: { stage: 'build', script: 'test' }, parallel: { stage: 'build', script: 'test', parallel: 2 }, test1: { stage: 'test', script: 'test', ...test1 }, test2: { stage: 'test', script: 'test' }, deploy: { stage: 'deploy', script: 'test' }, ...extra });
  const long = 'a'.repeat(255);
  const matrix = (v1: string, v2: string): Record<string, unknown> => ({ parallel: { stage: 'build', script: 'test', parallel: { matrix: [{ VAR1: v1, VAR2: v2 }] } } });
  return [
    ['yaml_processor', 'needs of the same stage', config({ needs: ['test2'] }), []],
    ['yaml_processor', 'needs of two builds', config({ needs: ['build1', 'build2'] }), []],
    ['yaml_processor', 'needs with artifacts and optional', config({ needs: [{ job: 'parallel', artifacts: false }, { job: 'build1', artifacts: true, optional: true }, 'build2'] }), []],
    ['yaml_processor', 'needs of a parallel job', config({ needs: ['parallel'] }), []],
    ['yaml_processor', 'a need whose expanded name is too long', config({ needs: [long] }, { [long]: { stage: 'build', script: 'test', parallel: 1 } }),
      [`test1 job: need \`${long} 1/1\` name is too long (maximum is 255 characters)`]],
    ['yaml_processor', 'needs of a parallel:matrix job', config({ needs: ['parallel'] }, matrix('1', '2')), []],
    ['yaml_processor', 'a matrix need whose name is too long', config({ needs: ['parallel'] }, matrix('1'.repeat(127), '2'.repeat(127))),
      [`test1 job: need \`parallel: [${'1'.repeat(127)}, ${'2'.repeat(127)}]\` name is too long (maximum is 255 characters)`]],
    ['yaml_processor', 'needs with dependencies artifacts', config({ needs: ['build1', { job: 'build2' }, { job: 'parallel', artifacts: true }] }), []],
    ['yaml_processor', 'a need of an undefined job', config({ needs: ['undefined'] }), ['test1 job: undefined need: undefined']],
    ['yaml_processor', 'an optional need of an undefined job', config({ needs: [{ job: 'undefined', optional: true }] }), []],
    ['yaml_processor', 'a need of a later stage', config({ needs: ['deploy'] }), ['test1 job: need deploy is not defined in current or prior stages']],
    ['yaml_processor', 'duplicate needs', config({ needs: ['build1', 'build1'] }), ['test1 has the following needs duplicated: build1.']],
    ['yaml_processor', 'a job needed twice as hashes', config({ needs: [{ job: 'build2', artifacts: true, optional: false }, { job: 'build2', artifacts: true, optional: false }] }), ['test1 has the following needs duplicated: build2.']],
    ['yaml_processor', 'a job needed twice, differently', config({ needs: [{ job: 'build2', artifacts: false, optional: true }, { job: 'build2', artifacts: true, optional: false }] }), ['test1 has the following needs duplicated: build2.']],
    ['yaml_processor', 'needs and dependencies that differ', config({ needs: ['build1'], dependencies: ['build2'] }), ['jobs:test1 dependencies the build2 should be part of needs']],
    ['yaml_processor', 'hash needs and a dependency outside them', config({ needs: ['build1', { job: 'build2' }], dependencies: ['build3'] }), ['jobs:test1 dependencies the build3 should be part of needs']],
    ['yaml_processor', 'needs and a dependency string', config({ needs: ['build1'], dependencies: 'deploy' }), ['jobs:test1 dependencies should be an array of strings']],
    ['yaml_processor', 'a needs string', config({ needs: 'build1', dependencies: ['deploy'] }), ['jobs:test1:needs config can only be a hash or an array']],
    ['yaml_processor', 'a needs hash and a dependency string', config({ needs: { job: 'build1' }, dependencies: 'deploy' }), ['jobs:test1 dependencies should be an array of strings']],
    ['yaml_processor', 'needs of part of a matrix', Y({ build1: { stage: 'build', script: 'build', parallel: { matrix: [{ PROVIDER: ['aws'], STACK: ['monitoring', 'app1', 'app2'] }] } }, test1: { stage: 'test', script: 'test', needs: [{ job: 'build1', parallel: { matrix: [{ PROVIDER: ['aws'], STACK: ['app1'] }] } }] } }), []],
  ];
}

/** yaml_processor_spec "with parent-child pipeline": build1, and test1 triggering `include`. */
function childPipelineCases(): [string, string, string, string[]][] {
  const config = (include: unknown): string => Y({ build1: { stage: 'build', script: 'test' }, test1: { stage: 'test', trigger: { include } } });
  return [
    ['yaml_processor', 'a child pipeline from an artifact', config([{ artifact: 'generated.yml', job: 'build1' }]), []],
    ['yaml_processor', 'an artifact without its job', config([{ artifact: 'generated.yml' }]), ['jobs:test1:trigger:include:include config must specify the job where to fetch the artifact from']],
    ['yaml_processor', 'a child pipeline from another project', config([{ file: 'generated.yml', project: 'my-namespace/my-project' }]), []],
    ['yaml_processor', 'a project without its file', config([{ project: 'something' }]), ['jobs:test1:trigger:include:include config must specify the file where to fetch the config from']],
    ['yaml_processor', 'a child pipeline from a local file', config('generated.yml'), []],
  ];
}

describe('CI lint configurations from GitLab specs', () => {
  it.each(specCases)('%s: %s', (_spec, _title, content, errors, warnings) => {
    const result = lintCiConfig(content, ctx);
    expect(result.errors).toEqual(errors);
    expect(result.valid).toBe(errors.length === 0);
    if (warnings) expect(result.warnings).toEqual(warnings);
  });
});

/**
 * Ports of images and services count only where GitLab sets `with_image_ports` (the Web IDE
 * terminal); in CI they are refused. port_spec, ports_spec, services_spec run with it set.
 */
const webIdeCases: [string, string, string, string[]][] = [
  ['image', 'ports in the Web IDE', rspec({ script: 'echo', image: { name: 'image:1.0', ports: [{ number: 80, protocol: 'http', name: 'foobar' }] } }), []],
  ['service', 'ports in the Web IDE', rspec({ script: 'echo', services: [{ name: 'postgresql:9.5', alias: 'db', ports: [{ number: 80, protocol: 'http', name: 'foobar' }] }] }), []],
  ['service', 'unknown port keys', rspec({ script: 'echo', services: [{ name: 'postgresql:9.5', alias: 'db', ports: [{ number: 80, invalid_key: 'foo' }] }] }), ['jobs:rspec:services:service:ports:port config contains unknown keys: invalid_key']],
  ['port', 'a number', rspec({ script: 'echo', image: { name: 'i', ports: [80] } }), []],
  ['port', 'number, protocol and name', rspec({ script: 'echo', image: { name: 'i', ports: [{ number: 80, protocol: 'https', name: 'foobar' }] } }), []],
  ['port', 'only a number', rspec({ script: 'echo', image: { name: 'i', ports: [{ number: 80 }] } }), []],
  ['port', 'without the number', rspec({ script: 'echo', image: { name: 'i', ports: [{ protocol: 'http' }] } }), ['jobs:rspec:image:ports:port number should be a integer', "jobs:rspec:image:ports:port number can't be blank"]],
  ['port', 'a string', rspec({ script: 'echo', image: { name: 'i', ports: ['80'] } }), ['jobs:rspec:image:ports:port config should be a hash or an integer', 'jobs:rspec:image:ports:port number should be a integer', "jobs:rspec:image:ports:port number can't be blank"]],
  ['port', 'protocol foo', rspec({ script: 'echo', image: { name: 'i', ports: [{ number: 80, protocol: 'foo', name: 'foobar' }] } }), ['jobs:rspec:image:ports:port protocol should be http or https']],
  ['ports', 'a string', rspec({ script: 'echo', image: { name: 'i', ports: 'postgresql:9.5' } }), ['jobs:rspec:image:ports config should be a array']],
  ['ports', 'the same name twice', rspec({ script: 'echo', image: { name: 'i', ports: [{ number: 80, protocol: 'http', name: 'foobar' }, { number: 81, protocol: 'http', name: 'foobar' }] } }), ['jobs:rspec:image:ports config each port name must be different']],
  ['ports', 'the same port twice', rspec({ script: 'echo', image: { name: 'i', ports: [{ number: 80, protocol: 'http', name: 'foobar' }, { number: 80, protocol: 'http', name: 'foobar1' }] } }), ['jobs:rspec:image:ports config each port number can only be referenced once']],
  ['services', 'aliases not unique among services with ports', rspec({ script: 'echo', services: ['postgresql:9.5', { name: 'postgresql:9.1', alias: 'postgres_old', ports: [80] }, { name: 'ruby', alias: 'postgres_old', ports: [81] }] }), ['jobs:rspec:services config alias must be unique in services with ports']],
  ['services', 'unique aliases among services with ports', rspec({ script: 'echo', services: ['postgresql:9.5', { name: 'postgresql:9.1', alias: 'postgres_old', ports: [80] }, { name: 'ruby', alias: 'ruby', ports: [81] }] }), []],
  ['services', 'a duplicated alias on a service without ports', rspec({ script: 'echo', services: ['postgresql:9.5', { name: 'postgresql:9.1', alias: 'postgres_old', ports: [80] }, { name: 'ruby', alias: 'postgres_old' }] }), []],
];

describe('CI configuration entries with Web IDE ports', () => {
  it.each(webIdeCases)('%s: %s', (_spec, _title, content, errors) => {
    const root = Root.fromConfig(loadYaml(content), { with_image_ports: true });
    root.compose();
    expect(root.errors()).toEqual(errors);
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
