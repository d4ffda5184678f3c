// Text deltas go to the client as they arrive, except from the point where the text may be a tool
// call written into the reply (a ```json fence, <tool_call>, <function=…>, [TOOL_CALLS], a JSON object
// at the start of a line).
// From there it is held until the completion ends, so that an extracted call is not also shown.
//
// A trigger is the first match in the whole text of
//   /(?:^|\n)[ \t]*(?:\{|\[[ \t\r\n]*\{)|```|<tool_call|<function=|\[TOOL_CALLS\]|<\||\{"/
// and a tail that may still become one is held back until the next delta decides it: `, ``, {, a line
// opening with blanks and maybe `[`, or a proper prefix of `<tool_call`, `<function=` or `[TOOL_CALLS]`
// (text-hold.test.ts writes it as one regex).
// Both are found by one pass over each delta with a few numbers of state, never by rescanning what
// came before, so a long reply (or a long run of blank lines) costs time linear in its length. What is
// shown does not depend on how the text was cut into deltas: after every delta it is the longest
// prefix of the text so far in which neither a trigger nor a possible trigger starts.
// A text longer than MAX_TEXT_CALL_CHARS is never searched for calls (text-calls.ts), so nothing is
// held past that bound: the delta that crosses it releases what was held, and the rest passes as it
// comes (issue 29: a ``` opener had held 24 MB until the answer ended). Nor is it kept: `full` stops at
// MAX_KEPT_TEXT_CHARS (one character past the search), so what a hold keeps stays bounded too.
import { MAX_KEPT_TEXT_CHARS, MAX_TEXT_CALL_CHARS } from './limits.ts';

/** Markup openers (text-calls.ts): a proper prefix of one at the end of the text is held. */
const TAGS = ['<tool_call', '<function=', '[TOOL_CALLS]'];
const FIXED_TRIGGERS = ['```', '<|', '{"', ...TAGS];
/** Characters of the text before a delta that a fixed trigger or a held tag can still start in. */
const CARRY = Math.max(...FIXED_TRIGGERS.map((t) => t.length)) - 1;

const isBlank = (c: string) => c === ' ' || c === '\t';
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const minStart = (a: number, b: number) => (a < 0 ? b : b < 0 ? a : Math.min(a, b));

/**
 * Pushes `texts[from..to)` while each would be shown whole by `push` with nothing held before it (the
 * plain deltas of pushPlain, a text past the search): returns the index of the first that is not (`to`
 * when all are), not pushed. The state is left as those pushes one by one would leave it, set once for
 * the run (docs/benchmarks.md § The streaming paths at the physical limit). Not on the class: the server's
 * (held-answer.ts pushTextRun, rebound-gate/internal), not the package's surface.
 */
export let pushPlainRun: (hold: TextHold, texts: readonly string[], from: number, to: number) => number;

export class TextHold {
  static {
    pushPlainRun = (hold, texts, from, to) => hold.pushPlainRun(texts, from, to);
  }

  private readonly parts: string[] = [];
  private joined: string | undefined = '';
  private length = 0;
  /** Index up to which the text has been shown. */
  private emitted = 0;
  /** The text from `emitted` to the end, while not holding. */
  private pending = '';
  private holding = false;
  /** Everything so far has been shown and none of it may start a trigger: no tail is held (pushPlain). */
  private clear = true;
  /** Past MAX_TEXT_CALL_CHARS: no call will be taken out of this text, everything passes. */
  private unbounded = false;
  /** The last CARRY characters of the text. */
  private carry = '';
  // State of the text so far, as the patterns above need it (indexes into the whole text):
  /** The last character ('' before any). */
  private last = '';
  /** Start of the trailing run of spaces and tabs, and the character before it ('' at the start). */
  private blankStart = 0;
  private beforeBlank = '';
  /** Start of the trailing run of spaces, tabs, CR and LF (= length when there is none), its first LF or -1. */
  private wsStart = 0;
  private wsFirstNewline = -1;
  /** When the last character that is not whitespace is a `[` opening a line: where that line opening starts. */
  private bracketLine = -1;

  /** Adds a delta; returns the part that can be shown now. */
  push(delta: string): string {
    if (delta === '') return '';
    const base = this.length;
    this.length += delta.length;
    if (this.unbounded) {
      this.emitted = this.length;
      return delta;
    }
    this.parts.push(delta);
    this.joined = undefined;
    if (this.length > MAX_TEXT_CALL_CHARS) {
      // Never searched: what was held goes out now, with this delta; the text is kept no further.
      const full = this.full;
      const out = full.slice(this.emitted);
      this.joined = full.slice(0, MAX_KEPT_TEXT_CHARS);
      this.parts.length = 0;
      this.parts.push(this.joined);
      this.unbounded = true;
      this.holding = false;
      this.pending = '';
      this.emitted = this.length;
      return out;
    }
    if (this.holding) return '';
    if (this.clear && this.pushPlain(delta, base)) return delta;

    // The earliest fixed trigger that ends in this delta (it may start in the carried characters).
    const window = this.carry + delta;
    const windowStart = base - this.carry.length;
    let trigger = -1;
    for (const t of FIXED_TRIGGERS) {
      const at = window.indexOf(t);
      if (at >= 0) trigger = minStart(trigger, windowStart + at);
    }
    // The line-start trigger, one character at a time.
    for (let k = 0; k < delta.length; k++) {
      const i = base + k;
      // A line-start trigger completing at a `{` may start before a fixed trigger found at that `{`.
      if (trigger >= 0 && i > trigger) break;
      const c = delta[k]!;
      if (c === '{') {
        const h = minStart(this.lineOpening(i), this.bracketLine);
        if (h >= 0) {
          trigger = minStart(trigger, h);
          break;
        }
      }
      this.advance(c, i);
    }
    this.carry = window.slice(-CARRY);

    let upTo: number;
    if (trigger >= 0) {
      this.holding = true;
      upTo = trigger;
    } else {
      upTo = this.heldTail();
    }
    this.clear = !this.holding && upTo === this.length;
    if (upTo <= this.emitted) {
      this.pending += delta;
      return '';
    }
    const text = this.pending + delta;
    const out = text.slice(0, upTo - this.emitted);
    this.pending = this.holding ? '' : text.slice(upTo - this.emitted);
    this.emitted = upTo;
    return out;
  }

  /** The text so far, up to MAX_KEPT_TEXT_CHARS (a longer one was shown as it came, not kept). */
  get full(): string {
    this.joined ??= this.parts.join('');
    return this.joined;
  }

  /** What the client has been sent so far. */
  get shown(): string {
    return this.full.slice(0, this.emitted);
  }

  /** At the end of the completion: what is still to be shown, given the text the client should end up seeing. */
  release(visible: string = this.full): string {
    const shown = this.full.slice(0, this.emitted);
    const out = visible.startsWith(shown) ? visible.slice(shown.length) : '';
    this.emitted = this.length;
    this.pending = '';
    this.clear = false;
    return out;
  }

  /**
   * Most deltas of a reply: nothing held before it (`clear`), and none of `{ [ < \` \n \r` in it,
   * a character other than a space or tab among them. No trigger can end in such a delta (each needs one
   * of those characters, or starts in a held tail), nor a possible trigger be left at its end, so all of
   * it is shown: the state is set as `advance` would set it, char by char, without the full pass
   * (the largest of the gateway's costs a token beyond a bare proxy's: docs/benchmarks.md § The streaming
   * paths at the physical limit). False (nothing changed) for any other delta.
   */
  private pushPlain(delta: string, base: number): boolean {
    let lastSolid = -1;
    let runStart = -1;
    for (let k = 0; k < delta.length; k++) {
      const c = delta.charCodeAt(k);
      // { [ < ` \n \r
      if (c === 123 || c === 91 || c === 60 || c === 96 || c === 10 || c === 13) return false;
      if (c === 32 || c === 9) {
        if (k === 0 ? !isBlank(this.last) : lastSolid === k - 1) runStart = k;
      } else lastSolid = k;
    }
    if (lastSolid < 0) return false;
    // The last run of blanks to start, as advance keeps it.
    if (runStart >= 0) {
      this.blankStart = base + runStart;
      this.beforeBlank = runStart === 0 ? this.last : delta[runStart - 1]!;
    }
    this.wsStart = base + lastSolid + 1;
    this.wsFirstNewline = -1;
    this.bracketLine = -1;
    this.last = delta[delta.length - 1]!;
    this.carry = delta.length >= CARRY ? delta.slice(-CARRY) : (this.carry + delta).slice(-CARRY);
    this.emitted = this.length;
    return true;
  }

  /** pushPlain for each of `texts[from..to)` up to the first it refuses, the state set once at the run's end (pushPlainRun above). */
  private pushPlainRun(texts: readonly string[], from: number, to: number): number {
    if (this.unbounded) {
      for (let i = from; i < to; i++) this.length += texts[i]!.length;
      this.emitted = this.length;
      return to;
    }
    if (!this.clear) return from;
    let length = this.length;
    let last = this.last;
    /** The last run of blanks to start in the run, and the character before it. */
    let blankStart = -1;
    let beforeBlank = '';
    let lastSolid = -1;
    /** The last text pushed. */
    let end = -1;
    let i = from;
    run: for (; i < to; i++) {
      const delta = texts[i]!;
      if (delta === '') continue;
      if (length + delta.length > MAX_TEXT_CALL_CHARS) break;
      let solid = -1;
      let runStart = -1;
      for (let k = 0; k < delta.length; k++) {
        const c = delta.charCodeAt(k);
        // { [ < ` \n \r
        if (c === 123 || c === 91 || c === 60 || c === 96 || c === 10 || c === 13) break run;
        if (c === 32 || c === 9) {
          if (k === 0 ? !isBlank(last) : solid === k - 1) runStart = k;
        } else solid = k;
      }
      if (solid < 0) break;
      if (runStart >= 0) {
        blankStart = length + runStart;
        beforeBlank = runStart === 0 ? last : delta[runStart - 1]!;
      }
      lastSolid = length + solid;
      last = delta[delta.length - 1]!;
      length += delta.length;
      this.parts.push(delta);
      end = i;
    }
    if (end < 0) return i;
    if (blankStart >= 0) {
      this.blankStart = blankStart;
      this.beforeBlank = beforeBlank;
    }
    this.wsStart = lastSolid + 1;
    this.wsFirstNewline = -1;
    this.bracketLine = -1;
    this.last = last;
    // The last CARRY characters: of the last text, or of the texts and the carry before it.
    let tail = texts[end]!;
    for (let j = end - 1; j >= from && tail.length < CARRY; j--) tail = texts[j]! + tail;
    this.carry = (tail.length < CARRY ? this.carry + tail : tail).slice(-CARRY);
    this.joined = undefined;
    this.length = length;
    this.emitted = length;
    return i;
  }

  /** Updates the state for character `c` at index `i`. */
  private advance(c: string, i: number): void {
    if (isBlank(c) && !isBlank(this.last)) {
      this.blankStart = i;
      this.beforeBlank = this.last;
    }
    if (isSpace(c)) {
      if (!isSpace(this.last)) {
        this.wsStart = i;
        this.wsFirstNewline = -1;
      }
      if (c === '\n' && this.wsFirstNewline < 0) this.wsFirstNewline = i;
    } else {
      this.bracketLine = c === '[' ? this.lineOpening(i) : -1;
      this.wsStart = i + 1;
      this.wsFirstNewline = -1;
    }
    this.last = c;
  }

  /** Where `(?:^|\n)[ \t]*` ending just before index `i` starts (its `\n`, or 0), or -1 when there is none. */
  private lineOpening(i: number): number {
    const blanks = isBlank(this.last);
    const from = blanks ? this.blankStart : i;
    if (from === 0) return 0;
    return (blanks ? this.beforeBlank : this.last) === '\n' ? from - 1 : -1;
  }

  /** Where the held tail starts: the earliest start of a possible trigger at the end of the text. */
  private heldTail(): number {
    const n = this.length;
    let tail = n;
    // (?:^|\n)[ \t]*\[?[ \t\r\n]*$
    if (this.wsStart === 0) tail = 0;
    if (this.wsFirstNewline >= 0) tail = Math.min(tail, this.wsFirstNewline);
    if (this.bracketLine >= 0) tail = Math.min(tail, this.bracketLine);
    // `{1,2} | { | a proper prefix of a tag (each holds its first character once only)
    const c = this.carry;
    if (c.endsWith('``')) tail = Math.min(tail, n - 2);
    else if (c.endsWith('`') || c.endsWith('{')) tail = Math.min(tail, n - 1);
    for (const tag of TAGS) {
      const at = c.lastIndexOf(tag[0]!);
      if (at >= 0 && tag.startsWith(c.slice(at))) tail = Math.min(tail, n - (c.length - at));
    }
    return tail;
  }
}
