import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/main/service/areas/ci_lint/expression';

const vars = { BRANCH: 'main', EMPTY: '', PATTERN: '/^ma/' };

describe('CI rules:if expressions', () => {
  it('compares variables with strings, null and each other', () => {
    expect(evaluate('$BRANCH == "main"', vars)).toBe(true);
    expect(evaluate("$BRANCH != 'main'", vars)).toBe(false);
    expect(evaluate('$MISSING == null', vars)).toBe(true);
    expect(evaluate('$BRANCH == $BRANCH', vars)).toBe(true);
  });

  it('reads a bare variable as present and non-empty', () => {
    expect(evaluate('$BRANCH', vars)).toBe(true);
    expect(evaluate('$EMPTY', vars)).toBe(false);
    expect(evaluate('$MISSING', vars)).toBe(false);
  });

  it('matches regexps, literal or held in a variable', () => {
    expect(evaluate('$BRANCH =~ /^MA/i', vars)).toBe(true);
    expect(evaluate('$BRANCH !~ /^dev/', vars)).toBe(true);
    expect(evaluate('$BRANCH =~ $PATTERN', vars)).toBe(true);
    expect(evaluate('$MISSING =~ /x/', vars)).toBe(false);
  });

  it('gives && precedence over || and honours parentheses', () => {
    expect(evaluate('$BRANCH == "x" && $BRANCH == "main" || $BRANCH', vars)).toBe(true);
    expect(evaluate('$BRANCH == "x" && ($BRANCH == "main" || $BRANCH)', vars)).toBe(false);
  });

  it('treats a malformed expression as false', () => {
    expect(evaluate('$BRANCH ==', vars)).toBe(false);
    expect(evaluate('($BRANCH == "main"', vars)).toBe(false);
    expect(evaluate('main', vars)).toBe(false);
  });
});
