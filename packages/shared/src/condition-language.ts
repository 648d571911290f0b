/**
 * The expression language of eCRF display conditions, parsed into a tree and interpreted: no `eval`, no
 * `Function`, so the web app runs under `script-src 'self'` (docs/security.md "HTTP headers and CSP").
 *
 * The language is filtrex 3's, which the stored designs were written for, and must stay exactly that: the same
 * tokens (including its quirks: a keyword swallows the character after it, so `not(x)` does not parse; numbers
 * with a leading zero read as sloppy-mode JavaScript literals, `010` is 8), the same precedence (lowest first:
 * `if … then … else` and `? :`, `or`, `and`, `in`/`not in`, relations `== != < <= > >= ~=` which chain, `+ -`,
 * `* / mod %`, prefix `not` and `-`, `^` (right), `of`), and the same run-time rules (`==` is `===`, `<` and the
 * arithmetic want numbers, `and`/`or`/`not`/`if` want true or false, a one-element list stands for its element;
 * anything else is an error, which the caller turns into "not shown"). `condition-language.test.ts` runs
 * generated and real expressions through filtrex and through this and asserts the same results.
 */

export type ConditionNode =
  | { k: 'num'; v: number }
  | { k: 'str'; v: string }
  /** an item value (or a property of `of`'s object) */
  | { k: 'sym'; name: string; of?: ConditionNode }
  | { k: 'call'; name: string; args: ConditionNode[] }
  | { k: 'list'; items: ConditionNode[] }
  | { k: 'neg' | 'not'; e: ConditionNode }
  | { k: 'op'; op: '+' | '-' | '*' | '/' | '^' | 'mod'; a: ConditionNode; b: ConditionNode }
  | { k: 'and' | 'or' | 'in' | 'notIn'; a: ConditionNode; b: ConditionNode }
  /** a chain `a < b <= c`: each relation in turn, stopping at the first false one */
  | { k: 'rel'; first: ConditionNode; rest: { op: RelOp; e: ConditionNode }[] }
  | { k: 'if'; c: ConditionNode; t: ConditionNode; e: ConditionNode };

type RelOp = '==' | '!=' | '<' | '<=' | '>' | '>=' | '~=';

/** A syntax error: the expression cannot be used. */
export class ConditionSyntaxError extends Error {
  constructor(
    message: string,
    /** offset in the expression where it went wrong */
    readonly position: number,
  ) {
    super(message);
    this.name = 'ConditionSyntaxError';
  }
}

/** An error while evaluating (a value of the wrong type, an unknown function); the item is then not shown. */
export class ConditionRuntimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConditionRuntimeError';
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Tokens: filtrex's lexer rules, in its order; the first rule that matches wins (not the longest).

type TokenType =
  | '*'
  | '/'
  | '-'
  | '+'
  | '^'
  | '('
  | ')'
  | ','
  | '=='
  | '!='
  | '~='
  | '>='
  | '<='
  | '<'
  | '>'
  | 'notIn'
  | 'and'
  | 'or'
  | 'not'
  | 'in'
  | 'of'
  | 'if'
  | 'then'
  | 'else'
  | 'mod'
  | 'Number'
  | 'Symbol'
  | 'String'
  | '%'
  | '?'
  | ':'
  | 'End';

interface Token {
  type: TokenType;
  /** number, string or symbol name; the matched text otherwise */
  value: string;
  pos: number;
}

const RULES: [RegExp, TokenType | null][] = [
  [/^\*/, '*'],
  [/^\//, '/'],
  [/^-/, '-'],
  [/^\+/, '+'],
  [/^\^/, '^'],
  [/^\(/, '('],
  [/^\)/, ')'],
  [/^,/, ','],
  [/^==/, '=='],
  [/^!=/, '!='],
  [/^~=/, '~='],
  [/^>=/, '>='],
  [/^<=/, '<='],
  [/^</, '<'],
  [/^>/, '>'],
  // a keyword takes the non-word character after it with it (filtrex's rules do; `not(x)` loses its "(")
  [/^not\s+in[^\w]/, 'notIn'],
  [/^and[^\w]/, 'and'],
  [/^or[^\w]/, 'or'],
  [/^not[^\w]/, 'not'],
  [/^in[^\w]/, 'in'],
  [/^of[^\w]/, 'of'],
  [/^if[^\w]/, 'if'],
  [/^then[^\w]/, 'then'],
  [/^else[^\w]/, 'else'],
  [/^mod[^\w]/, 'mod'],
  [/^\s+/, null],
  [/^[0-9]+(?:\.[0-9]+)?(?![0-9.])/, 'Number'],
  [/^[a-zA-Z$_][.a-zA-Z0-9$_]*/, 'Symbol'],
  [/^'(?:\\'|\\\\|[^'\\])*'/, 'Symbol'],
  [/^"(?:\\"|\\\\|[^"\\])*"/, 'String'],
  [/^%/, '%'],
  [/^\?/, '?'],
  [/^:/, ':'],
];

/** Where in the expression, for people: the first character is 1. */
function where(offset: number): string {
  return `position ${offset + 1}`;
}

/** The text between the quotes, with filtrex's two escapes (\\ and the quote itself). */
function unquote(literal: string, pos: number): string {
  const quote = literal[0]!;
  let out = '';
  for (let i = 1; i < literal.length - 1; i++) {
    const c = literal[i]!;
    if (c === '\\') {
      i++;
      const next = literal[i];
      if (i >= literal.length - 1 || (next !== '\\' && next !== quote))
        throw new ConditionSyntaxError(`Invalid escape in ${literal} at ${where(pos + i)}`, pos + i);
      out += next;
    } else if (c === quote) {
      throw new ConditionSyntaxError(`Unescaped quotation mark in ${literal} at ${where(pos + i)}`, pos + i);
    } else out += c;
  }
  return out;
}

/**
 * A number token as filtrex's generated (sloppy-mode) JavaScript reads it: `010` is octal 8, `08.5` is 8.5, and
 * `010.5` is no number at all.
 */
function numberValue(text: string, pos: number): number {
  const [int = '', frac] = text.split('.');
  if (int.length > 1 && int.startsWith('0') && /^[0-7]+$/.test(int)) {
    if (frac !== undefined) throw new ConditionSyntaxError(`Invalid number ${text} at ${where(pos)}`, pos);
    return parseInt(int, 8);
  }
  return Number(text);
}

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  while (pos < expression.length) {
    const rest = expression.slice(pos);
    let matched = false;
    for (const [re, type] of RULES) {
      const m = re.exec(rest);
      if (!m) continue;
      matched = true;
      const text = m[0];
      if (type === 'Number') tokens.push({ type, value: text, pos });
      else if (type === 'Symbol')
        tokens.push({ type, value: text.startsWith("'") ? unquote(text, pos) : text, pos });
      else if (type === 'String') tokens.push({ type, value: unquote(text, pos), pos });
      else if (type) tokens.push({ type, value: text, pos });
      pos += text.length;
      break;
    }
    if (!matched)
      throw new ConditionSyntaxError(
        `Unrecognized text at ${where(pos)}: ${expression.slice(pos, pos + 10)}`,
        pos,
      );
  }
  tokens.push({ type: 'End', value: '', pos: expression.length });
  return tokens;
}

// ---------------------------------------------------------------------------------------------------------------
// Parser: precedence climbing over filtrex's precedence table (jison's conflict resolution for its grammar).

/** Binding levels, lowest first (filtrex's `operators` table). */
const L = { ternary: 1, or: 2, and: 3, in: 4, rel: 6, add: 8, mul: 9, prefix: 10, pow: 11, of: 12 } as const;

type InfixType = '?' | 'or' | 'and' | 'in' | 'notIn' | RelOp | '+' | '-' | '*' | '/' | 'mod' | '%' | '^';

const INFIX: Record<InfixType, number> = {
  '?': L.ternary,
  or: L.or,
  and: L.and,
  in: L.in,
  notIn: L.in,
  '==': L.rel,
  '!=': L.rel,
  '<': L.rel,
  '<=': L.rel,
  '>': L.rel,
  '>=': L.rel,
  '~=': L.rel,
  '+': L.add,
  '-': L.add,
  '*': L.mul,
  '/': L.mul,
  mod: L.mul,
  '%': L.mul,
  '^': L.pow,
};

function isRelation(type: TokenType): type is RelOp {
  return (
    type === '==' ||
    type === '!=' ||
    type === '<' ||
    type === '<=' ||
    type === '>' ||
    type === '>=' ||
    type === '~='
  );
}

function describeToken(t: Token): string {
  if (t.type === 'End') return 'end of expression';
  if (t.type === 'Number') return `number ${t.value}`;
  if (t.type === 'String') return `text "${t.value}"`;
  if (t.type === 'Symbol') return `name ${t.value}`;
  return `"${t.value.trim() || t.type}"`;
}

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.i]!;
  }
  private next(): Token {
    return this.tokens[this.i++]!;
  }
  private expect(type: TokenType, what: string): void {
    const t = this.next();
    if (t.type !== type)
      throw new ConditionSyntaxError(`Expected ${what} at ${where(t.pos)}, found ${describeToken(t)}`, t.pos);
  }

  parseAll(): ConditionNode {
    const e = this.expr(L.ternary);
    const t = this.peek();
    if (t.type !== 'End')
      throw new ConditionSyntaxError(`Unexpected ${describeToken(t)} at ${where(t.pos)}`, t.pos);
    return e;
  }

  /** an expression whose operators all bind at least as tightly as `min` */
  private expr(min: number): ConditionNode {
    let left = this.prefix();
    for (;;) {
      const t = this.peek();
      const type = Object.prototype.hasOwnProperty.call(INFIX, t.type) ? (t.type as InfixType) : null;
      if (type === null || INFIX[type] < min) return left;
      const level = INFIX[type];
      this.next();
      switch (type) {
        case '?': {
          const then = this.expr(L.ternary);
          this.expect(':', '":"');
          left = { k: 'if', c: left, t: then, e: this.expr(L.ternary) };
          break;
        }
        case 'or':
        case 'and':
        case 'in':
        case 'notIn':
          left = { k: type, a: left, b: this.expr(level + 1) };
          break;
        case '==':
        case '!=':
        case '<':
        case '<=':
        case '>':
        case '>=':
        case '~=': {
          // relations chain: `a < b <= c` is `a < b and b <= c`
          const rest = [{ op: type, e: this.expr(L.add) }];
          while (isRelation(this.peek().type))
            rest.push({ op: this.next().type as RelOp, e: this.expr(L.add) });
          left = { k: 'rel', first: left, rest };
          break;
        }
        case '^':
          left = { k: 'op', op: '^', a: left, b: this.expr(L.pow) };
          break;
        case '+':
        case '-':
        case '*':
        case '/':
        case 'mod':
        case '%':
          left = { k: 'op', op: type === '%' ? 'mod' : type, a: left, b: this.expr(level + 1) };
      }
    }
  }

  private prefix(): ConditionNode {
    const t = this.next();
    switch (t.type) {
      case 'Number':
        return { k: 'num', v: numberValue(t.value, t.pos) };
      case 'String':
        return { k: 'str', v: t.value };
      case '-':
        return { k: 'neg', e: this.expr(L.prefix) };
      case 'not':
        return { k: 'not', e: this.expr(L.prefix) };
      case 'if': {
        const c = this.expr(L.ternary);
        this.expect('then', '"then"');
        const then = this.expr(L.ternary);
        this.expect('else', '"else"');
        return { k: 'if', c, t: then, e: this.expr(L.ternary) };
      }
      case '(': {
        const items = [this.expr(L.ternary)];
        while (this.peek().type === ',') {
          this.next();
          items.push(this.expr(L.ternary));
        }
        this.expect(')', '")"');
        return items.length === 1 ? items[0]! : { k: 'list', items };
      }
      case 'Symbol': {
        const after = this.peek().type;
        if (after === '(') {
          this.next();
          const args: ConditionNode[] = [];
          if (this.peek().type !== ')') {
            args.push(this.expr(L.ternary));
            while (this.peek().type === ',') {
              this.next();
              args.push(this.expr(L.ternary));
            }
          }
          this.expect(')', '")"');
          return { k: 'call', name: t.value, args };
        }
        if (after === 'of') {
          this.next();
          return { k: 'sym', name: t.value, of: this.expr(L.of + 1) };
        }
        return { k: 'sym', name: t.value };
      }
      case '*':
      case '/':
      case '+':
      case '^':
      case ')':
      case ',':
      case '==':
      case '!=':
      case '~=':
      case '>=':
      case '<=':
      case '<':
      case '>':
      case 'notIn':
      case 'and':
      case 'or':
      case 'in':
      case 'of':
      case 'then':
      case 'else':
      case 'mod':
      case '%':
      case '?':
      case ':':
      case 'End':
        throw new ConditionSyntaxError(`Unexpected ${describeToken(t)} at ${where(t.pos)}`, t.pos);
    }
  }
}

/** Parses an expression; throws a ConditionSyntaxError saying where and why when it is not valid. */
export function parseCondition(expression: string): ConditionNode {
  try {
    return new Parser(tokenize(expression)).parseAll();
  } catch (e) {
    // the lexer's quirk is easy to trip over: `not(x)` reads as `not x)`
    const glued = /\b(not|and|or|in|of|if|then|else|mod)\(/.exec(expression);
    if (e instanceof ConditionSyntaxError && glued)
      throw new ConditionSyntaxError(
        `${e.message} (write a space between "${glued[1]}" and "(")`,
        e.position,
      );
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Interpreter: filtrex's operators and coercions (its utils.mjs), over values that never reach a prototype.

/** Boxed primitives become primitives; any other object becomes undefined (filtrex's `unbox`). */
function unbox(v: unknown): unknown {
  if (typeof v !== 'object') return v;
  if (v instanceof Number || v instanceof String || v instanceof Boolean) return v.valueOf();
  return undefined;
}

/** A one-element list stands for its element. */
function unwrap(v: unknown): unknown {
  return unbox(Array.isArray(v) && v.length === 1 ? (v[0] as unknown) : v);
}

function typeName(v: unknown): string {
  const u = unwrap(v);
  if (u === undefined || u === null || u === true || u === false) return String(u);
  if (typeof u === 'number') return 'number';
  if (typeof u === 'string') return 'text';
  return Array.isArray(u) ? 'list' : 'object';
}

function num(v: unknown): number {
  const u = unwrap(v);
  if (typeof u === 'number') return u;
  throw new ConditionRuntimeError(`Expected a number, got ${typeName(v)}`);
}
function str(v: unknown): string {
  const u = unwrap(v);
  if (typeof u === 'string') return u;
  throw new ConditionRuntimeError(`Expected a text, got ${typeName(v)}`);
}
function numstr(v: unknown): number | string {
  const u = unwrap(v);
  if (typeof u === 'string' || typeof u === 'number') return u;
  throw new ConditionRuntimeError(`Expected a text or number, got ${typeName(v)}`);
}
function bool(v: unknown): boolean {
  const u = unwrap(v);
  if (typeof u === 'boolean') return u;
  throw new ConditionRuntimeError(`Expected true or false, got ${typeName(v)}`);
}
function list(v: unknown): unknown[] {
  if (v === undefined || v === null) throw new ConditionRuntimeError(`Expected a list, got ${typeName(v)}`);
  return Array.isArray(v) ? (v as unknown[]) : [v];
}

const RELATIONS: Record<RelOp, (a: unknown, b: unknown) => boolean> = {
  '==': (a, b) => a === b,
  '!=': (a, b) => a !== b,
  '<': (a, b) => num(a) < num(b),
  '<=': (a, b) => num(a) <= num(b),
  '>': (a, b) => num(a) > num(b),
  '>=': (a, b) => num(a) >= num(b),
  // filtrex has it; a pattern is data for RegExp, not code
  '~=': (a, b) => RegExp(str(b)).test(str(a)),
};

export type ConditionFunction = (...args: unknown[]) => unknown;

/** filtrex's built-in functions; the caller adds its own (and may replace these). */
export const BUILTIN_FUNCTIONS: Record<string, ConditionFunction> = {
  abs: Math.abs as ConditionFunction,
  ceil: Math.ceil as ConditionFunction,
  floor: Math.floor as ConditionFunction,
  log: Math.log as ConditionFunction,
  log2: Math.log2 as ConditionFunction,
  log10: Math.log10 as ConditionFunction,
  max: Math.max as ConditionFunction,
  min: Math.min as ConditionFunction,
  round: Math.round as ConditionFunction,
  sqrt: Math.sqrt as ConditionFunction,
  exists: (v) => v !== undefined && v !== null,
  empty: (v) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0),
};

export interface ConditionScope {
  /** the value of a name, for a bare name (`obj` = the values) and for `name of obj` */
  prop(name: string, obj: unknown): unknown;
  /** own properties only: nothing reaches `constructor`, `__proto__` or the like */
  functions: Record<string, ConditionFunction>;
}

/** Evaluates a parsed expression; throws a ConditionRuntimeError (or whatever a function throws) on a type error. */
export function evaluateCondition(node: ConditionNode, values: unknown, scope: ConditionScope): unknown {
  const ev = (n: ConditionNode): unknown => {
    switch (n.k) {
      case 'num':
      case 'str':
        return n.v;
      case 'sym':
        return scope.prop(n.name, n.of ? ev(n.of) : values);
      case 'list':
        return n.items.map(ev);
      case 'call': {
        const args = n.args.map(ev);
        const fn = Object.prototype.hasOwnProperty.call(scope.functions, n.name)
          ? scope.functions[n.name]
          : undefined;
        if (typeof fn !== 'function') throw new ConditionRuntimeError(`Unknown function: ${n.name}()`);
        return fn(...args);
      }
      case 'neg':
        return -num(ev(n.e));
      case 'not':
        return !bool(ev(n.e));
      case 'and':
        return bool(ev(n.a)) && bool(ev(n.b));
      case 'or':
        return bool(ev(n.a)) || bool(ev(n.b));
      case 'in':
      case 'notIn': {
        const a = ev(n.a);
        const b = ev(n.b);
        const needles = list(a);
        const hay = list(b);
        const subset = needles.every((x) => hay.includes(x));
        return n.k === 'in' ? subset : !subset;
      }
      case 'if':
        return bool(ev(n.c)) ? ev(n.t) : ev(n.e);
      case 'rel': {
        let prev = ev(n.first);
        for (const { op, e } of n.rest) {
          const cur = ev(e);
          if (!RELATIONS[op](prev, cur)) return false;
          prev = cur;
        }
        return true;
      }
      case 'op': {
        const a = ev(n.a);
        const b = ev(n.b);
        switch (n.op) {
          case '+':
            // text + number concatenates, as in filtrex
            return (numstr(a) as number) + (numstr(b) as number);
          case '-':
            // filtrex's "-" is unary when its second operand is undefined
            return b === undefined ? -num(a) : num(a) - num(b);
          case '*':
            return num(a) * num(b);
          case '/':
            return num(a) / num(b);
          case '^':
            return Math.pow(num(a), num(b));
          case 'mod': {
            const x = num(a);
            const y = num(b);
            return ((x % y) + y) % y;
          }
        }
      }
    }
  };
  return ev(node);
}
