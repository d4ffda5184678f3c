// The tool-calls corpus through one of rebound-gate's framework adapters (issue 22: no loss in the
// adapters), scored as bench:gate scores the gate and printed beside the gate's own figures. Each bench
// (bench/gate-ai-sdk.ts, bench/gate-openai-agents.ts) gives each case's call to its adapter as the model's
// answer, once per path through it (generate, stream), with the case's tools as the request's tools, a
// re-ask answered with the same call (a model that repeats itself, so a blocked call stays blocked and
// goes out unchanged); it reports the call the adapter let out. A call out changed is a repair, a call
// out unchanged after a re-ask a block, else a pass.
import { gate, type ProposedCall } from 'rebound-gate';
import { readJsonl } from './common.ts';
import { type Case, type Outcome, score } from './tool-calls.ts';

/** What the adapter let out for one case: the call (undefined: none), and whether it re-asked. */
export interface AdapterAnswer {
  sent: { name: string; arguments: string } | undefined;
  reasked: boolean;
}

function outcomeOf(c: Case, answer: AdapterAnswer): Outcome {
  const { sent, reasked } = answer;
  if (!sent) return { verdict: 'blocked' };
  const changed = sent.name !== c.call.name || sent.arguments !== c.call.arguments;
  if (!changed && reasked) return { verdict: 'blocked' };
  let args: Record<string, unknown> | undefined;
  try {
    args = JSON.parse(sent.arguments) as Record<string, unknown>;
  } catch {
    args = undefined;
  }
  return { verdict: changed ? 'repaired' : 'pass', name: sent.name, ...(args ? { args } : {}) };
}

const KEYS = ['recall', 'falseBlockRate', 'validChangedRate', 'repairedToGold', 'wrongRepairRate'] as const;

/** One way through an adapter: its row's label, its key in the JSON line, and the run of one case. */
export interface AdapterPath {
  label: string;
  key: string;
  through: (c: Case, i: number) => Promise<AdapterAnswer>;
}

/** Reads the corpus named by --corpus, runs every case through each path, prints the figures beside the gate's. */
export async function adapterBench(paths: readonly AdapterPath[]): Promise<void> {
  const at = process.argv.indexOf('--corpus');
  const corpus = (at >= 0 ? process.argv[at + 1] : undefined) ?? '../shared/bench/tool-calls.dev.jsonl';
  const cases = readJsonl(corpus) as Case[];
  const outcomes = paths.map((): Outcome[] => []);
  for (const [i, c] of cases.entries()) for (const [p, path] of paths.entries()) outcomes[p]!.push(outcomeOf(c, await path.through(c, i)));
  const direct = score(
    cases,
    cases.map((c, i): Outcome => {
      const v = gate({ id: `call_${i}`, name: c.call.name, arguments: c.call.arguments } satisfies ProposedCall, c.tools);
      return v.verdict === 'blocked' ? { verdict: 'blocked' } : { verdict: v.verdict, name: v.call.name, args: v.call.args };
    }),
    [0],
  );
  const rows = [
    { label: 'gate (bench:gate)', key: 'gate', figures: direct },
    ...paths.map((path, p) => ({ ...path, figures: score(cases, outcomes[p]!, [0]) })),
  ];
  const pct = (x: number | undefined) => (x === undefined ? '—' : `${(x * 100).toFixed(2)}%`);
  console.log(`tool-calls: ${cases.length} cases`);
  console.log(`${'scorer'.padEnd(22)}${KEYS.map((k) => k.padStart(18)).join('')}`);
  for (const row of rows) console.log(`${row.label.padEnd(22)}${KEYS.map((k) => pct(row.figures[k] as number | undefined).padStart(18)).join('')}`);
  const figures = rows.map((row) => [row.key, Object.fromEntries(KEYS.map((k) => [k, row.figures[k]]))]);
  console.log(JSON.stringify({ corpus: 'tool-calls', cases: cases.length, ...Object.fromEntries(figures) }));
}
