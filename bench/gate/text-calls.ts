// text-calls corpus: recall = positives whose extracted calls equal expect.calls as a multiset
// (BFCL value semantics), falseBlockRate = negatives from which any call was extracted (../shared/bench/README.md
// § Scoring), for extractTextCalls and a naive "first {…} in the text" extractor.
import type { ToolSpec } from 'rebound-gate';
import { extractTextCalls } from 'rebound-gate/host';
import { naiveExtract } from '../baselines/naive-text-calls.ts';
import { matchesGold, percentile, ratio, round, timeEach, type CorpusReport, type Figures, type GoldCall } from './common.ts';

type Call = { name: string; arguments: Record<string, unknown> };

/** A case of the text-calls corpus (../shared/bench/README.md § 2), as far as the scoring reads it. */
interface Case {
  id?: string;
  tools: ToolSpec[];
  text: string;
  expect: { calls: GoldCall[] };
  meta?: { form?: string };
}

/** Every extracted call matches a distinct expected entry and the counts are equal. */
export function multisetEqual(calls: readonly Call[], expected: readonly GoldCall[]): boolean {
  if (calls.length !== expected.length) return false;
  const used = new Array<boolean>(expected.length).fill(false);
  const assign = (i: number): boolean => {
    if (i === calls.length) return true;
    for (let j = 0; j < expected.length; j++) {
      if (used[j] || !matchesGold(calls[i]!.name, calls[i]!.arguments, [expected[j]!])) continue;
      used[j] = true;
      if (assign(i + 1)) return true;
      used[j] = false;
    }
    return false;
  };
  return assign(0);
}

function score(cases: Case[], results: Call[][], us: number[]): Figures {
  let pos = 0,
    ok = 0,
    neg = 0,
    fp = 0;
  const tally: Record<string, { n: number; good: number }> = {};
  cases.forEach((c, i) => {
    const positive = c.expect.calls.length > 0;
    const good = positive ? multisetEqual(results[i]!, c.expect.calls) : results[i]!.length === 0;
    if (positive) {
      pos++;
      if (good) ok++;
    } else {
      neg++;
      if (!good) fp++;
    }
    const form = c.meta?.form ?? '?';
    tally[form] ??= { n: 0, good: 0 };
    const t = tally[form];
    t.n++;
    if (good) t.good++;
  });
  const perLabel: Record<string, { cases: number; recall: number }> = {};
  // recall per form = cases handled right (calls equal to gold; no call for a negative form)
  for (const [k, t] of Object.entries(tally)) perLabel[k] = { cases: t.n, recall: ratio(t.good, t.n) };
  return {
    cases: cases.length,
    recall: round(ratio(ok, pos)),
    falseBlockRate: round(ratio(fp, neg)),
    p50us: round(percentile(us, 50), 1),
    p99us: round(percentile(us, 99), 1),
    perLabel,
  };
}

/** A `"name": "<tool>"` (or tool / function) in the text naming a tool of the toolset: what a nudge would be about. */
function namesATool(c: Case): boolean {
  const names = new Set(c.tools.map((t) => t.name));
  for (const m of c.text.matchAll(/"(?:name|tool|tool_name|function)"\s*:\s*"([^"\\]{1,128})"/g)) if (names.has(m[1]!)) return true;
  return false;
}

/** Issue 29's figures: what is left as text, what would be changed, where a nudge would fire. */
function leftAsText(cases: Case[], verbose: boolean): { figures: Record<string, unknown>; lines: string[] } {
  const left: string[] = [];
  let changed = 0;
  let nudgePositives = 0;
  let nudgeNegatives = 0;
  let negatives = 0;
  for (const c of cases) {
    const r = extractTextCalls(c.text, c.tools);
    const positive = c.expect.calls.length > 0;
    if (!positive) negatives++;
    if (r.calls.length > 0) continue;
    if (positive) left.push(c.id ?? '?');
    else if (r.visibleText !== c.text) changed++;
    if (namesATool(c)) positive ? nudgePositives++ : nudgeNegatives++;
  }
  const lines = [
    `positives left as text: ${left.length}${verbose && left.length > 0 ? ` (${left.join(' ')})` : ''}; negatives whose text came back changed: ${changed}`,
    `a nudge would fire on ${nudgePositives} positives left as text and on ${nudgeNegatives} of ${negatives} negatives`,
  ];
  return {
    figures: { positivesLeftAsText: left.length, negativesTextChanged: changed, nudgeOnPositives: nudgePositives, nudgeOnNegatives: nudgeNegatives },
    lines,
  };
}

export async function run(raw: unknown[], opts: { corpusPath: string; verbose?: boolean }): Promise<CorpusReport> {
  const cases = raw as Case[];
  const gate = timeEach(cases, (c) => extractTextCalls(c.text, c.tools).calls);
  const naive = timeEach(cases, (c) => naiveExtract(c.text));
  const issue29 = leftAsText(cases, opts.verbose === true);
  return {
    corpus: 'text-calls',
    ...score(cases, gate.results, gate.us),
    ...issue29.figures,
    lines: issue29.lines,
    baselines: { naive: score(cases, naive.results, naive.us) },
  };
}
