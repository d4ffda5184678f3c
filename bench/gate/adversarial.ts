// npm run bench:gate -- --adversarial [--json] [--family <substring>] [--max-size <chars>]
// How the time of each layer that reads model output grows with the size of a pathological input.
// For every family: the time at 1 KB, 10 KB, 100 KB and 1 MB (1,000 … 1,000,000 characters) and the
// growth exponent fitted by least squares of log time on log size (1 = linear), plus the local
// exponent between the two largest sizes measured. Goal: ≤ 50 ms at 100 KB and exponent ≤ 1.2.
//
// Everything goes through the public entry points: gate() with the real tools of functions/ (the schema
// families with a tool of their own, at the schema limits: bench/gate/schema-shapes.ts) and a
// path index over a real repository tree (../shared/bench/trees/deno.txt), extractTextCalls(), and
// TextHold fed in small deltas the way the loop feeds it. Each time is the fastest of several runs
// (batched at small sizes so each sample lasts ≥ 10 ms, after a full garbage collection): the least
// disturbed by other work on the machine. A family whose next size is predicted to take longer than the budget is not run there.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { defaultTools } from '../../functions/index.ts';
import { buildPathIndex, gate, type GateContext, type ToolSpec } from 'rebound-gate';
import { extractTextCalls, TextHold } from 'rebound-gate/host';
import { printTable, round } from './common.ts';
import { schemaFamilies } from './schema-shapes.ts';

export const SIZES = [1_000, 10_000, 100_000, 1_000_000] as const;
const GOAL_MS_AT_100K = 50;
const GOAL_EXPONENT = 1.2;
/** Longest single run the bench will start (predicted from the sizes before). */
const BUDGET_MS = 20_000;

type Layer = 'arguments' | 'name' | 'schema' | 'paths' | 'content' | 'text-calls' | 'text-hold';
/** `tools`: the family's own toolset (the schema families), instead of functions/' tools. */
type Input = { kind: 'call'; name: string; arguments: string; tools?: ToolSpec[] } | { kind: 'text'; text: string } | { kind: 'deltas'; deltas: string[] };

interface Family {
  name: string;
  layer: Layer;
  /** An input of (about) `n` characters. */
  make(n: number): Input;
}

export interface FamilyResult {
  family: string;
  layer: Layer;
  /** Milliseconds per run by size; null where the size was skipped as too slow. */
  ms: Record<string, number | null>;
  exponent: number | null;
  /** Local exponent between the two largest sizes measured. */
  lastExponent: number | null;
  meetsGoal: boolean;
}

export interface AdversarialReport {
  sizes: number[];
  goal: { msAt100k: number; exponent: number };
  families: FamilyResult[];
  missed: string[];
}

// ---- inputs ----------------------------------------------------------------------------------------

/** `unit` repeated to exactly `n` characters. */
const fill = (unit: string, n: number) => (n <= 0 ? '' : unit.repeat(Math.ceil(n / unit.length)).slice(0, n));
/** `head + fill(unit) + tail`, `n` characters in all. */
const framed = (head: string, unit: string, tail: string, n: number) => head + fill(unit, n - head.length - tail.length) + tail;
/** `open` k times then `close` k times, about `n` characters. */
const nested = (head: string, open: string, middle: string, close: string, tail: string, n: number) => {
  const k = Math.max(1, Math.floor((n - head.length - middle.length - tail.length) / (open.length + close.length)));
  return head + open.repeat(k) + middle + close.repeat(k) + tail;
};

const call = (name: string, args: string): Input => ({ kind: 'call', name, arguments: args });
const text = (t: string): Input => ({ kind: 'text', text: t });
/** Cut into deltas of 1 to 16 characters, as a model streams. */
const deltas = (t: string): Input => {
  const out: string[] = [];
  for (let i = 0, k = 0; i < t.length; k++) {
    const len = 1 + ((k * 7) % 16);
    out.push(t.slice(i, i + len));
    i += len;
  }
  return { kind: 'deltas', deltas: out };
};

function families(tree: string[]): Family[] {
  const real = tree.find((p) => p.split('/').length >= 4) ?? tree[0]!;
  const dirs = real.split('/').slice(0, -1).join('/');
  const validCall = '{"name": "read_file", "arguments": {"path": "a.ts"}}';
  return [
    // Layer 1: the arguments text.
    // The review's finding: a fence, spaces, then anything (3 KB froze the server for 4 s).
    { name: 'fence then spaces', layer: 'arguments', make: (n) => call('read_file', framed('```', ' ', 'x', n)) },
    { name: 'repeated fences', layer: 'arguments', make: (n) => call('read_file', fill('```', n)) },
    { name: 'fenced blank lines', layer: 'arguments', make: (n) => call('read_file', framed('```json\n', ' \n\t', '\n```', n)) },
    { name: 'unclosed brackets', layer: 'arguments', make: (n) => call('read_file', framed('{"path": [', '[1], ', '', n)) },
    { name: 'unclosed objects', layer: 'arguments', make: (n) => call('read_file', framed('{"a": ', '{"b": 1}, ', '', n)) },
    { name: 'unclosed quotes', layer: 'arguments', make: (n) => call('read_file', framed('{"path":', '"', '', n % 2 === 1 ? n : n - 1)) },
    { name: 'unclosed single quotes', layer: 'arguments', make: (n) => call('read_file', framed("{'path': '", "\\'", '', n)) },
    { name: 'dots between values', layer: 'arguments', make: (n) => call('read_file', framed('{"offset": 1', '.. ', '}', n)) },
    { name: 'comment markers', layer: 'arguments', make: (n) => call('read_file', framed(`{"path": "${real}" `, '/* */ // x\n', '}', n)) },
    { name: 'python literals', layer: 'arguments', make: (n) => call('read_file', framed(`{'path': '${real}', 'x': [`, 'True, False, None, ', 'True]}', n)) },
    { name: 'deep nesting (arrays)', layer: 'arguments', make: (n) => call('read_file', nested(`{"path":"${real}","x":`, '[', '', ']', '}', n)) },
    { name: 'deep nesting (objects)', layer: 'arguments', make: (n) => call('read_file', nested('{"path":', '{"a":', '1', '}', '}', n)) },
    { name: 'deep nesting, unclosed', layer: 'arguments', make: (n) => call('read_file', framed('{"path":', '[', '', n)) },
    {
      name: 'JSON string holding JSON',
      layer: 'arguments',
      make: (n) =>
        call(
          'read_file',
          longestWithin(n, (k) => JSON.stringify(JSON.stringify({ path: real, x: fill('ab\\"', k) }))),
        ),
    },
    // Layer 2: the tool name.
    { name: 'long name of capitals', layer: 'name', make: (n) => call(fill('A', n), '{}') },
    { name: 'long namespaced name', layer: 'name', make: (n) => call(framed('', 'functions.', 'read_file', n), '{}') },
    { name: 'long snake_case name', layer: 'name', make: (n) => call(fill('read_file_', n), `{"path": "${real}"}`) },
    // Layer 3: schema, renames, coercion.
    { name: 'many keys', layer: 'schema', make: (n) => call('read_file', manyKeys(`{"path":"${real}"`, n)) },
    { name: 'long parameter name', layer: 'schema', make: (n) => call('read_file', framed(`{"path":"${real}","`, 'pathx', '":1}', n)) },
    { name: 'digits for an integer', layer: 'schema', make: (n) => call('read_file', framed(`{"path":"${real}","offset":"`, '1', 'x"}', n)) },
    { name: 'list written as text', layer: 'schema', make: (n) => call('search_files', framed('{"query":["', 'a, ', '"]}', n)) },
    // Layer 3 again, with schemas of the shapes the gate interprets, each at the limits (schema-shapes.ts).
    ...schemaFamilies().map(
      (f): Family => ({ name: f.name, layer: 'schema', make: (n) => ({ kind: 'call', name: f.tool.name, arguments: f.make(n), tools: [f.tool] }) }),
    ),
    // Layer 4: paths.
    { name: 'path of dots', layer: 'paths', make: (n) => call('read_file', framed('{"path":"', '.', '"}', n)) },
    { name: 'path of slashes', layer: 'paths', make: (n) => call('read_file', framed('{"path":"', '/', '"}', n)) },
    { name: 'path of backslashes', layer: 'paths', make: (n) => call('read_file', framed('{"path":"', '\\\\', '"}', n)) },
    { name: 'path of ./ and ../', layer: 'paths', make: (n) => call('read_file', framed('{"path":"', './../', 'x"}', n)) },
    { name: 'deep near-miss path', layer: 'paths', make: (n) => call('read_file', framed('{"path":"', `${dirs}/`, 'mod.rz"}', n)) },
    { name: 'one long segment', layer: 'paths', make: (n) => call('read_file', framed('{"path":"src/', 'a', '.ts"}', n)) },
    // Layer 5: content.
    { name: 'comment markers', layer: 'content', make: (n) => writeFile('src/a.ts', (k) => fill('// # /* -- <!-- ', k), n) },
    { name: 'comment lines', layer: 'content', make: (n) => writeFile('src/a.ts', (k) => fill('// note . . .\n', k), n) },
    { name: 'run of dots', layer: 'content', make: (n) => writeFile('src/a.ts', (k) => framed('const a = 1', '.', '\n', k), n) },
    { name: 'run of ellipses', layer: 'content', make: (n) => writeFile('src/a.ts', (k) => framed('const a = [', '…', ']\n', k), n) },
    { name: 'unclosed brackets', layer: 'content', make: (n) => writeFile('src/a.ts', (k) => framed('f', '([{', '\n', k), n) },
    { name: 'unclosed quotes', layer: 'content', make: (n) => writeFile('src/a.ts', (k) => fill('"\'`', k), n) },
    { name: 'one long line', layer: 'content', make: (n) => writeFile('src/a.ts', (k) => framed('const s = ', 'ab ', ';\n', k), n) },
    { name: 'python literals', layer: 'content', make: (n) => writeFile('app.py', (k) => framed('x = [', 'True, None, ', 'False]\n', k), n) },
    {
      name: 'JSX openers and text',
      layer: 'content',
      make: (n) => writeFile('src/A.tsx', (k) => framed('export const A = () => (', '<p a="(" b={[x]}>return <i>( [ ', '\n', k), n),
    },
    // biome-ignore lint/suspicious/noTemplateCurlyInString: TypeScript source as the input: the template literal is the point
    { name: 'multi-line template', layer: 'content', make: (n) => writeFile('src/a.ts', (k) => framed('const t = `', '...\n${a} {\n', '`;\n', k), n) },
    { name: 'lua varargs', layer: 'content', make: (n) => writeFile('a.lua', (k) => framed('local function f(...)\n', 'local t = { ... }\n', 'end\n', k), n) },
    // Calls written into the text.
    { name: '{ at line starts', layer: 'text-calls', make: (n) => text(fill('\n{', n)) },
    { name: '[ at line starts', layer: 'text-calls', make: (n) => text(fill('\n[', n)) },
    { name: ':{ openers', layer: 'text-calls', make: (n) => text(fill(':{', n)) },
    { name: ':{" and quotes', layer: 'text-calls', make: (n) => text(fill(':{"{"', n)) },
    { name: '{" at line starts', layer: 'text-calls', make: (n) => text(fill('\n{"', n)) },
    { name: 'tag openers', layer: 'text-calls', make: (n) => text(fill('<tool_call>{<function_call>[<|im_start|>{[TOOL_CALLS][', n)) },
    { name: 'xml declarations', layer: 'text-calls', make: (n) => text(fill('<?xml ', n)) },
    { name: 'fence openers', layer: 'text-calls', make: (n) => text(fill('```json\n{', n)) },
    { name: 'nested JSON lines', layer: 'text-calls', make: (n) => text(nested('', '[\n', '', ']\n', '', n)) },
    { name: 'runs of values', layer: 'text-calls', make: (n) => text(fill('{}\n', n)) },
    { name: 'run of calls, last not', layer: 'text-calls', make: (n) => text(framed('', `${validCall},\n`, '{"x": 1}', n)) },
    { name: 'many calls', layer: 'text-calls', make: (n) => text(fill(`<tool_call>${validCall}</tool_call>\n`, n)) },
    { name: 'example cues', layer: 'text-calls', make: (n) => text(fill(`for example, such as: ${validCall}\n`, n)) },
    { name: 'python literals', layer: 'text-calls', make: (n) => text(framed('\n{"x": [', 'True, None, ', 'False]}', n)) },
    // Issue 29's rule: markup after sentences and template tokens (the look back), a run then debris (the
    // answer-only and lead-in ends), fences and code spans (the quoted mask), lead-ins before a last call.
    { name: 'markup after sentences', layer: 'text-calls', make: (n) => text(fill('Ok. <tool_call>{"name": "nope"} ', n)) },
    { name: 'template tokens before markup', layer: 'text-calls', make: (n) => text(fill('a|> <tool_call>', n)) },
    { name: 'a run, then debris', layer: 'text-calls', make: (n) => text(`${fill('\n{}', n / 2)}${fill('<|im_end|>', n / 2)}x`) },
    { name: 'debris, then a call', layer: 'text-calls', make: (n) => text(framed('', '<|im_end|> ', validCall, n)) },
    { name: 'code spans and fences', layer: 'text-calls', make: (n) => text(fill('`a` ```\n> {"b"\n', n)) },
    { name: 'lead-in, a call last', layer: 'text-calls', make: (n) => text(framed('', 'Let me read: ', validCall, n)) },
    // Issue 29: what follows each call taken from markup is read for an ask, up to the next call.
    { name: 'calls, each then closers', layer: 'text-calls', make: (n) => text(fill(`<tool_call>${validCall}</tool_call>\nAnything else? Did I help?\n`, n)) },
    { name: 'a call, then questions', layer: 'text-calls', make: (n) => text(framed(`<tool_call>${validCall}</tool_call>\n`, 'Anything else? ', '', n)) },
    // What comes before each call taken from markup is read for an open question, back to the previous call.
    { name: 'questions, then a call', layer: 'text-calls', make: (n) => text(framed('', 'Shall I? Yes. ', `\n<tool_call>${validCall}</tool_call>`, n)) },
    {
      name: 'deep nesting',
      layer: 'text-calls',
      make: (n) => text(nested('<tool_call>{"name":"read_file","arguments":{"x":', '[', '', ']', '}}</tool_call>', n)),
    },
    // The text hold.
    { name: 'prose', layer: 'text-hold', make: (n) => deltas(fill('The quick brown fox jumps over the lazy dog. ', n)) },
    { name: 'blank lines', layer: 'text-hold', make: (n) => deltas(framed('Hi.', '\n \t', '', n)) },
    { name: '[ then blank lines', layer: 'text-hold', make: (n) => deltas(framed('Hi.\n[', ' \n', '', n)) },
    { name: 'partial tags', layer: 'text-hold', make: (n) => deltas(fill('<tool_ca x ', n)) },
    { name: 'partial markup openers', layer: 'text-hold', make: (n) => deltas(fill('[TOOL_CALL x <functio y ', n)) },
    { name: 'backticks and braces', layer: 'text-hold', make: (n) => deltas(fill('``x{y <', n)) },
    { name: 'after a trigger', layer: 'text-hold', make: (n) => deltas(framed('{"', 'a', '', n)) },
  ];
}

function manyKeys(head: string, n: number): string {
  let out = head;
  for (let k = 0; out.length < n - 12; k++) out += `,"k${k}":${k}`;
  return `${out}}`;
}

/** The longest `make(k)` of at most `n` characters (escaping makes arguments longer than their content). */
function longestWithin(n: number, make: (k: number) => string): string {
  let k = n;
  let out = make(k);
  while (out.length > n && k > 0) {
    k = Math.floor((k * n) / out.length) - 1;
    out = make(k);
  }
  return out;
}

/** write_file of `content(k)`, the arguments at most `n` characters. */
const writeFile = (path: string, content: (k: number) => string, n: number): Input =>
  call(
    'write_file',
    longestWithin(n, (k) => JSON.stringify({ path, content: content(k) })),
  );

// ---- timing ----------------------------------------------------------------------------------------

function runner(input: Input, tools: readonly ToolSpec[], context: GateContext): () => void {
  switch (input.kind) {
    case 'call': {
      const proposed = { id: 'bench', name: input.name, arguments: input.arguments };
      const toolset = input.tools ?? tools;
      return () => void gate(proposed, toolset, context);
    }
    case 'text':
      return () => void extractTextCalls(input.text, tools);
    case 'deltas':
      return () => {
        const hold = new TextHold();
        for (const d of input.deltas) hold.push(d);
        hold.release();
      };
  }
}

// A full collection before each sample, so that no sample pays for the garbage of the one before.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Fastest of several samples, in ms per run; one run only when that one is already long. */
function time(fn: () => void): number {
  collect();
  const t0 = performance.now();
  fn();
  const first = performance.now() - t0;
  if (first > 1_000) return first;
  const batch = Math.max(1, Math.ceil(10 / Math.max(first, 0.0005)));
  const samples = first > 100 ? 5 : 9;
  let best = first;
  for (let s = 0; s < samples; s++) {
    collect();
    const t = performance.now();
    for (let b = 0; b < batch; b++) fn();
    best = Math.min(best, (performance.now() - t) / batch);
  }
  return best;
}

/** Least-squares slope of log(ms) on log(size). */
function slope(points: [number, number][]): number | null {
  if (points.length < 2) return null;
  const xs = points.map(([n]) => Math.log(n));
  const ys = points.map(([, ms]) => Math.log(Math.max(ms, 1e-6)));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  xs.forEach((x, i) => {
    num += (x - mx) * (ys[i]! - my);
    den += (x - mx) ** 2;
  });
  return num / den;
}

export async function runAdversarial(opts: { family?: string; maxSize?: number; treeFile?: string } = {}): Promise<AdversarialReport> {
  const here = dirname(new URL(import.meta.url).pathname);
  const tree = readFileSync(opts.treeFile ?? join(here, '..', '..', '..', 'shared', 'bench', 'trees', 'deno.txt'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const context: GateContext = { paths: buildPathIndex(tree) };
  const tools: ToolSpec[] = defaultTools.map(({ run: _run, ...spec }) => spec);
  const sizes = SIZES.filter((s) => s <= (opts.maxSize ?? Infinity));
  const chosen = families(tree).filter((f) => !opts.family || `${f.layer}: ${f.name}`.includes(opts.family));

  const results: FamilyResult[] = [];
  for (const f of chosen) {
    const ms: Record<string, number | null> = {};
    const points: [number, number][] = [];
    for (const n of sizes) {
      const last = points.at(-1);
      const growth = Math.max(1, slope(points) ?? 3);
      if (last && last[1] * (n / last[0]) ** growth > BUDGET_MS) {
        ms[n] = null;
        continue;
      }
      const t = time(runner(f.make(n), tools, context));
      ms[n] = round(t, 4);
      points.push([n, t]);
    }
    const exponent = slope(points);
    const lastExponent = points.length >= 2 ? slope(points.slice(-2)) : null;
    const at100k = ms[100_000];
    const meetsGoal =
      at100k !== null &&
      at100k !== undefined &&
      at100k <= GOAL_MS_AT_100K &&
      exponent !== null &&
      exponent <= GOAL_EXPONENT &&
      Object.values(ms).every((v) => v !== null);
    results.push({
      family: f.name,
      layer: f.layer,
      ms,
      exponent: exponent === null ? null : round(exponent, 2),
      lastExponent: lastExponent === null ? null : round(lastExponent, 2),
      meetsGoal,
    });
  }
  return {
    sizes: [...sizes],
    goal: { msAt100k: GOAL_MS_AT_100K, exponent: GOAL_EXPONENT },
    families: results,
    missed: results.filter((r) => !r.meetsGoal).map((r) => `${r.layer}: ${r.family}`),
  };
}

const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000} MB` : `${n / 1_000} KB`);
const fmt = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? `> ${BUDGET_MS / 1000} s` : ms < 1 ? ms.toFixed(3) : ms < 100 ? ms.toFixed(2) : ms.toFixed(0);

export function printAdversarial(report: AdversarialReport): void {
  printTable(
    `adversarial inputs: ms per run (fastest of several), growth exponent; goal ≤ ${GOAL_MS_AT_100K} ms at 100 KB and exponent ≤ ${GOAL_EXPONENT}`,
    ['layer: family', ...report.sizes.map(label), 'exponent', 'last', 'goal'],
    report.families.map((r) => [
      `${r.layer}: ${r.family}`,
      ...report.sizes.map((n) => fmt(r.ms[n])),
      r.exponent?.toFixed(2) ?? '—',
      r.lastExponent?.toFixed(2) ?? '—',
      r.meetsGoal ? 'met' : 'MISSED',
    ]),
  );
  console.log(report.missed.length === 0 ? '\nevery family meets the goal' : `\nmissed: ${report.missed.join('; ')}`);
}
