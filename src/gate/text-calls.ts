// Calls written into the assistant's text instead of the tool_calls field: Hermes `<tool_call>`
// blocks, granite `<function_call>`, chat-template debris (`<|im_start|>`), ```json fences, a bare
// JSON object or array, prose followed by JSON, a tool name on one line and its arguments on the next.
// A JSON value only becomes a call when it names a tool of the toolset (every element of an array
// must); prose that shows JSON as an example is left alone.
import type { ToolSpec } from './types.ts';
import { jsonAt, jsonRun, type JsonSpan } from './text-json.ts';

export interface TextCall {
  name: string;
  arguments: Record<string, unknown>;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Tool-name resolution: exact, then without a `functions.`-style prefix, then `.`/`_`/`-`/case-blind. */
export function toolResolver(toolset: readonly ToolSpec[]): (name: unknown) => string | undefined {
  const exact = new Set(toolset.map((t) => t.name));
  const loose = new Map<string, string | null>();
  const norm = (s: string) => s.toLowerCase().replace(/[._\-\s]/g, '');
  for (const t of toolset) {
    const k = norm(t.name);
    loose.set(k, loose.has(k) && loose.get(k) !== t.name ? null : t.name);
  }
  return (name) => {
    if (typeof name !== 'string') return undefined;
    const n = name.trim();
    if (exact.has(n)) return n;
    const bare = n.replace(/^(functions|function|default_api|tools|tool)[.:]/i, '');
    if (exact.has(bare)) return bare;
    return loose.get(norm(bare)) ?? undefined;
  };
}

const ARG_KEYS = ['arguments', 'parameters', 'args', 'input', 'params'] as const;

function asCall(v: unknown, resolve: (n: unknown) => string | undefined): TextCall | undefined {
  if (!isObj(v)) return undefined;
  if (isObj(v.function) && (v.function as Record<string, unknown>).name !== undefined) return asCall(v.function, resolve);
  // `{"tool_name": {…arguments…}}`: one key, a known tool, an object under it.
  const only = Object.keys(v);
  if (only.length === 1 && isObj(v[only[0]!])) {
    const n = resolve(only[0]);
    if (n) return { name: n, arguments: v[only[0]!] as Record<string, unknown> };
  }
  const name = resolve(v.name ?? v.tool ?? v.tool_name ?? v.function);
  if (!name) return undefined;
  const keys = Object.keys(v);
  const argKey = ARG_KEYS.find((k) => k in v);
  // Anything else beside name/arguments means this is some other object that happens to have a name.
  if (keys.some((k) => !['name', 'tool', 'tool_name', 'function', 'type', 'id', ...ARG_KEYS].includes(k))) return undefined;
  let args: unknown = argKey ? v[argKey] : {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return undefined;
    }
  }
  if (args === null || args === undefined) args = {};
  if (!isObj(args)) return undefined;
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
  if (isObj(v) && Array.isArray(v.tool_calls) && Object.keys(v).every((k) => ['tool_calls', 'content', 'role'].includes(k)))
    return asCalls(v.tool_calls, resolve);
  const c = asCall(v, resolve);
  return c ? [c] : undefined;
}

// Openers that announce a call (their presence makes a JSON value a call, not an illustration).
const TAG_OPENERS = /<tool_call>|<function_call>|<functioncall>|<\|im_start\|>(?:assistant)?|<\|end_header_id\|>|<\|python_tag\|>|\[TOOL_CALLS\]|<\?xml[^>]*\?>/g;
const CLOSERS = /^\s*(<\/tool_call>|<\/function_call>|<\/functioncall>|<\|im_end\|>|<\|eot_id\|>|<\?xml[^>]*\/?>)/;
// A sentence right before the JSON that says it is only an example.
const EXAMPLE_CUE = /\b(for example|for instance|e\.g\.|example|sample|such as|would look like|might look like|looks like|look like|format would be|hypothetical)\b[^.\n]*[:.]?\s*$/i;

/** The prose just before `at` (past whitespace and a fence opener) says what follows is an example. */
function isExample(text: string, at: number): boolean {
  const before = text.slice(Math.max(0, at - 200), at).replace(/\s*(```[\w+-]*)?\s*$/, '');
  return EXAMPLE_CUE.test(before);
}

interface Region {
  start: number;
  end: number;
  calls: TextCall[];
}

export function extractTextCalls(
  text: string,
  toolset: readonly ToolSpec[],
): { calls: TextCall[]; visibleText: string } {
  const resolve = toolResolver(toolset);
  const regions: Region[] = [];
  const taken = (i: number) => regions.some((r) => i >= r.start && i < r.end);

  const tryRun = (from: number, regionStart: number, tagged: boolean): boolean => {
    const run = jsonRun(text, from);
    if (run.length === 0) return false;
    const calls: TextCall[] = [];
    for (const v of run) {
      const c = asCalls(v.value, resolve);
      if (!c) return false;
      calls.push(...c);
    }
    if (!tagged && isExample(text, regionStart)) return false;
    let end = run[run.length - 1]!.end;
    const close = CLOSERS.exec(text.slice(end));
    if (close) end += close[0].length;
    regions.push({ start: regionStart, end, calls });
    return true;
  };

  // 1. Tagged forms.
  for (const m of text.matchAll(TAG_OPENERS)) {
    const at = m.index!;
    if (taken(at)) continue;
    tryRun(at + m[0].length, at, true);
  }
  // 2. Code fences: ```json, ``` or another language holding a call.
  for (const m of text.matchAll(/```[\w+-]*[ \t]*\n/g)) {
    const at = m.index!;
    if (taken(at)) continue;
    const closeAt = text.indexOf('```', at + m[0].length);
    const inner = jsonRun(text, at + m[0].length);
    if (inner.length === 0) continue;
    const innerEnd = inner[inner.length - 1]!.end;
    // The fence must hold the JSON and nothing else.
    if (closeAt >= 0 && text.slice(innerEnd, closeAt).trim() !== '') continue;
    if (tryRun(at + m[0].length, at, false)) {
      const r = regions[regions.length - 1]!;
      if (closeAt >= 0) r.end = closeAt + 3;
    }
  }
  // 3. A JSON value at the start of a line (bare JSON, prose then JSON), or a tool name on its own
  //    line with the arguments object on the next.
  for (const m of text.matchAll(/(^|\n)[ \t]*(?=[{[])/g)) {
    const at = m.index! + m[0].length;
    if (taken(at)) continue;
    if (tryRun(at, at, false)) continue;
    const lineStart = m.index! + (m[1] ? 1 : 0);
    const prev = previousLine(text, lineStart);
    if (!prev) continue;
    const name = resolve(prev.line.trim().replace(/[:(]\s*$/, ''));
    const v = jsonAt(text, at);
    if (name && v && isObj(v.value) && !asCalls(v.value, resolve)) {
      regions.push({ start: prev.start, end: v.end, calls: [{ name, arguments: v.value }] });
    }
  }
  // 4. JSON in the same line after a colon ("Here is the call: {...}") or an assignment in a
  //    snippet (`data = {"name": …, "arguments": …}`).
  for (const m of text.matchAll(/[:=][ \t]*(?=\{)/g)) {
    const at = m.index! + m[0].length;
    if (taken(at)) continue;
    tryRun(at, at, false);
  }

  regions.sort((a, b) => a.start - b.start);
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
    visibleText = stripEchoedResult(text);
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
function stripEchoedResult(text: string): string {
  const lead = /^\s*/.exec(text)![0].length;
  if (text[lead] !== '{') return text;
  const v: JsonSpan | undefined = jsonAt(text, lead);
  if (!v || !isObj(v.value)) return text;
  const rest = text.slice(v.end).trim();
  return rest === '' ? text : rest;
}
