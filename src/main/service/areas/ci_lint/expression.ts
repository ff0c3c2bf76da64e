import { fabricateRegexp } from './re2';

/**
 * GitLab's CI expression language (lib/gitlab/ci/pipeline/expression): the lexer's lexemes in its
 * order, the shunting-yard parser with its precedences, and evaluation with Ruby's truthiness.
 * A statement is valid when it lexes (at most 99 tokens), every /pattern/ compiles as RE2, and
 * the parse leaves exactly one tree.
 */

class ExpressionError extends Error {}

type Value = string | boolean | null | RegExp;
export type Variables = Record<string, string | undefined>;
/** What an expression sees: CI variables, and the `$[[ inputs.* ]]` of a component. */
interface Scope {
  vars: Variables;
  inputs: Record<string, unknown>;
}

interface Node {
  evaluate(scope: Scope): Value;
}

type Kind = 'value' | 'logical' | 'unary' | 'open' | 'close';

interface Lexeme {
  name: string;
  /** Anchored at the cursor, as StringScanner#scan matches. */
  pattern: RegExp;
  kind: Kind;
  precedence: number;
  build?: (text: string) => Node;
  operator?: (left: Node, right: Node) => Node;
}

/** Ruby's `present?` for an expression result. */
const present = (v: Value): boolean => v !== null && v !== false && !(typeof v === 'string' && /^\s*$/.test(v));
/** Ruby truthiness: only nil and false are false. */
const truthy = (v: Value): boolean => v !== null && v !== false;

/** LogicalOperator#compare_with_coercion: a boolean and a string compare as strings. */
function equal(left: Value, right: Value): boolean {
  const coerce = (v: Value): Value => (typeof v === 'boolean' ? String(v) : v);
  if ((typeof left === 'boolean' && typeof right === 'string') || (typeof left === 'string' && typeof right === 'boolean')) {
    return coerce(left) === coerce(right);
  }
  if (left instanceof RegExp && right instanceof RegExp) return left.source === right.source && left.flags === right.flags;
  return left === right;
}

/** Lexeme::Pattern.build_and_evaluate: a string that is a valid /pattern/ becomes a regexp. */
function asPattern(value: Value): RegExp | string {
  if (value instanceof RegExp) return value;
  // GitLab raises NoMethodError on a boolean here; an expression that cannot run is not valid.
  if (typeof value !== 'string') throw new ExpressionError('not a pattern');
  return fabricateRegexp(value.replace(/\\\//g, '/')) ?? value;
}

/** `=~`: UntrustedRegexp#scan finds a match (a plain string scans itself for the text). */
function matches(text: Value, pattern: Value): boolean {
  if (!truthy(pattern)) return false;
  const p = asPattern(pattern);
  const subject = text === null ? '' : String(text);
  return typeof p === 'string' ? p.includes(subject) : new RegExp(p.source, p.flags).test(subject);
}

const PATTERN = /^\/([^/]|\\\/)+[^\\]\/[ismU]*/;

function binary(evaluate: (l: Value, r: Value) => Value): (left: Node, right: Node) => Node {
  return (left, right) => ({ evaluate: (scope) => evaluate(left.evaluate(scope), right.evaluate(scope)) });
}

const LEXEMES: Lexeme[] = [
  { name: 'parenthesis_open', pattern: /^\(/, kind: 'open', precedence: 901 },
  { name: 'parenthesis_close', pattern: /^\)/, kind: 'close', precedence: 900 },
  {
    name: 'input', pattern: /^\$\[\[\s*inputs\.([\w-]+)\s*\]\]/, kind: 'value', precedence: 0,
    build: (text) => {
      const name = /inputs\.([\w-]+)/.exec(text)![1];
      return { evaluate: ({ inputs }) => (inputs[name] ?? null) as Value };
    },
  },
  {
    name: 'variable', pattern: /^\$(\w+)/, kind: 'value', precedence: 0,
    build: (text) => {
      const name = text.slice(1);
      return { evaluate: ({ vars }) => vars[name] ?? null };
    },
  },
  {
    name: 'string', pattern: /^(?:"([^\n]*?)"|'([^\n]*?)')/, kind: 'value', precedence: 0,
    build: (text) => {
      const value = text.slice(1, -1);
      return { evaluate: () => value };
    },
  },
  {
    name: 'pattern', pattern: PATTERN, kind: 'value', precedence: 0,
    build: (text) => {
      const regexp = fabricateRegexp(text.replace(/\\\//g, '/'));
      if (!regexp) throw new ExpressionError('Invalid regular expression!');
      return { evaluate: () => regexp };
    },
  },
  { name: 'null', pattern: /^null/, kind: 'value', precedence: 0, build: () => ({ evaluate: () => null }) },
  {
    name: 'boolean', pattern: /^\b(?:true|false)\b/, kind: 'value', precedence: 0,
    build: (text) => ({ evaluate: () => text === 'true' }),
  },
  { name: 'equals', pattern: /^==/, kind: 'logical', precedence: 10, operator: binary((l, r) => equal(l, r)) },
  { name: 'matches', pattern: /^=~/, kind: 'logical', precedence: 10, operator: binary((l, r) => matches(l, r)) },
  { name: 'not_equals', pattern: /^!=/, kind: 'logical', precedence: 10, operator: binary((l, r) => !equal(l, r)) },
  { name: 'not_matches', pattern: /^!~/, kind: 'logical', precedence: 10, operator: binary((l, r) => !truthy(r) || !matches(l, r)) },
  { name: 'and', pattern: /^&&/, kind: 'logical', precedence: 11, operator: binary((l, r) => (truthy(l) ? r : l)) },
  { name: 'or', pattern: /^\|\|/, kind: 'logical', precedence: 12, operator: binary((l, r) => (truthy(l) ? l : r)) },
  { name: 'not', pattern: /^!/, kind: 'unary', precedence: 1 },
];

const MAX_TOKENS = 100;

interface Token {
  text: string;
  lexeme: Lexeme;
}

/** Lexer#tokenize: whitespace skipped, the first lexeme matching at the cursor wins. */
function tokenize(statement: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  for (let n = 0; n < MAX_TOKENS; n++) {
    pos += /^\s*/.exec(statement.slice(pos))![0].length;
    if (pos >= statement.length) return tokens;
    const rest = statement.slice(pos);
    let matched = false;
    for (const lexeme of LEXEMES) {
      const m = lexeme.pattern.exec(rest);
      if (m && m[0].length > 0) {
        tokens.push({ text: m[0], lexeme });
        pos += m[0].length;
        matched = true;
        break;
      }
    }
    if (!matched) throw new ExpressionError('Unknown lexeme found!');
  }
  throw new ExpressionError('Too many tokens!');
}

/** `precedence >= lexeme.precedence`: whether `token` pops `top` off the operator stack. */
const consumes = (token: Lexeme, top: Token | undefined): boolean => !!top && token.precedence >= top.lexeme.precedence;

/** Parser#tokens_rpn: Dijkstra's shunting yard, exactly as GitLab runs it. */
function toRpn(tokens: Token[]): Token[] {
  const output: Token[] = [];
  const operators: Token[] = [];
  for (const token of tokens) {
    switch (token.lexeme.kind) {
      case 'value':
        output.push(token);
        break;
      case 'logical':
        while (consumes(token.lexeme, operators[operators.length - 1])) output.push(operators.pop()!);
        operators.push(token);
        break;
      case 'open':
      case 'unary':
        operators.push(token);
        break;
      case 'close':
        while (consumes(token.lexeme, operators[operators.length - 1])) output.push(operators.pop()!);
        if (!operators.length) throw new ExpressionError('Unmatched parenthesis');
        if (operators[operators.length - 1].lexeme.kind === 'open') operators.pop();
        break;
    }
  }
  return output.concat(operators.reverse());
}

/** Parser#tree. */
function parseTree(statement: string): Node {
  const tokens = tokenize(statement);
  if (!tokens.length) throw new ExpressionError('empty statement');
  const results: (Node | undefined)[] = [];
  for (const token of toRpn(tokens)) {
    const { lexeme } = token;
    if (lexeme.kind === 'value') results.push(lexeme.build!(token.text));
    else if (lexeme.kind === 'unary') {
      const operand = results.pop();
      if (!operand) throw new ExpressionError('Invalid operand');
      results.push({ evaluate: (scope) => !present(operand.evaluate(scope)) });
    } else if (lexeme.kind === 'logical') {
      const right = results.pop();
      const left = results.pop();
      if (!left || !right) throw new ExpressionError('Invalid operand');
      results.push(lexeme.operator!(left, right));
    } else throw new ExpressionError(`Unprocessable token found in parse tree: ${lexeme.name}`);
  }
  if (results.length > 1) throw new ExpressionError('Unreachable nodes in parse tree');
  if (results.length < 1) throw new ExpressionError('Empty parse tree');
  return results[0]!;
}

/** Statement#valid?: the statement parses (and evaluates without variables). */
export function isValidExpression(statement: unknown): boolean {
  if (typeof statement !== 'string') return false;
  try {
    parseTree(statement).evaluate({ vars: {}, inputs: {} });
    return true;
  } catch (err) {
    if (err instanceof ExpressionError) return false;
    throw err;
  }
}

/** Statement#evaluate: the value (Ruby's nil is null); throws on a malformed statement. */
export function evaluateValue(statement: string, vars: Variables, inputs: Record<string, unknown> = {}): Value {
  return parseTree(statement).evaluate({ vars, inputs });
}

/** Statement#truthful?: the statement's value is present; a malformed statement is false. */
export function evaluate(statement: string, vars: Variables): boolean {
  try {
    return present(evaluateValue(statement, vars));
  } catch (err) {
    if (err instanceof ExpressionError) return false;
    throw err;
  }
}
