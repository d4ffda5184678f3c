// The tool-calls corpus through rebound-gate/ai-sdk's middleware (issue 22: no loss in the adapters):
// each case's call is what the wrapped model's doGenerate returns, with the case's tools as the call's
// function tools; a re-ask gets the same call again (a model that repeats itself, so a blocked call
// stays blocked and goes out unchanged). What the middleware hands the AI SDK is scored as bench:gate
// scores the gate (bench/gate/tool-calls.ts): a call out changed is a repair, a call out unchanged after
// a re-ask a block, else a pass. Prints both side by side and the JSON line.
//   npm run bench:gate-ai-sdk -- --corpus ../shared/bench/tool-calls.dev.jsonl
import { gate, type ProposedCall } from 'rebound-gate';
import { reboundMiddleware } from 'rebound-gate/ai-sdk';
import { readJsonl } from './gate/common.ts';
import { type Case, type Outcome, score } from './gate/tool-calls.ts';

const corpus = process.argv[process.argv.indexOf('--corpus') + 1] ?? '../shared/bench/tool-calls.dev.jsonl';
const cases = readJsonl(corpus) as Case[];
const middleware = reboundMiddleware();
const wrapGenerate = middleware.wrapGenerate!;

type Params = Parameters<typeof wrapGenerate>[0];

async function throughMiddleware(c: Case, i: number): Promise<Outcome> {
  const call = { type: 'tool-call' as const, toolCallId: `call_${i}`, toolName: c.call.name, input: c.call.arguments };
  const answer = async () => ({
    content: [call],
    finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
    usage: { inputTokens: {}, outputTokens: {} },
    warnings: [],
  });
  let reasks = 0;
  const model = {
    doGenerate: async () => {
      reasks++;
      return answer();
    },
  };
  const params = {
    prompt: [],
    tools: c.tools.map((t) => ({ type: 'function' as const, name: t.name, description: t.description, inputSchema: t.parameters })),
  };
  const out = await wrapGenerate({ doGenerate: answer, doStream: undefined, params, model } as unknown as Params);
  const sent = out.content.find((p) => p.type === 'tool-call');
  if (sent?.type !== 'tool-call') return { verdict: 'blocked' };
  const changed = sent.toolName !== call.toolName || sent.input !== call.input;
  if (!changed && reasks > 0) return { verdict: 'blocked' };
  let args: Record<string, unknown> | undefined;
  try {
    args = JSON.parse(sent.input) as Record<string, unknown>;
  } catch {
    args = undefined;
  }
  return { verdict: changed ? 'repaired' : 'pass', name: sent.toolName, ...(args ? { args } : {}) };
}

const outcomes: Outcome[] = [];
for (const [i, c] of cases.entries()) outcomes.push(await throughMiddleware(c, i));
const viaMiddleware = score(cases, outcomes, [0]);
const direct = score(
  cases,
  cases.map((c, i): Outcome => {
    const v = gate({ id: `call_${i}`, name: c.call.name, arguments: c.call.arguments } satisfies ProposedCall, c.tools);
    return v.verdict === 'blocked' ? { verdict: 'blocked' } : { verdict: v.verdict, name: v.call.name, args: v.call.args };
  }),
  [0],
);
const keys = ['recall', 'falseBlockRate', 'validChangedRate', 'repairedToGold', 'wrongRepairRate'] as const;
const pct = (x: number | undefined) => (x === undefined ? '—' : `${(x * 100).toFixed(2)}%`);
console.log(`tool-calls: ${cases.length} cases`);
console.log(`${'scorer'.padEnd(22)}${keys.map((k) => k.padStart(18)).join('')}`);
for (const [name, f] of [
  ['gate (bench:gate)', direct],
  ['ai-sdk middleware', viaMiddleware],
] as const)
  console.log(`${name.padEnd(22)}${keys.map((k) => pct(f[k] as number | undefined).padStart(18)).join('')}`);
console.log(
  JSON.stringify({
    corpus: 'tool-calls',
    cases: cases.length,
    gate: Object.fromEntries(keys.map((k) => [k, direct[k]])),
    middleware: Object.fromEntries(keys.map((k) => [k, viaMiddleware[k]])),
  }),
);
