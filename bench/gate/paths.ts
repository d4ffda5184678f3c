// paths corpus: top-1 / top-3 suggestion accuracy over cases with a gold path, abstention over cases
// without one (../shared/bench/README.md § Scoring), for the path index and the seed's scoring; and the 100k-path
// timing (--paths-100k).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildPathIndex } from 'rebound-gate';
import { buildSeedPathIndex } from '../baselines/seed-paths.ts';
import { percentile, ratio, round, timeEach, type CorpusReport, type Figures } from './common.ts';

/** A case of the paths corpus (../shared/bench/README.md § 3), as far as the scoring reads it. */
interface Case {
  tree: string | null;
  paths?: string[];
  attempt: string;
  gold: string | null;
  mistake: string;
}

interface Suggester {
  suggest(p: string, limit?: number): string[];
}

const strip = (p: string) => p.replace(/^\.?\/+/, '').replace(/\/+$/, '');

function treeLines(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
}

function score(cases: Case[], results: string[][], us: number[]): Figures {
  const perLabel: Record<string, { cases: number; recall: number; [f: string]: number }> = {};
  const tally: Record<string, { n: number; gold: number; t1: number; t3: number; nul: number; abs: number }> = {};
  let gold = 0,
    t1 = 0,
    t3 = 0,
    nul = 0,
    abs = 0;
  cases.forEach((c, i) => {
    const s = results[i]!.map(strip);
    const { mistake } = c;
    tally[mistake] ??= { n: 0, gold: 0, t1: 0, t3: 0, nul: 0, abs: 0 };
    const t = tally[mistake];
    t.n++;
    if (c.gold === null) {
      nul++;
      t.nul++;
      if (s.length === 0) {
        abs++;
        t.abs++;
      }
    } else {
      const g = strip(c.gold);
      gold++;
      t.gold++;
      if (s[0] === g) {
        t1++;
        t.t1++;
      }
      if (s.slice(0, 3).includes(g)) {
        t3++;
        t.t3++;
      }
    }
  });
  for (const [k, t] of Object.entries(tally)) {
    // recall here = the case was handled right: gold on top, or abstained when there is no gold
    const row: { cases: number; recall: number; [f: string]: number } = { cases: t.n, recall: ratio(t.t1 + t.abs, t.n) };
    if (t.gold > 0) {
      row.top1 = ratio(t.t1, t.gold);
      row.top3 = ratio(t.t3, t.gold);
    }
    if (t.nul > 0) row.abstention = ratio(t.abs, t.nul);
    perLabel[k] = row;
  }
  // Every case is a blocked path: what its message offers.
  const offered = results.reduce((n, r) => n + r.length, 0);
  const listed = cases.filter((c, i) => c.gold !== null && results[i]!.map(strip).includes(strip(c.gold))).length;
  const suggestions = {
    blocks: cases.length,
    meanSuggestions: round(ratio(offered, cases.length), 3),
    withGold: gold,
    goldFirst: round(ratio(t1, gold)),
    goldListed: round(ratio(listed, gold)),
  };
  return {
    cases: cases.length,
    suggestions,
    top1: round(ratio(t1, gold)),
    top3: round(ratio(t3, gold)),
    abstention: round(ratio(abs, nul)),
    p50us: round(percentile(us, 50), 1),
    p99us: round(percentile(us, 99), 1),
    perLabel,
  };
}

/** One index per tree (built outside the timing), one per inline path list. */
function indexes(cases: Case[], corpusPath: string, build: (paths: string[]) => Suggester): Suggester[] {
  const trees = new Map<string, Suggester>();
  return cases.map((c) => {
    if (c.tree) {
      let ix = trees.get(c.tree);
      if (!ix) {
        ix = build(treeLines(join(dirname(corpusPath), 'trees', `${c.tree}.txt`)));
        trees.set(c.tree, ix);
      }
      return ix;
    }
    return build(c.paths as string[]);
  });
}

export async function run(raw: unknown[], opts: { corpusPath: string; paths100k?: boolean }): Promise<CorpusReport> {
  const cases = raw as Case[];
  const mine = indexes(cases, opts.corpusPath, (p) => buildPathIndex(p));
  const idx = cases.map((c, i) => ({ c, i }));
  const gate = timeEach(idx, ({ c, i }) => mine[i]!.suggest(c.attempt, 3));
  const seedIx = indexes(cases, opts.corpusPath, (p) => buildSeedPathIndex(p));
  const seed = timeEach(idx, ({ c, i }) => seedIx[i]!.suggest(c.attempt, 3), false);
  const report: CorpusReport = {
    corpus: 'paths',
    ...score(cases, gate.results, gate.us),
    baselines: { seed: score(cases, seed.results, seed.us) },
  };
  if (opts.paths100k) report.pathIndex100k = await runPaths100k();
  return report;
}

/**
 * ~100,000 paths: the deno tree copied under distinct roots. Queries are the dev corpus's deno
 * attempts placed under one of the copies; both scorers answer them on the same paths in this run.
 */
export async function runPaths100k(opts: { treeFile?: string; corpusFile?: string; queries?: number; seedQueries?: number } = {}): Promise<{
  p50ms: number;
  p99ms: number;
  seedP50ms: number;
  speedupVsSeed: number;
  paths: number;
}> {
  const here = dirname(new URL(import.meta.url).pathname);
  const shared = join(here, '..', '..', '..', 'shared', 'bench');
  const tree = treeLines(opts.treeFile ?? join(shared, 'trees', 'deno.txt'));
  const copies = Math.ceil(100_000 / tree.length);
  const roots = Array.from({ length: copies }, (_, k) => `workspace-${k}`);
  const all = roots.flatMap((r) => tree.map((p) => `${r}/${p}`));
  const corpus = readFileSync(opts.corpusFile ?? join(shared, 'paths.dev.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((c) => c.tree === 'deno');
  const n = Math.min(opts.queries ?? 1000, corpus.length);
  const queries = Array.from({ length: n }, (_, i) => `${roots[i % copies]}/${corpus[Math.floor((i * corpus.length) / n)]!.attempt}`);
  const index = buildPathIndex(all);
  const mine = timeEach(queries, (q) => index.suggest(q, 3));
  const seedIndex = buildSeedPathIndex(all);
  const sq = queries.filter((_, i) => i % Math.ceil(n / (opts.seedQueries ?? 30)) === 0);
  const seed = timeEach(sq, (q) => seedIndex.suggest(q, 3), false);
  const p50ms = percentile(mine.us, 50) / 1000;
  const seedP50ms = percentile(seed.us, 50) / 1000;
  return {
    p50ms: round(p50ms, 4),
    p99ms: round(percentile(mine.us, 99) / 1000, 4),
    seedP50ms: round(seedP50ms, 2),
    speedupVsSeed: round(seedP50ms / p50ms, 1),
    paths: all.length,
  };
}

/** The name bench/gate.ts calls for --paths-100k. */
export const paths100k = (_opts?: { corpora: string[] }) => runPaths100k();
