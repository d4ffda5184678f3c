// JSON as models write it by hand: the one reader for both places the gate reads a model's JSON, a
// call's arguments (arguments-text.ts) and calls written into the text (text-json.ts).
//
// It reads JSON plus the slips that cannot change a value: trailing commas, Python's True/False/None
// and, where the dialect allows them (arguments), single-quoted strings and comments. It reads values
// out of the text instead of rewriting the text and parsing the copy, so a string's content is never
// touched: `"keep a, True, b,]"` comes back exactly as written.
// Beside it, `scanStructure` reads the same strings, comments and brackets in one pass without
// building values: how deep the text nests, and whether it stops before its brackets close (cut off)
// or has `...` standing where content should be, which is what a refusal says before any parse.
// Both are one pass over the text; the reader's recursion is bounded because a caller only reads
// text whose depth it has checked first.

export const FAIL: unique symbol = Symbol('not JSON');

/** Which slips, beyond trailing commas and Python literals, a reading accepts. */
export interface Dialect {
  singleQuotes: boolean;
  comments: boolean;
  /** A raw control character inside a string (a newline or tab a model wrote into "content": "…") is read as its escape: lossless. */
  rawControls?: boolean;
}

/** The slips a reading met (to be recorded as repairs). */
export interface Slips {
  trailingComma: boolean;
  singleQuotes: boolean;
  comment: boolean;
  pyLiteral: boolean;
  /** Raw control characters inside strings, read as their escapes. */
  rawControl: boolean;
}

const QUOTE = 0x22;
/** A control character JSON allows only escaped (U+0000 to U+001F). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters looked for
const CONTROL = /[\u0000-\u001f]/;
const CONTROL_ALL = new RegExp(CONTROL.source, 'g');
const SHORT_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };
/** The escape JSON writes for a control character. */
const escapeControl = (c: string): string => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
const SQUOTE = 0x27;
const BACKSLASH = 0x5c;
const SLASH = 0x2f;
const STAR = 0x2a;
const DOT = 0x2e;
const ELLIPSIS = 0x2026;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** JSON's own whitespace (space, tab, line feed, carriage return). */
const isJsonSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
/** JavaScript's `\s`: what may stand between a trailing comma and its closer, and between values of a run. */
export function isSpaceCode(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
export const closerOf = (c: number) => (c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET);

/** Index of the closing quote of the string opening at `start`, or -1 when the text ends first. */
export function stringEnd(s: string, start: number, quote: number): number {
  for (let i = start + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === quote) return i;
  }
  return -1;
}

const opensComment = (s: string, i: number) => s.charCodeAt(i) === SLASH && (s.charCodeAt(i + 1) === SLASH || s.charCodeAt(i + 1) === STAR);

/** End of the comment opening at `i` (`//` to the line feed, which stays; `/* … *\/`), or -1 when a block comment never closes. */
function commentEnd(s: string, i: number): number {
  if (s.charCodeAt(i + 1) === SLASH) {
    const nl = s.indexOf('\n', i);
    return nl < 0 ? s.length : nl;
  }
  const close = s.indexOf('*/', i + 2);
  return close < 0 ? -1 : close + 2;
}

// ---- the structure, without values ------------------------------------------------------------

export type Structure =
  | { kind: 'ok' }
  | { kind: 'too_deep' }
  /** The text ends inside a string or a block comment. */
  | { kind: 'unterminated'; inside: 'string' | 'comment' }
  /** A closer that matches no opener. */
  | { kind: 'unbalanced'; char: string }
  /** `...` or `…` outside strings. */
  | { kind: 'elided'; char: string }
  /** The text ends with brackets still open. */
  | { kind: 'unclosed'; open: number };

/**
 * One pass over `s`, reading strings (and, in the dialect, single-quoted strings and comments) as
 * the reader does. Nesting past `maxDepth` wins over everything (it is found before any parse, so
 * JSON.parse never meets it); then the first stray closer or `...` in reading order; then brackets
 * left open at the end. Stops at the first level past `maxDepth`: a text nested 100,000 deep costs
 * no more than one nested `maxDepth + 1` deep.
 */
export function scanStructure(s: string, maxDepth: number, dialect: Dialect): Structure {
  const stack: number[] = [];
  let depth = 0;
  let first: Structure | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === QUOTE || (c === SQUOTE && dialect.singleQuotes)) {
      i = stringEnd(s, i, c);
      if (i < 0) return first ?? { kind: 'unterminated', inside: 'string' };
    } else if (dialect.comments && opensComment(s, i)) {
      const end = commentEnd(s, i);
      if (end < 0) return first ?? { kind: 'unterminated', inside: 'comment' };
      i = end - 1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) return { kind: 'too_deep' };
      if (!first) stack.push(closerOf(c));
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth > 0) depth--;
      if (!first && stack.pop() !== c) first = { kind: 'unbalanced', char: s[i]! };
    } else if (!first && ((c === DOT && s.startsWith('...', i)) || c === ELLIPSIS)) {
      first = { kind: 'elided', char: c === DOT ? '...' : '…' };
    }
  }
  return first ?? (stack.length > 0 ? { kind: 'unclosed', open: stack.length } : { kind: 'ok' });
}

/** Whether objects and arrays in `s` nest more than `max` levels deep (strings, single-quoted ones and comments read as the arguments layer reads them). */
export function nestsDeeperThan(s: string, max: number): boolean {
  return scanStructure(s, max, { singleQuotes: true, comments: true }).kind === 'too_deep';
}

// ---- the values ---------------------------------------------------------------------------------

// JSON's literals and Python's, which a model writing JSON by hand uses (True → true …).
const LITERALS: [string, unknown, boolean][] = [
  ['true', true, false],
  ['false', false, false],
  ['null', null, false],
  ['True', true, true],
  ['False', false, true],
  ['None', null, true],
];

/**
 * A recursive-descent reader over one text. Each read returns the value (or FAIL) and leaves the
 * index after it in `pos`; `failAt` is where the first failure was met. Containers are read through
 * `container(at)`, which a subclass may remember by position (text-json.ts does).
 */
export class LooseReader {
  pos = 0;
  failAt = -1;
  readonly slips: Slips = { trailingComma: false, singleQuotes: false, comment: false, pyLiteral: false, rawControl: false };

  readonly text: string;
  readonly dialect: Dialect;
  constructor(text: string, dialect: Dialect) {
    this.text = text;
    this.dialect = dialect;
  }

  /** The whole text as one value, with only space (and comments, in the dialect) around it; or FAIL. */
  readDocument(): unknown {
    const v = this.readValue(this.skipSpace(0));
    if (v === FAIL) return FAIL;
    const end = this.skipSpace(this.pos);
    return end === this.text.length ? v : this.fail(end);
  }

  protected fail(at: number): typeof FAIL {
    if (this.failAt < 0) this.failAt = at;
    return FAIL;
  }

  /** Past JSON whitespace, and comments when the dialect has them. */
  skipSpace(i: number, space: (c: number) => boolean = isJsonSpace): number {
    const t = this.text;
    for (;;) {
      while (i < t.length && space(t.charCodeAt(i))) i++;
      if (!this.dialect.comments || !opensComment(t, i)) return i;
      const end = commentEnd(t, i);
      if (end < 0) return i;
      this.slips.comment = true;
      i = end;
    }
  }

  /** After a comma: the index of the container's closer when only space lies between (a trailing comma), else -1. */
  private trailingCloser(i: number, closer: number): number {
    const j = this.skipSpace(i, isSpaceCode);
    if (this.text.charCodeAt(j) !== closer) return -1;
    this.slips.trailingComma = true;
    return j;
  }

  readValue(i: number): unknown {
    const t = this.text;
    const c = t.charCodeAt(i);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) return this.container(i);
    if (c === QUOTE || (c === SQUOTE && this.dialect.singleQuotes)) return this.readString(i);
    if (c === 0x2d || isDigit(c)) return this.readNumber(i);
    for (const [word, value, python] of LITERALS) {
      if (t.startsWith(word, i)) {
        if (python) this.slips.pyLiteral = true;
        this.pos = i + word.length;
        return value;
      }
    }
    return this.fail(i);
  }

  protected container(at: number): unknown {
    return this.readContainer(at);
  }

  /** The object or array opening at `at`, read to its closer. */
  protected readContainer(at: number): unknown {
    const t = this.text;
    const closer = closerOf(t.charCodeAt(at));
    const isObject = closer === CLOSE_BRACE;
    const out: unknown[] | Record<string, unknown> = isObject ? {} : [];
    let i = this.skipSpace(at + 1);
    if (t.charCodeAt(i) === closer) return this.closedAt(i, out);
    if (t.charCodeAt(i) === COMMA) {
      // `[,]` reads as empty, as the comma it is.
      const close = this.trailingCloser(i + 1, closer);
      return close < 0 ? this.fail(i) : this.closedAt(close, out);
    }
    for (;;) {
      let key = '';
      if (isObject) {
        const q = t.charCodeAt(i);
        if (q !== QUOTE && !(q === SQUOTE && this.dialect.singleQuotes)) return this.fail(i);
        const k = this.readString(i);
        if (k === FAIL) return FAIL;
        key = k;
        i = this.skipSpace(this.pos);
        if (t.charCodeAt(i) !== COLON) return this.fail(i);
        i = this.skipSpace(i + 1);
      }
      const v = this.readValue(i);
      if (v === FAIL) return FAIL;
      if (isObject) setKey(out as Record<string, unknown>, key, v);
      else (out as unknown[]).push(v);
      i = this.skipSpace(this.pos);
      const c = t.charCodeAt(i);
      if (c === closer) return this.closedAt(i, out);
      if (c !== COMMA) return this.fail(i);
      const trailing = this.trailingCloser(i + 1, closer);
      if (trailing >= 0) return this.closedAt(trailing, out);
      i = this.skipSpace(i + 1);
    }
  }

  /** A container read to its closer at `close` (a method, not a closure made per container read). */
  private closedAt(close: number, out: unknown): unknown {
    this.pos = close + 1;
    return out;
  }

  private readString(i: number): string | typeof FAIL {
    const t = this.text;
    const quote = t.charCodeAt(i);
    if (quote === SQUOTE) {
      const end = stringEnd(t, i, SQUOTE);
      if (end < 0) return this.fail(i);
      this.slips.singleQuotes = true;
      this.pos = end + 1;
      return this.parseString(requote(t.slice(i + 1, end)), i);
    }
    let plain = true; // no escape and no control character: the characters are the value
    for (let j = i + 1; j < t.length; j++) {
      const c = t.charCodeAt(j);
      if (c === BACKSLASH) {
        plain = false;
        j++;
      } else if (c === QUOTE) {
        this.pos = j + 1;
        if (plain) return t.slice(i + 1, j);
        return this.parseString(t.slice(i, j + 1), i);
      } else if (c < 0x20) plain = false;
    }
    return this.fail(i);
  }

  /** A double-quoted string literal's value; its raw control characters escaped first where the dialect allows (a bad escape still fails). */
  private parseString(literal: string, at: number): string | typeof FAIL {
    try {
      return JSON.parse(literal) as string;
    } catch {
      if (!this.dialect.rawControls || !CONTROL.test(literal)) return this.fail(at);
    }
    try {
      const value = JSON.parse(literal.replace(CONTROL_ALL, escapeControl)) as string;
      this.slips.rawControl = true;
      return value;
    } catch {
      return this.fail(at);
    }
  }

  /** JSON's number grammar: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)? */
  private readNumber(i: number): number | typeof FAIL {
    const t = this.text;
    let j = i;
    if (t.charCodeAt(j) === 0x2d) j++;
    if (t.charCodeAt(j) === 0x30) j++;
    else if (isDigit(t.charCodeAt(j))) while (isDigit(t.charCodeAt(j))) j++;
    else return this.fail(j);
    if (t.charCodeAt(j) === DOT) {
      j++;
      if (!isDigit(t.charCodeAt(j))) return this.fail(j);
      while (isDigit(t.charCodeAt(j))) j++;
    }
    if (t.charCodeAt(j) === 0x65 || t.charCodeAt(j) === 0x45) {
      j++;
      if (t.charCodeAt(j) === 0x2b || t.charCodeAt(j) === 0x2d) j++;
      if (!isDigit(t.charCodeAt(j))) return this.fail(j);
      while (isDigit(t.charCodeAt(j))) j++;
    }
    this.pos = j;
    return Number(t.slice(i, j));
  }
}

/** The body of a single-quoted string as a double-quoted JSON string (escapes kept as written, `\'` as `'`). */
function requote(body: string): string {
  let out = '"';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\') {
      const next = body[i + 1] ?? '';
      out += next === "'" ? "'" : c + next;
      i++;
    } else out += c === '"' ? '\\"' : c;
  }
  return `${out}"`;
}

/** Like JSON.parse: a `__proto__` key is an own property, never the prototype. */
function setKey(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else o[key] = value;
}
