// Shared plumbing for the gate benchmarks: every corpus module reads JSON Lines, times the gate per
// case and prints the same kind of table, so figures from different corpora read alike.
import { readFileSync } from 'node:fs';

/** Figures of one scorer (the gate or a baseline) on one corpus. Rates are fractions in [0, 1]. */
export interface Figures {
  cases: number;
  recall?: number;
  falseBlockRate?: number;
  validChangedRate?: number;
  repairedToGold?: number;
  wrongRepairRate?: number;
  top1?: number;
  top3?: number;
  abstention?: number;
  p50us: number;
  p99us: number;
  perLabel?: Record<string, { cases: number; recall: number; [k: string]: number }>;
  [k: string]: unknown;
}

/** What blocked calls offer the model: suggestions per block, and how often gold comes first. */
export interface SuggestionFigures {
  /** Blocks counted. */
  blocks: number;
  meanSuggestions: number;
  /** Blocks whose case names a gold answer. */
  withGold: number;
  /** Of those, the share whose first suggestion is gold. */
  goldFirst: number;
  /** Of those, the share with gold among the suggestions. */
  goldListed: number;
  /** Blocks whose case names no gold tool (no call should have been made), and their suggestions per block (tool-calls). */
  withoutGold?: number;
  meanWithoutGold?: number;
}

/**
 * Guesses of a tool (a tool name repaired to it, or offered on a phantom-tool block) that land on a
 * destructive tool (packages/gate/src/annotations.ts, by name in the corpora), and those whose case's gold is
 * not that tool: issue 24 wants the latter 0.
 */
export interface DestructiveGuesses {
  /** Tool guesses in all: repaired names plus tool names suggested on phantom-tool blocks. */
  guesses: number;
  destructive: number;
  destructiveNotGold: number;
}

export interface CorpusReport extends Figures {
  corpus: string;
  baselines: Record<string, Figures>;
  /** Lines a corpus module prints under its table (figures that fit no column). */
  lines?: string[];
}

export interface CorpusModule {
  /** `cases` as read from the corpus file: each module knows their shape (its `Case`). */
  run(cases: unknown[], opts: { corpusPath: string; [k: string]: unknown }): Promise<CorpusReport>;
}

export function readJsonl(file: string): unknown[] {
  const out: unknown[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() !== '') out.push(JSON.parse(line));
  }
  return out;
}

/** Nearest-rank percentile (p in [0, 100]) of an unsorted sample. */
export function percentile(sample: readonly number[], p: number): number {
  if (sample.length === 0) return 0;
  const sorted = [...sample].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** A ratio that is 0 (not NaN) when nothing was counted, so the JSON stays plain numbers. */
export function ratio(num: number, den: number): number {
  return den === 0 ? 0 : num / den;
}

export function round(x: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/**
 * Times `fn` once per case in microseconds. A warm-up pass first, so the figures measure steady
 * state (JIT-compiled) rather than the first call's compilation.
 */
export function timeEach<C, R>(cases: readonly C[], fn: (c: C) => R, warmup = true): { results: R[]; us: number[] } {
  if (warmup) for (const c of cases) fn(c);
  const results: R[] = [];
  const us: number[] = [];
  for (const c of cases) {
    const t0 = performance.now();
    const r = fn(c);
    us.push((performance.now() - t0) * 1000);
    results.push(r);
  }
  return { results, us };
}

const pct = (x: unknown) => (typeof x === 'number' ? `${(x * 100).toFixed(2)}%` : '—');
const num = (x: unknown) => (typeof x === 'number' ? x.toFixed(1) : '—');

/** Prints rows × columns, left-aligned first column, right-aligned figures. */
export function printTable(title: string, header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of cells.slice(1)) console.log(line(r));
}

const RATE_KEYS = [
  'recall',
  'falseBlockRate',
  'validChangedRate',
  'repairedToGold',
  'wrongRepairRate',
  'repairPrecision',
  'top1',
  'top3',
  'abstention',
] as const;

/** The standard report: the gate and each baseline side by side, then the gate's per-label figures. */
export function printReport(report: CorpusReport): void {
  const scorers: [string, Figures][] = [['gate', report], ...Object.entries(report.baselines)];
  const keys = RATE_KEYS.filter((k) => scorers.some(([, f]) => typeof f[k] === 'number'));
  printTable(
    `${report.corpus}: ${report.cases} cases`,
    ['scorer', ...keys, 'p50 µs', 'p99 µs'],
    scorers.map(([name, f]) => [name, ...keys.map((k) => pct(f[k])), num(f.p50us), num(f.p99us)]),
  );
  for (const line of report.lines ?? []) console.log(line);
  if (typeof report.judgedRepairs === 'number') {
    console.log(`repairPrecision judged ${report.judgedRepairs} repairs (possible_answer calls whose untouched arguments match a gold entry)`);
    if (Array.isArray(report.judgedWrong)) console.log(`judged wrong (${report.judgedWrong.length}): ${report.judgedWrong.join(' ') || '—'}`);
  }
  const withSuggestions = scorers.filter(([, f]) => f.suggestions);
  if (withSuggestions.length > 0) {
    printTable(
      `${report.corpus}: suggestions on blocks`,
      ['scorer', 'blocks', 'mean suggestions', 'with gold', 'gold first', 'gold listed', 'without gold', 'mean without gold'],
      withSuggestions.map(([name, f]) => {
        const s = f.suggestions as SuggestionFigures;
        const without = s.withoutGold === undefined ? ['—', '—'] : [s.withoutGold, s.meanWithoutGold!.toFixed(3)];
        return [name, s.blocks, s.meanSuggestions.toFixed(2), s.withGold, pct(s.goldFirst), pct(s.goldListed), ...without];
      }),
    );
  }
  const d = report.destructiveGuesses as DestructiveGuesses | undefined;
  if (d) {
    console.log(
      `tool guesses (repaired names, suggested tools): ${d.guesses}; on a destructive tool: ${d.destructive}; of those, not the gold tool: ${d.destructiveNotGold}`,
    );
  }
  const own = report.destructiveWithOwnTools as (DestructiveGuesses & { calls: number }) | undefined;
  if (own) {
    console.log(
      `with the own workspace tools added (${own.calls} phantom-tool calls and the issue's names): tool guesses ${own.guesses}; on a destructive tool: ${own.destructive}; not gold: ${own.destructiveNotGold}`,
    );
  }
  const other = report.otherWordGuesses as { calls: number; guesses: number; notReadOnly: number; destructive: number } | undefined;
  if (other) {
    console.log(
      `another word one letter from a tool that acts (${other.calls} names): tool guesses ${other.guesses}; on a tool not read-only: ${other.notReadOnly}; on a destructive tool: ${other.destructive}`,
    );
  }
  for (const [name, f] of scorers) {
    if (!f.perLabel) continue;
    const labelKeys = [...new Set(Object.values(f.perLabel).flatMap((v) => Object.keys(v)))].filter((k) => k !== 'cases');
    printTable(
      `${report.corpus} per label (${name})`,
      ['label', 'cases', ...labelKeys],
      Object.entries(f.perLabel).map(([label, v]) => [label, v.cases, ...labelKeys.map((k) => pct(v[k]))]),
    );
  }
}

// ---- BFCL gold comparison (../shared/bench/README.md § Gold), shared by tool-calls and text-calls -------------------

/** BFCL string standardisation: drop spaces and `, . / - _ * ^`, lower-case, `'` → `"`. */
export function standardise(s: string): string {
  return s
    .replace(/[ ,./\-_*^]/g, '')
    .toLowerCase()
    .replace(/'/g, '"');
}

export const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One value against one acceptable value (which may be a list, or a dict of acceptable lists). */
export function valueMatches(v: unknown, acc: unknown): boolean {
  if (typeof acc === 'string') return typeof v === 'string' && standardise(v) === standardise(acc);
  if (typeof acc === 'number') return typeof v === 'number' && v === acc;
  if (typeof acc === 'boolean') return v === acc;
  if (acc === null) return v === null;
  if (Array.isArray(acc)) return Array.isArray(v) && v.length === acc.length && v.every((x, i) => valueMatches(x, acc[i]));
  if (isDict(acc)) return isDict(v) && dictMatches(v, acc);
  return false;
}

/** Each key of `acc` maps to a list of acceptable values ("" = may be omitted) or a nested dict. */
function dictMatches(v: Record<string, unknown>, acc: Record<string, unknown>): boolean {
  for (const k of Object.keys(v)) if (!Object.hasOwn(acc, k)) return false;
  for (const [k, alts] of Object.entries(acc)) {
    const options = Array.isArray(alts) ? alts : [alts];
    if (!Object.hasOwn(v, k)) {
      if (!options.includes('')) return false;
      continue;
    }
    if (!options.some((a) => valueMatches(v[k], a))) return false;
  }
  return true;
}

/**
 * One changed or added argument against the acceptable values of a gold entry: a match, or for a
 * list, each of its items matching an item of an acceptable list (a list the model left short is the
 * model's mistake, not the repair's). ../shared/bench/README.md § Scoring, repairPrecision.
 */
export function changedValueMatches(v: unknown, acceptable: readonly unknown[]): boolean {
  return acceptable.some((acc) => valueMatches(v, acc) || (Array.isArray(v) && Array.isArray(acc) && v.every((x) => acc.some((a) => valueMatches(x, a)))));
}

export interface GoldCall {
  name: string;
  arguments: Record<string, unknown[]>;
}

/** Whether a call (name + parsed arguments) matches any of the gold entries. */
export function matchesGold(name: string, args: Record<string, unknown>, gold: readonly GoldCall[]): boolean {
  return gold.some((g) => g.name === name && dictMatches(args, g.arguments as Record<string, unknown>));
}
