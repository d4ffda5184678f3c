// Calls written into the assistant's text instead of the tool_calls field. Text is a call only where
// the model used a calling form (issue 29: a call shown in prose is not consent to run it):
//   1. tool-call markup opening a line or following a finished sentence, outside code spans, fences
//      and blockquotes: Hermes/Qwen `<tool_call>`, granite `<function_call>`, Llama `<|python_tag|>`
//      and `<function=name>{…}`, Mistral `[TOOL_CALLS]`, chat-template debris before the JSON
//      (`<|im_start|>`, `<|end_header_id|>`, `<?xml …?>`);
//   2. an answer that is nothing but the call: bare JSON (an object, an array, a run of them, a
//      `{"tool_calls": […]}` wrapper), one fenced block holding only that, or a tool's name on one
//      line and its arguments on the next (glm-4);
//   3. between the two, a short lead-in then the call with nothing after it ("Let me read it: {…}"),
//      only when the lead-in neither asks, negates nor presents an example, and only onto tools known
//      to change nothing (annotations.ts `isReadOnly`): a call that writes, deletes, pays or sends is
//      never taken from prose.
// Everything else (an example, a question before or after the JSON, a quoted file or log, a list
// item, a snippet in a larger code block) stays in the text exactly as the model wrote it, and nothing
// runs. So does a call in any of these forms, markup included, that is followed by text asking the user
// to confirm or allow it ("<tool_call>{…}</tool_call> Should I go ahead?", "Reply yes and I will.",
// "Let me know if this looks right."), or preceded by such a question the model left open ("Should I
// delete the old logs?\n<tool_call>{…}"; asks-to-confirm.ts, read over a bounded stretch before and
// after each call): the answer is a proposal, and none of its calls run. A JSON value only becomes a
// call when it names a tool of the toolset, exactly or up to case, separators and a namespace (every
// element of an array must).
//
// Linear in the text: every candidate start is looked at once, the JSON under it is found and read
// through one TextJson that remembers every bracket (text-json.ts), runs of consecutive values are
// followed once, and every look back or around is bounded. A reply longer than MAX_TEXT_CALL_CHARS is
// not searched at all, and nothing here throws, whatever the text.
import { MAX_NESTING_DEPTH, MAX_TEXT_CALL_CHARS } from './limits.ts';
import { asksBeforeCall, asksToConfirm } from './asks-to-confirm.ts';
import { isSpaceCode, nestsDeeperThan } from './json/loose-json.ts';
import { isReadOnly } from './annotations.ts';
import { isPlainObject } from './plain-object.ts';
import { TextJson } from './json/text-json.ts';
import { toolNameMatcher } from './tool-name.ts';
import type { ToolSpec } from './types.ts';

export interface TextCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * The tool a written name stands for: exact, or the same up to case, separators and a namespace prefix
 * (`functions.get_weather`, `api:GetWeather`), as the gate resolves names (tool-name.ts); never a
 * merely similar name: in prose that is no call.
 */
export function toolResolver(toolset: readonly ToolSpec[]): (name: unknown) => string | undefined {
  const match = toolNameMatcher(toolset.map((t) => t.name));
  return (name) => {
    if (typeof name !== 'string') return undefined;
    const m = match(name.trim());
    return m && m.kind !== 'ambiguous' ? m.name : undefined;
  };
}

const ARG_KEYS = ['arguments', 'parameters', 'args', 'input', 'params'] as const;
const CALL_KEYS = new Set<string>(['name', 'tool', 'tool_name', 'function', 'type', 'id', ...ARG_KEYS]);
const WRAPPER_KEYS = new Set(['tool_calls', 'content', 'role']);

function asCall(v: unknown, resolve: (n: unknown) => string | undefined): TextCall | undefined {
  if (!isPlainObject(v)) return undefined;
  if (isPlainObject(v.function) && (v.function as Record<string, unknown>).name !== undefined) return asCall(v.function, resolve);
  // `{"tool_name": {…arguments…}}`: one key, a known tool, an object under it.
  const only = Object.keys(v);
  if (only.length === 1 && isPlainObject(v[only[0]!])) {
    const n = resolve(only[0]);
    if (n) return { name: n, arguments: v[only[0]!] as Record<string, unknown> };
  }
  const name = resolve(v.name ?? v.tool ?? v.tool_name ?? v.function);
  if (!name) return undefined;
  const keys = Object.keys(v);
  const argKey = ARG_KEYS.find((k) => k in v);
  // Anything else beside name/arguments means this is some other object that happens to have a name.
  if (keys.some((k) => !CALL_KEYS.has(k))) return undefined;
  let args: unknown = argKey ? v[argKey] : {};
  if (typeof args === 'string') {
    // Arguments encoded as a string escaped the depth check of the text around them.
    if (nestsDeeperThan(args, MAX_NESTING_DEPTH)) return undefined;
    try {
      args = JSON.parse(args);
    } catch {
      return undefined;
    }
  }
  if (args === null || args === undefined) args = {};
  if (!isPlainObject(args)) return undefined;
  return { name, arguments: args };
}

/** All calls in one parsed JSON value, or undefined when any part of it is not a call. */
function asCalls(v: unknown, resolve: (n: unknown) => string | undefined): TextCall[] | undefined {
  if (Array.isArray(v)) {
    if (v.length === 0) return undefined;
    const out: TextCall[] = [];
    for (const x of v) {
      const c = asCalls(x, resolve);
      if (!c) return undefined;
      out.push(...c);
    }
    return out;
  }
  if (isPlainObject(v) && Array.isArray(v.tool_calls) && Object.keys(v).every((k) => WRAPPER_KEYS.has(k))) return asCalls(v.tool_calls, resolve);
  const c = asCall(v, resolve);
  return c ? [c] : undefined;
}

// Openers of tool-call markup. An XML declaration `<?xml … ?>` is one too; its end is found by
// `xmlDeclEnd`, not by the pattern. `<function=name>` is read by FUNCTION_TAG.
const TAG_OPENERS =
  /<tool_call>|<function_call>|<functioncall>|<\|im_start\|>(?:assistant)?|<\|start_header_id\|>|<\|end_header_id\|>|<\|python_tag\|>|\[TOOL_CALLS\]|<\?xml/g;
const FUNCTION_TAG = /<function=([\w.:/-]{1,128})>/g;
const CLOSERS = ['</tool_call>', '</function_call>', '</functioncall>', '</function>', '<|im_end|>', '<|eot_id|>', '<|eom_id|>'];
const HAS_LETTER = /\p{L}/u;
/** A chat-template token (`<|im_start|>`, `<|eot_id|>`), maybe with a role after it: debris around an answer-only call. */
const TEMPLATE_TOKEN = /^<\|[a-z_]{1,24}\|>(?:assistant|user)?/;
const FENCE_OPENER = /```[\w+-]*[ \t]*\n/y;
const LINE_START_JSON = /(^|\n)[ \t]*(?=[{[])/g;
const AFTER_COLON_JSON = /[:=][ \t]*(?=\{)/g;
/** FENCE_OPENER anywhere in the text. */
const FENCE_ANYWHERE = new RegExp(FENCE_OPENER.source, 'g');
/** The longest lead-in a call taken from prose may have. */
const MAX_LEAD = 400;
/**
 * A lead-in that asks, negates, hedges, quotes or shows an example: what follows it is text, not a call
 * (tested on at most MAX_LEAD characters, no nested quantifiers).
 */
const NOT_A_CALL_CUE =
  /\?|\b(?:example|examples|e\.g|for instance|sample|such as|would|could|might|should|shall|may|can|hypothetical\w*|illustrat\w*|suppose|imagine|not|never|no|without|unless|if|confirm\w*|approv\w*|permission|go-ahead|consent|instead|format|schema|syntax|template|shape|contains?|containing|says|said|shows?|quoted?|log|logs|output|returned|result|documentation|docs|readme|spec|request body|payload|like)\b|n't\b/i;
/** How far back markup may be from its line's start (past blanks, template tokens and calls before it). */
const MAX_MARKUP_LOOKBACK = 200;

interface Region {
  start: number;
  end: number;
  calls: TextCall[];
}

/** One extraction over one text: the candidate positions, what is known about each, the regions taken. */
class Extraction {
  readonly json: TextJson;
  readonly regions: Region[] = [];
  private readonly covered: Uint8Array;
  /** Per position: 0 not asked yet, 1 no call there, 2 calls (in `calls`). */
  private readonly callState: Uint8Array;
  private readonly calls = new Map<number, TextCall[]>();
  /** Per value start: 0 unknown, else 1 + 2 × end of the run it begins + 1 when every value of it is a call. */
  private readonly runMemo: Int32Array;
  private gtFrom = 0;
  private gtAt = -2;
  private quotedMask: Uint8Array | undefined;

  readonly text: string;
  readonly resolve: (n: unknown) => string | undefined;
  constructor(text: string, resolve: (n: unknown) => string | undefined) {
    this.text = text;
    this.resolve = resolve;
    this.json = new TextJson(text);
    const n = text.length + 1;
    const buffer = new ArrayBuffer(6 * n);
    this.runMemo = new Int32Array(buffer, 0, n);
    this.covered = new Uint8Array(buffer, 4 * n, n);
    this.callState = new Uint8Array(buffer, 5 * n, n);
  }

  taken(i: number): boolean {
    return this.covered[i] === 1;
  }

  add(region: Region): void {
    this.regions.push(region);
    this.covered.fill(1, region.start, region.end);
  }

  /** The calls the JSON value starting exactly at `at` stands for, or null (remembered per position). */
  callsAt(at: number): TextCall[] | null {
    if (this.callState[at] === 0) {
      const c = this.json.endAt(at) >= 0 ? asCalls(this.json.valueAt(at), this.resolve) : undefined;
      this.callState[at] = c ? 2 : 1;
      if (c) this.calls.set(at, c);
    }
    return this.callState[at] === 2 ? this.calls.get(at)! : null;
  }

  /**
   * The run of consecutive values starting at `at` (a value start): where it ends and whether all of
   * its values are calls. Followed iteratively once; every start on the way is remembered.
   */
  run(at: number): { end: number; allCalls: boolean } | undefined {
    const chain: number[] = [];
    let tail = 0; // the encoded run of the first remembered start met, 0 when the run ended first
    for (let s = at; ; ) {
      tail = this.runMemo[s]!;
      if (tail !== 0) break;
      const end = this.json.endAt(s);
      if (end < 0) break;
      chain.push(s);
      s = this.json.nextInRun(end);
    }
    for (let k = chain.length - 1; k >= 0; k--) {
      const s = chain[k]!;
      const isCall = this.callsAt(s) !== null;
      const end = tail !== 0 ? (tail - 1) >> 1 : this.json.endAt(s);
      const allCalls = isCall && (tail === 0 || (tail - 1) % 2 === 1);
      tail = 1 + 2 * end + (allCalls ? 1 : 0);
      this.runMemo[s] = tail;
    }
    return tail === 0 ? undefined : { end: (tail - 1) >> 1, allCalls: (tail - 1) % 2 === 1 };
  }

  /** The calls of every value of the run starting at `at`, in order (only when all are calls). */
  runCalls(at: number): TextCall[] {
    const out: TextCall[] = [];
    for (let s = at, end = this.json.endAt(s); end >= 0; s = this.json.nextInRun(end), end = this.json.endAt(s)) out.push(...this.callsAt(s)!);
    return out;
  }

  /** The first `>` at or after `from` (-1: none), remembered so that ascending questions scan once. */
  nextGt(from: number): number {
    if (from < this.gtFrom || this.gtAt === -2 || (this.gtAt >= 0 && from > this.gtAt)) {
      this.gtFrom = from;
      this.gtAt = this.text.indexOf('>', from);
    }
    return this.gtAt;
  }

  /** End of an XML declaration `<?xml … ?>` opening at `at`, or -1 (as /<\?xml[^>]*\?>/ reads it). */
  xmlDeclEnd(at: number): number {
    const gt = this.nextGt(at + 5);
    return gt >= at + 6 && this.text[gt - 1] === '?' ? gt + 1 : -1;
  }

  /** Past whitespace and one closing tag right after a call (`</tool_call>`, `<|im_end|>`, `<?xml …>`). */
  closerEnd(end: number): number {
    const i = this.skipSpace(end);
    for (const c of CLOSERS) if (this.text.startsWith(c, i)) return i + c.length;
    if (this.text.startsWith('<?xml', i)) {
      const gt = this.nextGt(i + 5);
      if (gt >= 0) return gt + 1;
    }
    return end;
  }

  skipSpace(i: number): number {
    while (i < this.text.length && isSpaceCode(this.text.charCodeAt(i))) i++;
    return i;
  }

  /** Past whitespace, chat-template tokens and closing tags: where the answer's own words start again. */
  skipDebris(i: number): number {
    for (;;) {
      const j = this.skipSpace(i);
      const token = this.text.charCodeAt(j) === 0x3c /* < */ ? TEMPLATE_TOKEN.exec(this.text.slice(j, j + 40)) : null;
      if (token) i = j + token[0].length;
      else {
        const closed = this.closerEnd(j);
        if (closed === j) return j;
        i = closed;
      }
    }
  }

  /** Whether `at` lies in a code span, a fenced block or a blockquote line: what is there is quoted, not said. */
  quoted(at: number): boolean {
    this.quotedMask ??= quotedMask(this.text);
    return this.quotedMask[at] === 1;
  }

  /**
   * Markup at `at` opens its line: only blanks, chat-template tokens or calls already taken lie
   * between it and the line's start or the end of a sentence (`.` or `!` then a blank), looked at over
   * MAX_MARKUP_LOOKBACK characters at most.
   */
  opensLine(at: number): boolean {
    const t = this.text;
    const floor = Math.max(0, at - MAX_MARKUP_LOOKBACK);
    let i = at;
    while (i > floor) {
      const c = t.charCodeAt(i - 1);
      if (c === 0x0a) return true;
      if (c === 0x20 || c === 0x09 || c === 0x0d) i--;
      // A call taken before it on the line was markup that opened the line itself.
      else if (this.taken(i - 1)) return true;
      // A sentence ended before it ("Checking. <tool_call>…"): a word's `.` or `!`, and a sentence that
      // neither asks, hedges nor shows an example ("e.g. <tool_call>", "Step 1. <tool_call>" are not).
      else if ((c === 0x2e || c === 0x21) && i < at) return HAS_LETTER.test(t[i - 2] ?? '') && !NOT_A_CALL_CUE.test(t.slice(this.lineStart(i - 1, floor), i));
      else if (c === 0x3e /* > */ && t[i - 2] === '|') {
        // A template token `<|…|>`: back to its `<|`, looking no further than the floor.
        let lt = i - 3;
        while (lt >= floor && !(t[lt] === '<' && t[lt + 1] === '|')) lt--;
        if (lt < floor) return false;
        i = lt;
      } else if (t.startsWith('assistant', i - 9) && t[i - 10] === '>') i -= 9;
      else return false;
    }
    return i === 0;
  }

  /** Where the line holding `i` starts, looking back no further than `floor`. */
  lineStart(i: number, floor: number): number {
    let k = i;
    while (k > floor && this.text.charCodeAt(k - 1) !== 0x0a) k--;
    return k;
  }

  /** The region a run of calls right after `from` makes, starting at `regionStart`; undefined when it is not one. */
  candidate(from: number, regionStart: number): Region | undefined {
    const at = this.skipSpace(from);
    const run = this.run(at);
    if (!run?.allCalls) return undefined;
    return { start: regionStart, end: this.closerEnd(run.end), calls: this.runCalls(at) };
  }

  /** An answer-only run of calls from `at`: it and its closing debris reach the end of the text. */
  wholeRun(at: number): TextCall[] | undefined {
    const run = this.run(at);
    if (!run?.allCalls || this.skipDebris(run.end) !== this.text.length) return undefined;
    return this.runCalls(at);
  }

  /** A fenced block at `at` (```lang\n) holding only a run of calls, closed by ``` or by the text's end; where it ends. */
  fencedRun(at: number): { end: number; calls: TextCall[] } | undefined {
    FENCE_OPENER.lastIndex = at;
    const m = FENCE_OPENER.exec(this.text);
    if (!m) return undefined;
    const first = this.skipSpace(at + m[0].length);
    const run = this.run(first);
    if (!run?.allCalls) return undefined;
    let end = this.skipSpace(run.end);
    if (this.text.startsWith('```', end)) end += 3;
    else if (end !== this.text.length) return undefined;
    return { end, calls: this.runCalls(first) };
  }
}

/**
 * Per position, 1 where the text is quoted rather than said: inside a fenced block (its fence lines
 * included; an unclosed fence runs to the end), on a blockquote line (`>`), or inside a code span on
 * one line (between a backtick run and the next). One pass.
 */
function quotedMask(text: string): Uint8Array {
  const mask = new Uint8Array(text.length + 1);
  let fenced = false;
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    let i = start;
    while (i < end && (text[i] === ' ' || text[i] === '\t')) i++;
    const fence = text.startsWith('```', i) || text.startsWith('~~~', i);
    if (fence || fenced || text[i] === '>') {
      mask.fill(1, start, end + 1);
      if (fence) fenced = !fenced;
    } else {
      let inCode = false;
      for (let k = i; k < end; k++) {
        if (text[k] === '`') {
          while (k + 1 < end && text[k + 1] === '`') mask[k++] = 1;
          mask[k] = 1;
          inCode = !inCode;
        } else if (inCode) mask[k] = 1;
      }
    }
    start = end + 1;
  }
  return mask;
}

/** Which tools are known to change nothing (annotations.ts): a call taken from prose may land on these only. */
function readOnlyNames(toolset: readonly ToolSpec[]): Set<string> {
  return new Set(toolset.filter(isReadOnly).map((t) => t.name));
}

export function extractTextCalls(text: string, toolset: readonly ToolSpec[]): { calls: TextCall[]; visibleText: string } {
  const none = { calls: [], visibleText: text };
  // Longer than any reply a model writes: not searched, shown as it is.
  if (text.length > MAX_TEXT_CALL_CHARS) return none;
  const x = new Extraction(text, toolResolver(toolset));
  markup(x);
  if (x.regions.length > 0) return askedAbout(text, x.regions) ? none : cut(text, x.regions);
  const only = answerOnly(x);
  if (only) return { calls: only, visibleText: '' };
  const lead = leadThenCall(x);
  if (!lead) return none;
  const readOnly = readOnlyNames(toolset);
  return lead.calls.every((c) => readOnly.has(c.name)) ? { calls: lead.calls, visibleText: text.slice(0, lead.start).trim() } : none;
}

/**
 * Some call taken from markup is preceded by a question about doing it that the model left open, or
 * followed by text asking the user to confirm or allow it (asks-to-confirm.ts): each stretch between
 * calls is read from both ends, over a bounded window.
 */
function askedAbout(text: string, regions: readonly Region[]): boolean {
  const ordered = [...regions].sort((a, b) => a.start - b.start);
  return ordered.some((r, i) => asksBeforeCall(text, ordered[i - 1]?.end ?? 0, r.start) || asksToConfirm(text, r.end, ordered[i + 1]?.start ?? text.length));
}

/** 1. Tool-call markup opening a line outside code and quotes, with the run of calls right after it (in the order of the text). */
function markup(x: Extraction): void {
  const { text } = x;
  TAG_OPENERS.lastIndex = 0;
  FUNCTION_TAG.lastIndex = 0;
  let tag = TAG_OPENERS.exec(text);
  let fn = FUNCTION_TAG.exec(text);
  while (tag || fn) {
    if (fn && (!tag || fn.index < tag.index)) {
      functionTag(x, fn);
      fn = FUNCTION_TAG.exec(text);
    } else {
      taggedRun(x, tag!);
      tag = TAG_OPENERS.exec(text);
    }
  }
}

function taggedRun(x: Extraction, m: RegExpExecArray): void {
  const at = m.index;
  let end = at + m[0].length;
  if (m[0] === '<?xml') {
    end = x.xmlDeclEnd(at);
    if (end < 0) return;
    TAG_OPENERS.lastIndex = end;
  }
  if (x.taken(at) || x.quoted(at) || !x.opensLine(at)) return;
  const r = x.candidate(end, at);
  if (r) x.add(r);
}

/** `<function=name>{…arguments…}</function>` (Llama 3.1): the name is the tag's, the object its arguments. */
function functionTag(x: Extraction, m: RegExpExecArray): void {
  const at = m.index;
  if (x.taken(at) || x.quoted(at) || !x.opensLine(at)) return;
  const name = x.resolve(m[1]);
  const argsAt = x.skipSpace(at + m[0].length);
  const end = x.json.endAt(argsAt);
  const args = end >= 0 ? x.json.valueAt(argsAt) : undefined;
  if (name && isPlainObject(args)) x.add({ start: at, end: x.closerEnd(end), calls: [{ name, arguments: args }] });
}

/** 2. The answer is nothing but the call(s): bare JSON, one fenced block of it, or a name line and its arguments. */
function answerOnly(x: Extraction): TextCall[] | undefined {
  const { text, json } = x;
  const at = x.skipDebris(0);
  const c = text[at];
  if (c === '{' || c === '[') return x.wholeRun(at);
  if (c === '`') {
    const fenced = x.fencedRun(at);
    return fenced && x.skipDebris(fenced.end) === text.length ? fenced.calls : undefined;
  }
  // glm-4: `name\n{arguments}` and nothing else.
  const nl = text.indexOf('\n', at);
  if (nl < 0 || nl - at > 200) return undefined;
  const argsAt = x.skipSpace(nl);
  const end = json.endAt(argsAt);
  if (end < 0 || text[argsAt] !== '{' || x.skipDebris(end) !== text.length) return undefined;
  const name = x.resolve(
    text
      .slice(at, nl)
      .trim()
      .replace(/[:(]\s*$/, ''),
  );
  const args = json.valueAt(argsAt);
  return name && isPlainObject(args) ? [{ name, arguments: args }] : undefined;
}

/**
 * 3. A lead-in, then a run of calls (at a line's start, after a colon, or in one fenced block) with
 * nothing after it; the lead-in short, said (not quoted) and free of NOT_A_CALL_CUE.
 */
function leadThenCall(x: Extraction): Region | undefined {
  const { text } = x;
  const found = lastCallRegion(x);
  if (!found) return undefined;
  // A fence is quoted by nature and may be the call; a JSON value in a quote or a fence may not.
  const fence = text[found.start] === '`';
  if (!fence && x.quoted(found.start)) return undefined;
  const lead = text.slice(0, found.start).trim();
  if (lead === '' || lead.length > MAX_LEAD || NOT_A_CALL_CUE.test(lead) || lead.includes('`') || asksBeforeCall(text, 0, found.start)) return undefined;
  return found;
}

/** The run of calls (or fenced block of them) that ends the text, if one does. */
function lastCallRegion(x: Extraction): Region | undefined {
  const { text } = x;
  // Many candidates share one run's end: where its debris ends is found once.
  const debrisEnd = new Map<number, number>();
  const ends = (end: number) => {
    let to = debrisEnd.get(end);
    if (to === undefined) {
      to = x.skipDebris(end);
      debrisEnd.set(end, to);
    }
    return to === text.length;
  };
  for (const m of text.matchAll(FENCE_ANYWHERE)) {
    const at = m.index!;
    const fenced = x.fencedRun(at);
    if (fenced && ends(fenced.end)) return { start: at, end: text.length, calls: fenced.calls };
  }
  for (const pattern of [LINE_START_JSON, AFTER_COLON_JSON]) {
    for (const m of text.matchAll(pattern)) {
      const at = m.index! + m[0].length;
      const run = x.run(at);
      if (run?.allCalls && ends(run.end)) return { start: at, end: text.length, calls: x.runCalls(at) };
    }
  }
  return undefined;
}

/** The text without the regions taken, and their calls in order. */
function cut(text: string, taken: readonly Region[]): { calls: TextCall[]; visibleText: string } {
  const regions = [...taken].sort((a, b) => a.start - b.start);
  let out = '';
  let i = 0;
  for (const r of regions) {
    out += text.slice(i, r.start);
    i = Math.max(i, r.end);
  }
  return { calls: regions.flatMap((r) => r.calls), visibleText: tidy(out + text.slice(i)) };
}

/** Chat-template tokens left over once the calls are gone are noise to the reader. */
function tidy(s: string): string {
  return s
    .replace(/<\|[a-z_]+\|>(assistant|user)?/g, '')
    .replace(/<\/?tool_call>|<\/?function_call>/g, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
