// Calls written into the assistant's text instead of the tool_calls field: Hermes `<tool_call>`
// blocks, granite `<function_call>`, chat-template debris (`<|im_start|>`), ```json fences, a bare
// JSON object or array, prose followed by JSON, a tool name on one line and its arguments on the next.
// A JSON value only becomes a call when it names a tool of the toolset (every element of an array
// must); prose that shows JSON as an example is left alone.
//
// Linear in the text: every candidate start is looked at once, the JSON under it is found and read
// through one TextJson that remembers every bracket (text-json.ts), runs of consecutive values are
// followed once, and no pattern here can backtrack over more than a bounded window. A reply longer
// than MAX_TEXT_CALL_CHARS is not searched at all, and nothing here throws, whatever the text.
import { MAX_NESTING_DEPTH, MAX_TEXT_CALL_CHARS } from './limits.ts';
import { isSpaceCode, nestsDeeperThan } from './json/loose-json.ts';
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

// Openers that announce a call (their presence makes a JSON value a call, not an illustration). An
// XML declaration `<?xml … ?>` is one too; its end is found by `xmlDeclEnd`, not by the pattern.
const TAG_OPENERS = /<tool_call>|<function_call>|<functioncall>|<\|im_start\|>(?:assistant)?|<\|end_header_id\|>|<\|python_tag\|>|\[TOOL_CALLS\]|<\?xml/g;
const CLOSERS = ['</tool_call>', '</function_call>', '</functioncall>', '<|im_end|>', '<|eot_id|>'];
// A sentence right before the JSON that says it is only an example (tested on one line of at most
// 200 characters, so its backtracking is bounded).
const EXAMPLE_CUE =
  /\b(for example|for instance|e\.g\.|example|sample|such as|would look like|might look like|looks like|look like|format would be|hypothetical)\b[^.\n]*[:.]?\s*$/i;
const EXAMPLE_WINDOW = 200;
const FENCE_OPENER = /```[\w+-]*[ \t]*\n/g;
const HAS_LETTER = /\p{L}/u;
const LINE_START_JSON = /(^|\n)[ \t]*(?=[{[])/g;
const AFTER_COLON_JSON = /[:=][ \t]*(?=\{)/g;

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

  constructor(
    readonly text: string,
    readonly resolve: (n: unknown) => string | undefined,
  ) {
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
    let i = end;
    while (i < this.text.length && isSpaceCode(this.text.charCodeAt(i))) i++;
    for (const c of CLOSERS) if (this.text.startsWith(c, i)) return i + c.length;
    if (this.text.startsWith('<?xml', i)) {
      const gt = this.nextGt(i + 5);
      if (gt >= 0) return gt + 1;
    }
    return end;
  }

  /** The prose just before `at` (past whitespace and a fence opener) says what follows is an example. */
  isExample(at: number): boolean {
    const from = Math.max(0, at - EXAMPLE_WINDOW);
    const t = this.text;
    // Strip the longest tail of the form \s* (```[\w+-]*)? \s*.
    let i = at;
    while (i > from && isSpaceCode(t.charCodeAt(i - 1))) i--;
    let w = i;
    while (w > from && /[\w+-]/.test(t[w - 1]!)) w--;
    if (w - 3 >= from && t.startsWith('```', w - 3)) {
      i = w - 3;
      while (i > from && isSpaceCode(t.charCodeAt(i - 1))) i--;
    }
    // The cue and what follows it lie on one line, so only the last line is read.
    const lineStart = Math.max(from, t.lastIndexOf('\n', i - 1) + 1);
    return EXAMPLE_CUE.test(t.slice(lineStart, i));
  }

  /** The region a run of calls from `from` would make, starting at `regionStart`; undefined when it is not one. */
  candidate(from: number, regionStart: number, tagged: boolean): Region | undefined {
    let at = from;
    while (at < this.text.length && isSpaceCode(this.text.charCodeAt(at))) at++;
    const run = this.run(at);
    if (!run?.allCalls) return undefined;
    if (!tagged && this.isExample(regionStart)) return undefined;
    return { start: regionStart, end: this.closerEnd(run.end), calls: this.runCalls(at) };
  }

  tryRun(from: number, regionStart: number, tagged: boolean): boolean {
    const r = this.candidate(from, regionStart, tagged);
    if (r) this.add(r);
    return r !== undefined;
  }
}

export function extractTextCalls(text: string, toolset: readonly ToolSpec[]): { calls: TextCall[]; visibleText: string } {
  // Longer than any reply a model writes: not searched, shown as it is.
  if (text.length > MAX_TEXT_CALL_CHARS) return { calls: [], visibleText: text };
  const x = new Extraction(text, toolResolver(toolset));
  const { json, resolve } = x;

  // 1. Tagged forms.
  TAG_OPENERS.lastIndex = 0;
  for (let m = TAG_OPENERS.exec(text); m; m = TAG_OPENERS.exec(text)) {
    const at = m.index;
    let end = at + m[0].length;
    if (m[0] === '<?xml') {
      end = x.xmlDeclEnd(at);
      if (end < 0) continue;
      TAG_OPENERS.lastIndex = end;
    }
    if (x.taken(at)) continue;
    x.tryRun(end, at, true);
  }
  // 2. Code fences: ```json, ``` or another language holding a call.
  for (const m of text.matchAll(FENCE_OPENER)) {
    const at = m.index!;
    if (x.taken(at)) continue;
    const bodyAt = at + m[0].length;
    const closeAt = text.indexOf('```', bodyAt);
    let first = bodyAt;
    while (first < text.length && isSpaceCode(text.charCodeAt(first))) first++;
    const inner = x.run(first);
    if (!inner) continue;
    // The fence must hold the JSON and nothing else.
    if (closeAt >= 0 && text.slice(inner.end, closeAt).trim() !== '') continue;
    const r = x.candidate(bodyAt, at, false);
    if (!r) continue;
    if (closeAt >= 0) r.end = closeAt + 3;
    x.add(r);
  }
  // 3. A JSON value at the start of a line (bare JSON, prose then JSON), or a tool name on its own
  //    line with the arguments object on the next.
  for (const m of text.matchAll(LINE_START_JSON)) {
    const at = m.index! + m[0].length;
    if (x.taken(at)) continue;
    if (x.tryRun(at, at, false)) continue;
    const end = json.endAt(at);
    const value = end < 0 ? undefined : json.valueAt(at);
    if (!isPlainObject(value) || x.callsAt(at) !== null) continue;
    const prev = previousLine(text, m.index! + (m[1] ? 1 : 0));
    // A line without a letter names no tool (`{}` above `{}` in a run of values): not worth resolving.
    const name = prev && HAS_LETTER.test(prev.line) && resolve(prev.line.trim().replace(/[:(]\s*$/, ''));
    if (prev && name) x.add({ start: prev.start, end, calls: [{ name, arguments: value }] });
  }
  // 4. JSON in the same line after a colon ("Here is the call: {...}") or an assignment in a
  //    snippet (`data = {"name": …, "arguments": …}`).
  for (const m of text.matchAll(AFTER_COLON_JSON)) {
    const at = m.index! + m[0].length;
    if (x.taken(at)) continue;
    x.tryRun(at, at, false);
  }

  const regions = [...x.regions].sort((a, b) => a.start - b.start);
  const calls = regions.flatMap((r) => r.calls);
  let visibleText = text;
  if (regions.length > 0) {
    let out = '';
    let i = 0;
    for (const r of regions) {
      out += text.slice(i, r.start);
      i = Math.max(i, r.end);
    }
    visibleText = tidy(out + text.slice(i));
  } else {
    visibleText = stripEchoedResult(text, json);
  }
  return { calls, visibleText };
}

function previousLine(text: string, lineStart: number): { start: number; line: string } | undefined {
  if (lineStart <= 0) return undefined;
  const start = text.lastIndexOf('\n', lineStart - 2) + 1;
  return { start, line: text.slice(start, lineStart - 1) };
}

/** Chat-template tokens left over once the calls are gone are noise to the reader. */
function tidy(s: string): string {
  return s
    .replace(/<\|[a-z_]+\|>(assistant|user)?/g, '')
    .replace(/<\/?tool_call>|<\/?function_call>/g, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A reply that opens by echoing a tool result as JSON, then speaks: the reader sees the speech. */
function stripEchoedResult(text: string, json: TextJson): string {
  const lead = /^\s*/.exec(text)![0].length;
  if (text[lead] !== '{') return text;
  const v = json.jsonAt(lead);
  if (!v || !isPlainObject(v.value)) return text;
  const rest = text.slice(v.end).trim();
  return rest === '' ? text : rest;
}
