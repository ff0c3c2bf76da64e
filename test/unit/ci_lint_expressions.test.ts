import { describe, expect, it } from 'vitest';
import { evaluate, evaluateValue, isValidExpression } from '../../src/main/service/areas/ci_lint/expression';
import { re2Accepts } from '../../src/main/service/areas/ci_lint/re2';
import { parseDuration } from '../../src/main/service/areas/ci_lint/duration';

/**
 * GitLab's expression language, RE2 acceptance and ChronicDuration, against the tables of
 * spec/lib/gitlab/ci/pipeline/expression/{statement,parser,lexer}_spec.rb, lexeme/pattern_spec.rb
 * and the gitlab-chronic-duration gem's exemplars.
 */

const vars = {
  PRESENT_VARIABLE: 'my variable',
  PATH_VARIABLE: 'a/path/variable/value',
  FULL_PATH_VARIABLE: '/a/full/path/variable/value',
  EMPTY_VARIABLE: '',
};

/** statement_spec #evaluate: [expression, value] (Ruby's nil is null). */
const evaluations: [string, string | boolean | null][] = [
  ['$PRESENT_VARIABLE == "my variable"', true],
  ['"my variable" == $PRESENT_VARIABLE', true],
  ['$PRESENT_VARIABLE == null', false],
  ['$EMPTY_VARIABLE == null', false],
  ['"" == $EMPTY_VARIABLE', true],
  ['$EMPTY_VARIABLE', ''],
  ['$UNDEFINED_VARIABLE == null', true],
  ['null == $UNDEFINED_VARIABLE', true],
  ['$PRESENT_VARIABLE', 'my variable'],
  ['$UNDEFINED_VARIABLE', null],
  ['$PRESENT_VARIABLE =~ /var.*e$/', true],
  ['$PRESENT_VARIABLE =~ /va\\r.*e$/', false],
  ['$PRESENT_VARIABLE =~ /va\\/r.*e$/', false],
  ['$PRESENT_VARIABLE =~ /^var.*/', false],
  ['$EMPTY_VARIABLE =~ /var.*/', false],
  ['$UNDEFINED_VARIABLE =~ /var.*/', false],
  ['$PRESENT_VARIABLE =~ /VAR.*/i', true],
  ['$PATH_VARIABLE =~ /path\\/variable/', true],
  ['$FULL_PATH_VARIABLE =~ /^\\/a\\/full\\/path\\/variable\\/value$/', true],
  ['$FULL_PATH_VARIABLE =~ /\\/path\\/variable\\/value$/', true],
  ['$PRESENT_VARIABLE != "my variable"', false],
  ['"my variable" != $PRESENT_VARIABLE', false],
  ['$PRESENT_VARIABLE != null', true],
  ['$EMPTY_VARIABLE != null', true],
  ['"" != $EMPTY_VARIABLE', false],
  ['$UNDEFINED_VARIABLE != null', false],
  ['null != $UNDEFINED_VARIABLE', false],
  ['$PRESENT_VARIABLE !~ /var.*e$/', false],
  ['$PRESENT_VARIABLE !~ /^var.*/', true],
  ['$PRESENT_VARIABLE !~ /^v\\ar.*/', true],
  ['$PRESENT_VARIABLE !~ /^v\\/ar.*/', true],
  ['$EMPTY_VARIABLE !~ /var.*/', true],
  ['$UNDEFINED_VARIABLE !~ /var.*/', true],
  ['$PRESENT_VARIABLE !~ /VAR.*/i', false],
  ['$PRESENT_VARIABLE && "string"', 'string'],
  ['$PRESENT_VARIABLE && $PRESENT_VARIABLE', 'my variable'],
  ['$PRESENT_VARIABLE && $EMPTY_VARIABLE', ''],
  ['$PRESENT_VARIABLE && null', null],
  ['"string" && $PRESENT_VARIABLE', 'my variable'],
  ['$EMPTY_VARIABLE && $PRESENT_VARIABLE', 'my variable'],
  ['null && $PRESENT_VARIABLE', null],
  ['$EMPTY_VARIABLE && "string"', 'string'],
  ['$EMPTY_VARIABLE && $EMPTY_VARIABLE', ''],
  ['"string" && $EMPTY_VARIABLE', ''],
  ['"string" && null', null],
  ['null && "string"', null],
  ['"string" && "string"', 'string'],
  ['null && null', null],
  ['$PRESENT_VARIABLE =~ /my var/ && $EMPTY_VARIABLE =~ /nope/', false],
  ['$EMPTY_VARIABLE == "" && $PRESENT_VARIABLE', 'my variable'],
  ['$EMPTY_VARIABLE == "" && $PRESENT_VARIABLE != "nope"', true],
  ['$PRESENT_VARIABLE && $UNDEFINED_VARIABLE', null],
  ['$UNDEFINED_VARIABLE && $EMPTY_VARIABLE', null],
  ['$UNDEFINED_VARIABLE && $PRESENT_VARIABLE', null],
  ['$FULL_PATH_VARIABLE =~ /^\\/a\\/full\\/path\\/variable\\/value$/ && $PATH_VARIABLE =~ /path\\/variable/', true],
  ['$FULL_PATH_VARIABLE =~ /^\\/a\\/bad\\/path\\/variable\\/value$/ && $PATH_VARIABLE =~ /path\\/variable/', false],
  ['$FULL_PATH_VARIABLE =~ /^\\/a\\/full\\/path\\/variable\\/value$/ && $PATH_VARIABLE =~ /bad\\/path\\/variable/', false],
  ['$FULL_PATH_VARIABLE =~ /^\\/a\\/bad\\/path\\/variable\\/value$/ && $PATH_VARIABLE =~ /bad\\/path\\/variable/', false],
  ['$FULL_PATH_VARIABLE =~ /^\\/a\\/full\\/path\\/variable\\/value$/ || $PATH_VARIABLE =~ /path\\/variable/', true],
  ['$FULL_PATH_VARIABLE =~ /^\\/a\\/bad\\/path\\/variable\\/value$/ || $PATH_VARIABLE =~ /path\\/variable/', true],
  ['$FULL_PATH_VARIABLE =~ /^\\/a\\/full\\/path\\/variable\\/value$/ || $PATH_VARIABLE =~ /bad\\/path\\/variable/', true],
  ['$FULL_PATH_VARIABLE =~ /^\\/a\\/bad\\/path\\/variable\\/value$/ || $PATH_VARIABLE =~ /bad\\/path\\/variable/', false],
  ['$PRESENT_VARIABLE =~ /my var/ || $EMPTY_VARIABLE =~ /nope/', true],
  ['$EMPTY_VARIABLE == "" || $PRESENT_VARIABLE', true],
  ['$PRESENT_VARIABLE != "nope" || $EMPTY_VARIABLE == ""', true],
  ['$PRESENT_VARIABLE && null || $EMPTY_VARIABLE == ""', true],
  ['$PRESENT_VARIABLE || $UNDEFINED_VARIABLE', 'my variable'],
  ['$UNDEFINED_VARIABLE || $PRESENT_VARIABLE', 'my variable'],
  ['$UNDEFINED_VARIABLE == null || $PRESENT_VARIABLE', true],
  ['$PRESENT_VARIABLE || $UNDEFINED_VARIABLE == null', 'my variable'],
  ['($PRESENT_VARIABLE)', 'my variable'],
  ['(($PRESENT_VARIABLE))', 'my variable'],
  ['(($PRESENT_VARIABLE && null) || $EMPTY_VARIABLE == "")', true],
  ['($PRESENT_VARIABLE) && (null || $EMPTY_VARIABLE == "")', true],
  ['("string" || "test") == "string"', true],
  ['(null || ("test" == "string"))', false],
  ['("string" == ("test" && "string"))', true],
  ['("string" == ("test" || "string"))', false],
  ['("string" == "test" || "string")', 'string'],
  ['("string" == ("string" || (("1" == "1") && ("2" == "3"))))', true],
];

/** statement_spec #truthful? */
const truths: [string, boolean][] = [
  ['$PRESENT_VARIABLE == "my variable"', true],
  ["$PRESENT_VARIABLE == 'no match'", false],
  ['$UNDEFINED_VARIABLE == null', true],
  ['$PRESENT_VARIABLE', true],
  ['$UNDEFINED_VARIABLE', false],
  ['$EMPTY_VARIABLE', false],
  ['$INVALID = 1', false],
  ['$PRESENT_VARIABLE =~ /var.*/', true],
  ['$UNDEFINED_VARIABLE =~ /var.*/', false],
  ['$PRESENT_VARIABLE !~ /var.*/', false],
  ['$UNDEFINED_VARIABLE !~ /var.*/', true],
];

describe('CI expressions (GitLab statement_spec)', () => {
  it.each(evaluations)('%s evaluates to %j', (expression, value) => {
    expect(evaluateValue(expression, vars)).toEqual(value);
  });

  it.each(truths)('%s is truthful: %s', (expression, value) => {
    expect(evaluate(expression, vars)).toBe(value);
  });

  it('reads inputs', () => {
    const inputs = { cloud_provider: 'aws', environment: 'production' };
    expect(evaluateValue('$[[ inputs.cloud_provider ]] == "aws"', {}, inputs)).toBe(true);
    expect(evaluateValue('$[[ inputs.cloud_provider ]] == "gcp"', {}, inputs)).toBe(false);
    expect(evaluateValue('$[[ inputs.cloud_provider ]] == "aws" && $[[ inputs.environment ]] == "production"', {}, inputs)).toBe(true);
  });

  it('matches a variable holding a pattern, or a plain string', () => {
    const patterns = { teststring: 'abcde', pattern1: '/^ab.*/', pattern2: '/^at.*/' };
    expect(evaluate('$teststring =~ "abcde"', patterns)).toBe(true);
    expect(evaluate('$teststring =~ $teststring', patterns)).toBe(true);
    expect(evaluate('$teststring =~ $pattern1', patterns)).toBe(true);
    expect(evaluate('$teststring =~ $pattern2', patterns)).toBe(false);
  });
});

describe('CI expression grammar (parser_spec, lexer_spec, pattern_spec)', () => {
  it.each([
    '$VAR1 == "123"', '$VAR1 == "123" == $VAR2', '$VAR', '"some value"', 'null', '$VAR1 || $VAR2 && $VAR3',
    '$VAR1 && ($VAR2 || $VAR3) && $VAR4', '(($VAR1 == "a" || $VAR2 == "b") && $VAR3 == "c" || $VAR4 == "d") && $VAR5 == "e"',
    '\t$VARIABLE ', '$PRESENT_VARIABLE && null || $EMPTY_VARIABLE == ""', '($PRESENT_VARIABLE && (null || $EMPTY_VARIABLE == ""))',
    '$X =~ /foo\\/bar/', '$X =~ /pattern/im', '$X =~ /some .* \\/ pattern/', '$X =~ /some numeric \\$ pattern/', '!$X', '$X == true',
  ])('accepts %s', (expression) => {
    expect(isValidExpression(expression)).toBe(true);
  });

  it.each([
    '', '$VAR "text"', '== "123"', '$VAR ==', '$V1 123 $V2', '$VAR == (', '$VAR2 == ("aa"', '$VAR2 == ("aa"))', '$VAR2 == "aa")',
    '(($VAR2 == "aa")', '($VAR2 == "aa"))', '$X =~ / some ( thin/i', '$X =~ //', '$X =~ /a/', '${X} == "y"', '$X =~ /^(?!master).+/',
  ])('refuses %j', (expression) => {
    expect(isValidExpression(expression)).toBe(false);
  });

  it('allows 99 tokens and no more (Lexer::MAX_TOKENS)', () => {
    const chain = (n: number): string => Array.from({ length: n }, () => '$A').join(' && ');
    expect(isValidExpression(chain(50))).toBe(true);
    expect(isValidExpression(chain(51))).toBe(false);
  });

  it('gives && precedence over || and honours parentheses', () => {
    expect(evaluate('$BRANCH == "x" && $BRANCH == "main" || $BRANCH', { BRANCH: 'main' })).toBe(true);
    expect(evaluate('$BRANCH == "x" && ($BRANCH == "main" || $BRANCH)', { BRANCH: 'main' })).toBe(false);
  });
});

describe('RE2 syntax (what Gitlab::UntrustedRegexp compiles)', () => {
  it.each(['abc', 'a*?', '(?i)abc', '(?P<name>x)', '(?<name>x)', '[]a]', '\\pL', '\\p{Greek}', '[[:alpha:]]', 'a{2,3}', 'a{,3}', '\\Q.*\\E', '(a{10}){100}', '\\x{263a}', '^issue-.*$', ''])(
    'accepts %j', (pattern) => expect(re2Accepts(pattern)).toBe(true),
  );

  it.each(['*invalid', '(?=a)', '(?!a)', '(?<=a)b', '(?<!a)b', '(?>a)', 'a**', 'a++', '(a)\\1', '\\Z', '\\G', 'a{1001}', '(a{10}){101}', 'a{3,2}', '(', ')', '[a', '[z-a]', '[[:foo:]]', '\\p{Nope}', '(?P=n)', '(?#comment)', '(?<n>a)(?<n>b)'])(
    'refuses %j', (pattern) => expect(re2Accepts(pattern)).toBe(false),
  );
});

describe('ChronicDuration (gitlab-chronic-duration exemplars)', () => {
  it.each([
    ['1:20', 80], ['1:20.51', 80.51], ['4:01:01', 4 * 3600 + 61], ['3 mins 4 sec', 184], ['3 Mins 4 Sec', 184], ['2 hrs 20 min', 8400],
    ['2h20min', 8400], ['6 mos 1 day', 6 * 30 * 86400 + 86400], ['1 year 6 mos 1 day', 31557600 + 6 * 30 * 86400 + 86400],
    ['2.5 hrs', 9000], ['47 yrs 6 mos and 4.5d', 47 * 31557600 + 6 * 30 * 86400 + 4.5 * 86400], ['3 weeks and, 2 days', 3 * 604800 + 2 * 86400],
    ['3 weeks, plus 2 days', 3 * 604800 + 2 * 86400], ['3 weeks with 2 days', 3 * 604800 + 2 * 86400], ['1 month', 2592000],
    ['18 months', 18 * 2592000], ['1 year 6 months', Math.trunc(86400 * (365.25 + 180))], ['day', 86400], ['minute 30s', 90],
    ['1m 3s', 63], ['7d', 604800], ['two hours', 7200],
  ] as [string, number][])('parses %j as %d seconds', (text, seconds) => {
    expect(parseDuration(text)).toBeCloseTo(seconds, 6);
  });

  it.each(['gobblygoo', '0', '23 gobblygoos', 'not-a-number', '7 elephants', ''])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});
