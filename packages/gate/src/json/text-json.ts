// Finding JSON values inside free text: where a balanced `{…}` / `[…]` starts and ends (strings and
// escapes respected), and its value, read by the gate's one reader of model JSON (loose-json.ts) in
// the dialect of text calls: JSON plus trailing commas and Python's True/False/None. Nothing here
// guesses at a truncated value: an unbalanced value is simply not found.
//
// Extraction asks about many start positions in one text (every `{` at a line start, after a colon, in
// a fence…), often nested in one another. So one `TextJson` per text remembers, for every bracket a
// scan has passed, where it closes, how deep it nests and what it parses to: a later question about a
// bracket already seen is answered without reading its span again, and the whole extraction stays
// linear in the text. Values nested deeper than the depth cap are not found at all (nothing
// downstream then has to walk them).
import { MAX_NESTING_DEPTH } from '../limits.ts';
import { closerOf, FAIL, isSpaceCode, LooseReader, stringEnd } from './loose-json.ts';

export interface JsonSpan {
  start: number;
  end: number;
  value: unknown;
}

const UNKNOWN = 0; // no close is at 0: a close is the index after a bracket
const MAX_HEIGHT = 255;

const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

export class TextJson extends LooseReader {
  /** Index just past a bracket's matching close, -1 when it never closes, UNKNOWN before a scan. */
  private readonly close: Int32Array;
  /** Nesting depth of the value a bracket opens (`{}` is 1), capped at MAX_HEIGHT. */
  private readonly height: Uint8Array;
  /** Per position: 0 not read yet, else 1 + the index in `values` of what the container there holds (or FAIL). */
  private readonly slot: Int32Array;
  private readonly values: unknown[] = [];
  private readonly openStack: number[] = [];
  private readonly innerStack: number[] = [];

  readonly maxDepth: number;
  constructor(text: string, maxDepth: number = MAX_NESTING_DEPTH) {
    super(text, { singleQuotes: false, comments: false });
    this.maxDepth = maxDepth;
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
    for (let i = start; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (c === QUOTE) {
        i = stringEnd(t, i, QUOTE);
        if (i < 0) break;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
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
    return this.container(at) === FAIL ? -1 : end;
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

  /**
   * The container at `at`, read once: its value (or FAIL) is remembered by position, and a read that
   * closes anywhere but where balancedEnd found its close is not this container.
   */
  protected override container(at: number): unknown {
    const close = this.close[at]!;
    if (close <= 0) return FAIL;
    if (this.slot[at] === 0) {
      const v = this.readContainer(at);
      this.slot[at] = this.values.push(v !== FAIL && this.pos === close ? v : FAIL);
    }
    this.pos = close;
    return this.values[this.slot[at]! - 1];
  }
}
