// The tool-calls corpus through rebound-gate/ai-sdk's middleware (issue 22: no loss in the adapters):
// each case's call is what the wrapped model answers, with the case's tools as the call's function
// tools, once through wrapGenerate (the answer of doGenerate) and once through wrapStream (doStream's
// parts: the call's input as deltas, the call, the finish); a re-ask gets the same call again (a model
// that repeats itself, so a blocked call stays blocked and goes out unchanged). What the middleware
// hands the AI SDK is scored as bench:gate scores the gate (bench/gate/tool-calls.ts): a call out
// changed is a repair, a call out unchanged after a re-ask a block, else a pass. Prints the three side
// by side and the JSON line.
//   npm run bench:gate-ai-sdk -- --corpus ../shared/bench/tool-calls.dev.jsonl
import { gate, type ProposedCall } from 'rebound-gate';
import { reboundMiddleware } from 'rebound-gate/ai-sdk';
import { readJsonl } from './gate/common.ts';
import { type Case, type Outcome, score } from './gate/tool-calls.ts';

const at = process.argv.indexOf('--corpus');
const corpus = (at >= 0 ? process.argv[at + 1] : undefined) ?? '../shared/bench/tool-calls.dev.jsonl';
const cases = readJsonl(corpus) as Case[];
const middleware = reboundMiddleware();
const wrapGenerate = middleware.wrapGenerate!;
const wrapStream = middleware.wrapStream!;

type GenerateArgs = Parameters<typeof wrapGenerate>[0];
type StreamArgs = Parameters<typeof wrapStream>[0];
interface SentCall {
  toolName: string;
  input: string;
}

const finishReason = { unified: 'tool-calls' as const, raw: 'tool_calls' };
const usage = { inputTokens: {}, outputTokens: {} };

/** What the AI SDK received for the case's call, scored against the call the model wrote. */
function outcome(call: SentCall, sent: SentCall | undefined, reasks: number): Outcome {
  if (!sent) return { verdict: 'blocked' };
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

function caseOf(c: Case, i: number) {
  const call = { type: 'tool-call' as const, toolCallId: `call_${i}`, toolName: c.call.name, input: c.call.arguments };
  const params = {
    prompt: [],
    tools: c.tools.map((t) => ({ type: 'function' as const, name: t.name, description: t.description, inputSchema: t.parameters })),
  };
  return { call, params };
}

async function throughGenerate(c: Case, i: number): Promise<Outcome> {
  const { call, params } = caseOf(c, i);
  const answer = async () => ({ content: [call], finishReason, usage, warnings: [] });
  let reasks = 0;
  const model = {
    doGenerate: async () => {
      reasks++;
      return answer();
    },
  };
  const out = await wrapGenerate({ doGenerate: answer, doStream: undefined, params, model } as unknown as GenerateArgs);
  const sent = out.content.find((p) => p.type === 'tool-call');
  return outcome(call, sent?.type === 'tool-call' ? sent : undefined, reasks);
}

async function throughStream(c: Case, i: number): Promise<Outcome> {
  const { call, params } = caseOf(c, i);
  const id = call.toolCallId;
  const half = Math.ceil(call.input.length / 2);
  const answer = async () => ({
    stream: new ReadableStream({
      start(controller) {
        for (const part of [
          { type: 'stream-start', warnings: [] },
          { type: 'tool-input-start', id, toolName: call.toolName },
          { type: 'tool-input-delta', id, delta: call.input.slice(0, half) },
          { type: 'tool-input-delta', id, delta: call.input.slice(half) },
          { type: 'tool-input-end', id },
          call,
          { type: 'finish', finishReason, usage },
        ])
          controller.enqueue(part);
        controller.close();
      },
    }),
  });
  let reasks = 0;
  const model = {
    doStream: async () => {
      reasks++;
      return answer();
    },
  };
  const out = await wrapStream({ doGenerate: undefined, doStream: answer, params, model } as unknown as StreamArgs);
  let sent: SentCall | undefined;
  const reader = out.stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) if (next.value.type === 'tool-call') sent ??= next.value;
  return outcome(call, sent, reasks);
}

const generated: Outcome[] = [];
const streamed: Outcome[] = [];
for (const [i, c] of cases.entries()) {
  generated.push(await throughGenerate(c, i));
  streamed.push(await throughStream(c, i));
}
const viaGenerate = score(cases, generated, [0]);
const viaStream = score(cases, streamed, [0]);
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
  ['ai-sdk doGenerate', viaGenerate],
  ['ai-sdk doStream', viaStream],
] as const)
  console.log(`${name.padEnd(22)}${keys.map((k) => pct(f[k] as number | undefined).padStart(18)).join('')}`);
console.log(
  JSON.stringify({
    corpus: 'tool-calls',
    cases: cases.length,
    gate: Object.fromEntries(keys.map((k) => [k, direct[k]])),
    middleware: Object.fromEntries(keys.map((k) => [k, viaGenerate[k]])),
    middlewareStream: Object.fromEntries(keys.map((k) => [k, viaStream[k]])),
  }),
);
