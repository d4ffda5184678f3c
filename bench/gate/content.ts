// content corpus: recall over placeholder files, false-block rate over clean ones (../shared/bench/README.md § Scoring),
// for checkContent and the seed's literal patterns + naive bracket counting.
import { checkContent } from 'rebound-gate/internal';
import { seedCheckContent } from '../baselines/seed-content.ts';
import { percentile, ratio, round, timeEach, type CorpusReport, type Figures } from './common.ts';

/** A case of the content corpus (../shared/bench/README.md § 4), as far as the scoring reads it. */
export interface Case {
  source?: string;
  language: string;
  content: string;
  expect: { placeholder: boolean };
  meta?: { kind?: string };
}

const EXT: Record<string, string> = {
  python: 'py',
  typescript: 'ts',
  javascript: 'js',
  rust: 'rs',
  go: 'go',
  c: 'c',
  cpp: 'cpp',
  csharp: 'cs',
  css: 'css',
  dart: 'dart',
  html: 'html',
  java: 'java',
  kotlin: 'kt',
  lua: 'lua',
  php: 'php',
  ruby: 'rb',
  shell: 'sh',
  sql: 'sql',
  vue: 'vue',
};

/** The path the file would be written to: its own for repository files, else one for its language. */
export function hintPath(c: Case): string {
  const m = /:([^:#]+)(#L\d+.*)?$/.exec(String(c.source ?? ''));
  if (m && (c.meta?.kind === 'repo_file' || c.meta?.kind === 'mirror_file')) return m[1]!;
  return `snippet.${EXT[c.language] ?? 'txt'}`;
}

function score(cases: Case[], flagged: boolean[], us: number[], byCat?: string[][]): Figures {
  let pos = 0,
    tp = 0,
    neg = 0,
    fp = 0;
  const perLabel: Record<string, { cases: number; recall: number; falseBlockRate: number }> = {};
  const tally: Record<string, { n: number; pos: number; tp: number; neg: number; fp: number }> = {};
  cases.forEach((c, i) => {
    const label = `${c.expect.placeholder ? 'positive' : 'negative'}/${c.meta?.kind ?? '?'}`;
    tally[label] ??= { n: 0, pos: 0, tp: 0, neg: 0, fp: 0 };
    const t = tally[label];
    t.n++;
    if (c.expect.placeholder) {
      pos++;
      t.pos++;
      if (flagged[i]) {
        tp++;
        t.tp++;
      }
    } else {
      neg++;
      t.neg++;
      if (flagged[i]) {
        fp++;
        t.fp++;
      }
    }
  });
  for (const [k, t] of Object.entries(tally)) perLabel[k] = { cases: t.n, recall: ratio(t.tp, t.pos), falseBlockRate: ratio(t.fp, t.neg) };
  const f: Figures = {
    cases: cases.length,
    recall: round(ratio(tp, pos)),
    falseBlockRate: round(ratio(fp, neg)),
    p50us: round(percentile(us, 50), 1),
    p99us: round(percentile(us, 99), 1),
    perLabel,
  };
  if (byCat) {
    // Which check fired on the negatives it flagged.
    const cats: Record<string, number> = {};
    cases.forEach((c, i) => {
      if (!c.expect.placeholder) for (const k of byCat[i]!) cats[k] = (cats[k] ?? 0) + 1;
    });
    f.falseBlocksByCategory = cats;
  }
  return f;
}

export async function run(raw: unknown[], _opts: { corpusPath: string }): Promise<CorpusReport> {
  const cases = raw as Case[];
  const hints = cases.map((c) => ({ c, path: hintPath(c) }));
  const gate = timeEach(hints, ({ c, path }) => checkContent(c.content, { path }).map((p) => p.category));
  const seed = timeEach(cases, (c) => seedCheckContent(c.content));
  return {
    corpus: 'content',
    ...score(
      cases,
      gate.results.map((r) => r.length > 0),
      gate.us,
      gate.results,
    ),
    baselines: {
      seed: score(
        cases,
        seed.results.map((r) => r.length > 0),
        seed.us,
        seed.results,
      ),
    },
  };
}
