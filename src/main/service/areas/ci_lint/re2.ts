/**
 * GitLab compiles untrusted regular expressions with RE2 (Gitlab::UntrustedRegexp): a pattern
 * counts only if RE2 accepts it. This is RE2's parser (re2/parse.cc with its default Perl-like
 * flags) reduced to its accept/reject decisions, and a translation of an accepted pattern to a
 * JavaScript RegExp for evaluating it. RE2 refuses what it cannot run in linear time:
 * lookarounds, backreferences, atomic and possessive groups, stacked repetition (`a**`),
 * repetition counts over 1000, and escapes it does not know (`\Z`, `\G`, `\h`, `\1`...).
 */

const POSIX_CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z', alpha: 'A-Za-z', ascii: '\\x00-\\x7f', blank: '\\t ', cntrl: '\\x00-\\x1f\\x7f', digit: '0-9',
  graph: '!-~', lower: 'a-z', print: ' -~', punct: '!-\\/:-@\\[-`{-~', space: '\\t\\n\\v\\f\\r ', upper: 'A-Z',
  word: '0-9A-Za-z_', xdigit: '0-9A-Fa-f',
};
const PERL_CLASSES: Record<string, string> = { d: '0-9', s: '\\t\\n\\f\\r ', w: '0-9A-Za-z_' };
const MAX_REPEAT = 1000;

class SyntaxError_ extends Error {}

/** A Unicode group name RE2 knows: a general category (L, Lu...), a script (Greek...), or Any. */
function unicodeGroup(name: string): string | null {
  if (name === 'Any') return '\\s\\S';
  for (const candidate of [`\\p{${name}}`, `\\p{Script=${name}}`]) {
    try {
      new RegExp(candidate, 'u');
      return candidate;
    } catch {
      // not this kind of group
    }
  }
  return null;
}

const isOctal = (c: string | undefined): boolean => !!c && c >= '0' && c <= '7';
const isHex = (c: string | undefined): boolean => !!c && /[0-9A-Fa-f]/.test(c);
const isAlnum = (c: string): boolean => /[0-9A-Za-z]/.test(c);
/** A code point as a JavaScript `u`-mode escape, safe anywhere (inside or outside a class). */
const lit = (cp: number): string => `\\u{${cp.toString(16)}}`;

interface Translation {
  source: string;
  flags: string;
}

/** A parsed piece: its JavaScript source and the product of the counted repetitions nested in it. */
interface Piece {
  source: string;
  weight: number;
}

/** Parses `pattern` as RE2 would; returns its JavaScript translation, or throws when RE2 refuses it. */
class Re2Parser {
  private i = 0;
  private readonly names = new Set<string>();
  private flags = { i: false, m: false, s: false, U: false };
  /** JavaScript has no scoped flags: case folding anywhere folds the whole expression. */
  private folds = false;

  constructor(private readonly re: string) {}

  parse(): Translation {
    const { source } = this.alternation(0);
    if (this.i < this.re.length) throw new SyntaxError_('unexpected )');
    return { source, flags: this.folds ? 'ui' : 'u' };
  }

  /** alternation := concat ('|' concat)* ; stops before ')' when nested. */
  private alternation(depth: number): Piece {
    const branches = [this.concat(depth)];
    while (this.re[this.i] === '|') {
      this.i++;
      branches.push(this.concat(depth));
    }
    return { source: branches.map((b) => b.source).join('|'), weight: Math.max(...branches.map((b) => b.weight)) };
  }

  private concat(depth: number): Piece {
    let source = '';
    let weight = 1;
    for (;;) {
      const c = this.re[this.i];
      if (c === undefined || c === '|' || c === ')') {
        if (c === ')' && depth === 0) throw new SyntaxError_('unexpected )');
        return { source, weight };
      }
      if (c === '*' || c === '+' || c === '?') throw new SyntaxError_('missing argument to repetition operator');
      if (c === '{' && this.repeatSpec() !== null) throw new SyntaxError_('missing argument to repetition operator');
      const atom = this.atom(depth);
      if (atom === null) continue;
      const repeated = this.repetitions(atom);
      source += repeated.source;
      weight = Math.max(weight, repeated.weight);
    }
  }

  /** `{n}`, `{n,}`, `{n,m}` at the cursor, or null when the brace is a literal. */
  private repeatSpec(): { min: number; max: number; length: number } | null {
    const m = /^\{([0-9]+)(,([0-9]*))?\}/.exec(this.re.slice(this.i));
    if (!m) return null;
    const leadingZero = (s: string): boolean => s.length > 1 && s[0] === '0';
    if (leadingZero(m[1]) || (m[3] && leadingZero(m[3]))) return null;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
    return { min, max, length: m[0].length };
  }

  /**
   * Repetition operators after an atom. RE2 (Perl mode) refuses two in a row, counts over 1000,
   * and nested counts whose product exceeds 1000.
   */
  private repetitions(atom: Piece): Piece {
    let { source, weight } = atom;
    let repeated = false;
    for (;;) {
      const c = this.re[this.i];
      let op: string;
      if (c === '*' || c === '+' || c === '?') {
        op = c;
        this.i++;
      } else if (c === '{') {
        const spec = this.repeatSpec();
        if (!spec) return { source, weight };
        if (spec.min > MAX_REPEAT || spec.max > MAX_REPEAT || (spec.max >= 0 && spec.min > spec.max)) {
          throw new SyntaxError_('bad repetition operator');
        }
        const count = spec.max === -1 ? spec.min : spec.max;
        if (count > 0) weight *= count;
        if (weight > MAX_REPEAT) throw new SyntaxError_('bad repetition operator');
        op = this.re.slice(this.i, this.i + spec.length);
        this.i += spec.length;
      } else return { source, weight };
      if (repeated) throw new SyntaxError_('bad repetition operator');
      let lazy = this.flags.U;
      if (this.re[this.i] === '?') {
        lazy = !lazy;
        this.i++;
      }
      source = `(?:${source})${op}${lazy ? '?' : ''}`;
      repeated = true;
    }
  }

  private atom(depth: number): Piece | null {
    const c = this.re[this.i];
    if (c === '(') return this.group(depth);
    if (c === '[') return { source: this.charClass(), weight: 1 };
    if (c === '\\') return this.escape();
    this.i++;
    if (c === '.') return { source: this.flags.s ? '[\\s\\S]' : '.', weight: 1 };
    if (c === '^') return { source: this.flags.m ? '(?<=^|\\n)' : '(?<![\\s\\S])', weight: 1 };
    if (c === '$') return { source: this.flags.m ? '(?=$|\\n)' : '(?![\\s\\S])', weight: 1 };
    return { source: lit(c.codePointAt(0)!), weight: 1 };
  }

  /** `(...)`, `(?P<name>...)`, `(?<name>...)`, `(?flags)`, `(?flags:...)`; other `(?` forms are refused. */
  private group(depth: number): Piece | null {
    const rest = this.re.slice(this.i);
    let name: string | null = null;
    const saved = { ...this.flags };
    if (!rest.startsWith('(?')) this.i++;
    else {
      const named = /^\(\?P?<([^>]*)>/.exec(rest);
      if (named && !/^\(\?<[=!]/.test(rest)) {
        if (!/^\w+$/.test(named[1]) || this.names.has(named[1])) throw new SyntaxError_('invalid named capture group');
        name = named[1];
        this.names.add(name);
        this.i += named[0].length;
      } else {
        // (?=, (?!, (?<=, (?<!, (?>, (?#...) and unknown flags are "invalid or unsupported Perl syntax".
        const flags = /^\(\?([imsU]*)(?:-([imsU]*))?([:)])/.exec(rest);
        if (!flags || flags[2] === '') throw new SyntaxError_('invalid or unsupported Perl syntax');
        this.i += flags[0].length;
        for (const l of flags[1]) this.flags[l as keyof typeof this.flags] = true;
        for (const l of flags[2] ?? '') this.flags[l as keyof typeof this.flags] = false;
        if (this.flags.i) this.folds = true;
        if (flags[3] === ')') return null;
        const inner = this.alternation(depth + 1);
        this.closeParen();
        this.flags = saved;
        return { source: `(?:${inner.source})`, weight: inner.weight };
      }
    }
    const inner = this.alternation(depth + 1);
    this.closeParen();
    this.flags = saved;
    return { source: name ? `(?<${name}>${inner.source})` : `(${inner.source})`, weight: inner.weight };
  }

  private closeParen(): void {
    if (this.re[this.i] !== ')') throw new SyntaxError_('missing )');
    this.i++;
  }

  private escape(): Piece | null {
    const c = this.re[this.i + 1];
    if (c === undefined) throw new SyntaxError_('trailing \\');
    if (c === 'b' || c === 'B') {
      this.i += 2;
      return { source: `\\${c}`, weight: 1 };
    }
    if (c === 'A') {
      this.i += 2;
      return { source: '(?<![\\s\\S])', weight: 1 };
    }
    if (c === 'z') {
      this.i += 2;
      return { source: '(?![\\s\\S])', weight: 1 };
    }
    if (c === 'C') {
      this.i += 2;
      return { source: '[\\s\\S]', weight: 1 };
    }
    if (c === 'Q') {
      const end = this.re.indexOf('\\E', this.i + 2);
      const text = this.re.slice(this.i + 2, end < 0 ? undefined : end);
      this.i = end < 0 ? this.re.length : end + 2;
      if (!text) return null;
      return { source: [...text].map((ch) => lit(ch.codePointAt(0)!)).join(''), weight: 1 };
    }
    const cls = this.classEscape();
    if (cls !== null) return { source: `[${cls}]`, weight: 1 };
    return { source: lit(this.singleEscape()), weight: 1 };
  }

  /** \d \s \w (and negations), \pN, \p{Name}, \P{^Name}: the class body, or null if not one. */
  private classEscape(): string | null {
    const c = this.re[this.i + 1];
    if (c && c.toLowerCase() in PERL_CLASSES) {
      this.i += 2;
      const body = PERL_CLASSES[c.toLowerCase()];
      return c === c.toLowerCase() ? body : `^${body}`;
    }
    if (c !== 'p' && c !== 'P') return null;
    let negate = c === 'P';
    let name: string;
    if (this.re[this.i + 2] === '{') {
      const end = this.re.indexOf('}', this.i + 3);
      if (end < 0) throw new SyntaxError_('invalid character class range');
      name = this.re.slice(this.i + 3, end);
      this.i = end + 1;
    } else {
      name = this.re[this.i + 2] ?? '';
      if (!name) throw new SyntaxError_('invalid character class range');
      this.i += 3;
    }
    if (name.startsWith('^')) {
      negate = !negate;
      name = name.slice(1);
    }
    const group = unicodeGroup(name);
    if (!group) throw new SyntaxError_('invalid character class range');
    return negate ? `^${group}` : group;
  }

  /** One escaped character: octal, \x, \a\f\n\r\t\v, or escaped ASCII punctuation. */
  private singleEscape(): number {
    const c = this.re[this.i + 1];
    if (c === undefined) throw new SyntaxError_('trailing \\');
    if (isOctal(c) && (c === '0' || isOctal(this.re[this.i + 2]))) {
      // A lone \1-\7 would be a backreference, which RE2 does not support.
      let digits = '';
      let j = this.i + 1;
      while (digits.length < 3 && isOctal(this.re[j])) digits += this.re[j++];
      this.i = j;
      return parseInt(digits, 8);
    }
    if (c === 'x') {
      if (this.re[this.i + 2] === '{') {
        const end = this.re.indexOf('}', this.i + 3);
        const hex = end < 0 ? '' : this.re.slice(this.i + 3, end);
        if (!/^[0-9A-Fa-f]+$/.test(hex) || parseInt(hex, 16) > 0x10ffff) throw new SyntaxError_('invalid escape sequence');
        this.i = end + 1;
        return parseInt(hex, 16);
      }
      if (!isHex(this.re[this.i + 2]) || !isHex(this.re[this.i + 3])) throw new SyntaxError_('invalid escape sequence');
      const cp = parseInt(this.re.slice(this.i + 2, this.i + 4), 16);
      this.i += 4;
      return cp;
    }
    const controls: Record<string, number> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11 };
    if (c in controls) {
      this.i += 2;
      return controls[c];
    }
    if (c.codePointAt(0)! < 0x80 && !isAlnum(c)) {
      this.i += 2;
      return c.codePointAt(0)!;
    }
    throw new SyntaxError_('invalid escape sequence');
  }

  /** `[...]`: ranges, POSIX [:name:], Perl and Unicode classes; `]` first is a literal. */
  private charClass(): string {
    this.i++;
    let out = '';
    let negate = false;
    if (this.re[this.i] === '^') {
      negate = true;
      this.i++;
    }
    let first = true;
    while (first || this.re[this.i] !== ']') {
      if (this.i >= this.re.length) throw new SyntaxError_('missing ]');
      first = false;
      const rest = this.re.slice(this.i);
      if (rest.startsWith('[:')) {
        const end = rest.indexOf(':]', 2);
        if (end >= 0) {
          let name = rest.slice(2, end);
          const neg = name.startsWith('^');
          if (neg) name = name.slice(1);
          if (!(name in POSIX_CLASSES)) throw new SyntaxError_('invalid character class range');
          out += neg ? this.negatedRange(POSIX_CLASSES[name]) : POSIX_CLASSES[name];
          this.i += end + 2;
          continue;
        }
      }
      if (this.re[this.i] === '\\') {
        const cls = this.classEscape();
        if (cls !== null) {
          out += cls.startsWith('^') ? this.negatedRange(cls.slice(1)) : cls;
          continue;
        }
      }
      const lo = this.classChar();
      let hi = lo;
      if (this.re[this.i] === '-' && this.re[this.i + 1] !== undefined && this.re[this.i + 1] !== ']') {
        this.i++;
        hi = this.classChar();
        if (hi < lo) throw new SyntaxError_('invalid character class range');
      }
      out += hi === lo ? lit(lo) : `${lit(lo)}-${lit(hi)}`;
    }
    this.i++;
    if (!out) return negate ? '[\\s\\S]' : '[^\\s\\S]';
    return `[${negate ? '^' : ''}${out}]`;
  }

  /** A negated class inside a class: JavaScript has no nesting, so spell the complement out. */
  private negatedRange(body: string): string {
    const probe = new RegExp(`[${body}]`, 'u');
    const ranges: string[] = [];
    let start = -1;
    for (let cp = 0; cp <= 0x80; cp++) {
      const inside = cp < 0x80 && probe.test(String.fromCodePoint(cp));
      if (!inside && cp < 0x80 && start < 0) start = cp;
      if ((inside || cp === 0x80) && start >= 0) {
        ranges.push(`${lit(start)}-${lit(cp - 1)}`);
        start = -1;
      }
    }
    return `${ranges.join('')}\\u{80}-\\u{10ffff}`;
  }

  private classChar(): number {
    const c = this.re[this.i];
    if (c === undefined) throw new SyntaxError_('missing ]');
    if (c === '\\') return this.singleEscape();
    const cp = c.codePointAt(0)!;
    this.i += cp > 0xffff ? 2 : 1;
    return cp;
  }
}

/** Whether RE2 compiles `pattern` (UntrustedRegexp.new raising RegexpError when it does not). */
export function re2Accepts(pattern: string): boolean {
  return re2ToRegExp(pattern) !== null;
}

/** RE2 `pattern` as an equivalent JavaScript RegExp, or null when RE2 refuses it. */
export function re2ToRegExp(pattern: string): RegExp | null {
  try {
    const { source, flags } = new Re2Parser(pattern).parse();
    return new RegExp(source, flags);
  } catch (err) {
    if (err instanceof SyntaxError_ || err instanceof SyntaxError) return null;
    throw err;
  }
}

/** Gitlab::UntrustedRegexp::RubySyntax::PATTERN: `/regexp/flags`. */
const RUBY_SYNTAX = /^\/(.*)\/([ismU]*)$/;

/** RubySyntax.matches_syntax?: written like `/.../flags`. */
export function looksLikeRegexp(value: unknown): value is string {
  return typeof value === 'string' && RUBY_SYNTAX.test(value);
}

/** RubySyntax.fabricate: `/pattern/flags` as a RegExp, the flags prepended as `(?flags)`; null if RE2 refuses it. */
export function fabricateRegexp(value: string): RegExp | null {
  const m = RUBY_SYNTAX.exec(value);
  if (!m) return null;
  return re2ToRegExp(m[2] ? `(?${m[2]})${m[1]}` : m[1]);
}
