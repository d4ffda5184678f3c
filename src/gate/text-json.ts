// Finding JSON values inside free text: where a balanced `{…}` / `[…]` starts and ends (strings and
// escapes respected), and its value, read strictly or with the few repairs a model's hand-written JSON
// needs (trailing commas, Python's True/False/None). Nothing here guesses at a truncated value: an
// unbalanced value is simply not found.
//
// Extraction asks about many start positions in one text (every `{` at a line start, after a colon, in
// a fence…), often nested in one another. So one `TextJson` per text remembers, for every bracket a
// scan has passed, where it closes, how deep it nests and what it parses to: a later question about a
// bracket already seen is answered without reading its span again, and the whole extraction stays
// linear in the text. Values nested deeper than the depth cap are not found at all (nothing
// downstream then has to walk them).
import { MAX_NESTING_DEPTH } from './limits.ts';

export interface JsonSpan {
  start: number;
  end: number;
  value: unknown;
}

const UNKNOWN = 0; // no close is at 0: a close is the index after a bracket
const FAIL = Symbol('not JSON');
const MAX_HEIGHT = 255;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** JSON's own whitespace (space, tab, line feed, carriage return). */
const isJsonSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
/** JavaScript's `\s` (what the regex-based reading this replaced accepted between values). */
export function isSpaceCode(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const closerOf = (c: number) => (c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET);

export class TextJson {
  /** Index just past a bracket's matching close, -1 when it never closes, UNKNOWN before a scan. */
  private readonly close: Int32Array;
  /** Nesting depth of the value a bracket opens (`{}` is 1), capped at MAX_HEIGHT. */
  private readonly height: Uint8Array;
  /** Per position: 0 not read yet, else 1 + the index in `values` of what the container there holds (or FAIL). */
  private readonly slot: Int32Array;
  private readonly values: unknown[] = [];
  private readonly openStack: number[] = [];
  private readonly innerStack: number[] = [];

  constructor(
    readonly text: string,
    readonly maxDepth: number = MAX_NESTING_DEPTH,
  ) {
    // One allocation for the three tables (9 bytes per character), all starting at 0 = not known yet.
    const n = text.length;
    const buffer = new ArrayBuffer(9 * n);
    this.close = new Int32Array(buffer, 0, n);
    this.slot = new Int32Array(buffer, 4 * n, n);
    this.height = new Uint8Array(buffer, 8 * n, n);
  }

  /**
   * Index just past the bracket that closes the one at `start`, or -1. One left-to-right scan that
   * records the close of every bracket it opens and jumps over brackets an earlier scan resolved.
   */
  balancedEnd(start: number): number {
    const t = this.text;
    const first = t.charCodeAt(start);
    if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return -1;
    if (this.close[start] !== UNKNOWN) return this.close[start]!;
    const open = this.openStack;
    const inner = this.innerStack; // deepest child height per open bracket
    open.length = 0;
    inner.length = 0;
    let inString = false;
    for (let i = start; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (inString) {
        if (c === BACKSLASH) i++;
        else if (c === QUOTE) inString = false;
        continue;
      }
      if (c === QUOTE) inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        const known = this.close[i]!;
        if (known === UNKNOWN) {
          open.push(i);
          inner.push(0);
        } else if (known < 0) {
          break; // it never closes on its own, so nothing around it does either
        } else {
          const top = inner.length - 1;
          if (this.height[i]! > inner[top]!) inner[top] = this.height[i]!;
          i = known - 1;
        }
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        const o = open[open.length - 1]!;
        if (closerOf(t.charCodeAt(o)) !== c) break;
        open.pop();
        const h = Math.min(MAX_HEIGHT, inner.pop()! + 1);
        this.close[o] = i + 1;
        this.height[o] = h;
        if (open.length === 0) return i + 1;
        if (h > inner[inner.length - 1]!) inner[inner.length - 1] = h;
      }
    }
    // A mismatched closer or the end of the text: every bracket still open fails the same way.
    for (const o of open) this.close[o] = -1;
    return -1;
  }

  /** The JSON value starting at `start` (after optional whitespace), if there is a complete one. */
  jsonAt(start: number): JsonSpan | undefined {
    let i = start;
    while (i < this.text.length && isSpaceCode(this.text.charCodeAt(i))) i++;
    const end = this.endAt(i);
    return end < 0 ? undefined : { start: i, end, value: this.valueAt(i) };
  }

  /** End of the complete JSON value (object or array, within the depth cap) starting exactly at `at`, or -1. */
  endAt(at: number): number {
    const end = this.balancedEnd(at);
    if (end < 0 || this.height[at]! > this.maxDepth) return -1;
    return this.containerAt(at) === FAIL ? -1 : end;
  }

  /** The value of the container at `at`; only after endAt(at) ≥ 0. */
  valueAt(at: number): unknown {
    return this.values[this.slot[at]! - 1];
  }

  /** Where the next value of a run may start after a value ending at `end`: past whitespace, `,` and `;`. */
  nextInRun(end: number): number {
    let i = end;
    for (let c = this.text.charCodeAt(i); c === COMMA || c === 0x3b || isSpaceCode(c); c = this.text.charCodeAt(++i));
    return i;
  }

  // ---- reading a balanced span: JSON, plus trailing commas and True/False/None -------------------
  // A small recursive-descent reader instead of JSON.parse over a rewritten copy, so that each
  // container is read once however many spans contain it (results are remembered by position), and
  // the repairs never touch string contents. Recursion is bounded: only spans no deeper than maxDepth
  // are read. Each read returns the value (or FAIL) and leaves the index after it in `pos`.

  private pos = 0;

  private containerAt(at: number): unknown {
    if (this.slot[at] === 0) this.slot[at] = this.values.push(this.readContainer(at));
    this.pos = this.close[at]!;
    return this.values[this.slot[at]! - 1];
  }

  private skipJsonSpace(i: number): number {
    while (i < this.text.length && isJsonSpace(this.text.charCodeAt(i))) i++;
    return i;
  }

  /** After a comma: the index of the container's closer when only whitespace lies between (a trailing comma). */
  private trailingCloser(i: number, closer: number): number {
    let j = i;
    while (j < this.text.length && isSpaceCode(this.text.charCodeAt(j))) j++;
    return this.text.charCodeAt(j) === closer ? j : -1;
  }

  /** The container at `at`, read up to its closer, which must be the one balancedEnd found. */
  private readContainer(at: number): unknown {
    const t = this.text;
    const opener = t.charCodeAt(at);
    const closer = closerOf(opener);
    const isObject = opener === OPEN_BRACE;
    const out: unknown[] | Record<string, unknown> = isObject ? {} : [];
    const end = this.close[at]! - 1; // a read that closes anywhere else is not this container
    let i = this.skipJsonSpace(at + 1);
    if (t.charCodeAt(i) === closer) return i === end ? out : FAIL;
    if (t.charCodeAt(i) === COMMA) return this.trailingCloser(i + 1, closer) === end ? out : FAIL; // `[,]` reads as empty
    for (;;) {
      let key = '';
      if (isObject) {
        if (t.charCodeAt(i) !== QUOTE) return FAIL;
        const k = this.readString(i);
        if (k === FAIL) return FAIL;
        key = k;
        i = this.skipJsonSpace(this.pos);
        if (t.charCodeAt(i) !== COLON) return FAIL;
        i = this.skipJsonSpace(i + 1);
      }
      const v = this.readValue(i);
      if (v === FAIL) return FAIL;
      if (isObject) setKey(out as Record<string, unknown>, key, v);
      else (out as unknown[]).push(v);
      i = this.skipJsonSpace(this.pos);
      const c = t.charCodeAt(i);
      if (c === closer) return i === end ? out : FAIL;
      if (c !== COMMA) return FAIL;
      const trailing = this.trailingCloser(i + 1, closer);
      if (trailing >= 0) return trailing === end ? out : FAIL;
      i = this.skipJsonSpace(i + 1);
    }
  }

  private readValue(i: number): unknown {
    const t = this.text;
    const c = t.charCodeAt(i);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) return this.close[i]! <= 0 ? FAIL : this.containerAt(i);
    if (c === QUOTE) return this.readString(i);
    if (c === 0x2d || isDigit(c)) return this.readNumber(i);
    for (const [word, value] of LITERALS) {
      if (t.startsWith(word, i)) {
        this.pos = i + word.length;
        return value;
      }
    }
    return FAIL;
  }

  private readString(i: number): string | typeof FAIL {
    const t = this.text;
    let plain = true; // no escape and no control character: the characters are the value
    for (let j = i + 1; j < t.length; j++) {
      const c = t.charCodeAt(j);
      if (c === BACKSLASH) {
        plain = false;
        j++;
      } else if (c === QUOTE) {
        this.pos = j + 1;
        if (plain) return t.slice(i + 1, j);
        try {
          return JSON.parse(t.slice(i, j + 1)) as string;
        } catch {
          return FAIL; // a control character or a bad escape
        }
      } else if (c < 0x20) plain = false;
    }
    return FAIL;
  }

  /** JSON's number grammar: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)? */
  private readNumber(i: number): number | typeof FAIL {
    const t = this.text;
    let j = i;
    if (t.charCodeAt(j) === 0x2d) j++;
    if (t.charCodeAt(j) === 0x30) j++;
    else if (isDigit(t.charCodeAt(j))) while (isDigit(t.charCodeAt(j))) j++;
    else return FAIL;
    if (t.charCodeAt(j) === 0x2e) {
      j++;
      if (!isDigit(t.charCodeAt(j))) return FAIL;
      while (isDigit(t.charCodeAt(j))) j++;
    }
    if (t.charCodeAt(j) === 0x65 || t.charCodeAt(j) === 0x45) {
      j++;
      if (t.charCodeAt(j) === 0x2b || t.charCodeAt(j) === 0x2d) j++;
      if (!isDigit(t.charCodeAt(j))) return FAIL;
      while (isDigit(t.charCodeAt(j))) j++;
    }
    this.pos = j;
    return Number(t.slice(i, j));
  }
}

// JSON's literals and Python's, which a model writing JSON by hand uses (True → true …).
const LITERALS: [string, unknown][] = [
  ['true', true],
  ['false', false],
  ['null', null],
  ['True', true],
  ['False', false],
  ['None', null],
];

/** Like JSON.parse: a `__proto__` key is an own property, never the prototype. */
function setKey(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else o[key] = value;
}
