// The tool-calls corpus through rebound-gate/ai-sdk's middleware (issue 22: no loss in the adapters):
// each case's call is what the wrapped model answers, with the case's tools as the call's function
// tools, once through wrapGenerate (the answer of doGenerate) and once through wrapStream (doStream's
// parts: the call's input as deltas, the call, the finish); a re-ask gets the same call again. Scored
// and printed beside the gate's own figures by bench/gate/adapter.ts.
//   npm run bench:gate-ai-sdk -- --corpus ../shared/bench/tool-calls.dev.jsonl
import { reboundMiddleware } from 'rebound-gate/ai-sdk';
import { type AdapterAnswer, adapterBench } from './gate/adapter.ts';
import type { Case } from './gate/tool-calls.ts';

const middleware = reboundMiddleware();
const wrapGenerate = middleware.wrapGenerate!;
const wrapStream = middleware.wrapStream!;

type GenerateArgs = Parameters<typeof wrapGenerate>[0];
type StreamArgs = Parameters<typeof wrapStream>[0];

const finishReason = { unified: 'tool-calls' as const, raw: 'tool_calls' };
const usage = { inputTokens: {}, outputTokens: {} };

function caseOf(c: Case, i: number) {
  const call = { type: 'tool-call' as const, toolCallId: `call_${i}`, toolName: c.call.name, input: c.call.arguments };
  const params = {
    prompt: [],
    tools: c.tools.map((t) => ({ type: 'function' as const, name: t.name, description: t.description, inputSchema: t.parameters })),
  };
  return { call, params };
}

async function throughGenerate(c: Case, i: number): Promise<AdapterAnswer> {
  const { call, params } = caseOf(c, i);
  const answer = async () => ({ content: [call], finishReason, usage, warnings: [] });
  let reasked = false;
  const model = {
    doGenerate: async () => {
      reasked = true;
      return answer();
    },
  };
  const out = await wrapGenerate({ doGenerate: answer, doStream: undefined, params, model } as unknown as GenerateArgs);
  const sent = out.content.find((p) => p.type === 'tool-call');
  return { sent: sent?.type === 'tool-call' ? { name: sent.toolName, arguments: sent.input } : undefined, reasked };
}

async function throughStream(c: Case, i: number): Promise<AdapterAnswer> {
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
  let reasked = false;
  const model = {
    doStream: async () => {
      reasked = true;
      return answer();
    },
  };
  const out = await wrapStream({ doGenerate: undefined, doStream: answer, params, model } as unknown as StreamArgs);
  let sent: AdapterAnswer['sent'];
  const reader = out.stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    if (next.value.type === 'tool-call') sent ??= { name: next.value.toolName, arguments: next.value.input };
  }
  return { sent, reasked };
}

await adapterBench([
  { label: 'ai-sdk doGenerate', key: 'middleware', through: throughGenerate },
  { label: 'ai-sdk doStream', key: 'middlewareStream', through: throughStream },
]);
