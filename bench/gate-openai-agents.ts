// The tool-calls corpus through rebound-gate/openai-agents' model wrapper (issue 22: no loss in the
// adapters): each case's call is the function_call item the wrapped Model answers, with the case's tools
// as the request's function tools, once through getResponse and once through getStreamedResponse (the
// call in its response_done event, the one the SDK runs calls from); a re-ask gets the same call again.
// Scored and printed beside the gate's own figures by bench/gate/adapter.ts.
//   npm run bench:gate-openai-agents -- --corpus ../shared/bench/tool-calls.dev.jsonl
import { type AgentOutputItem, type Model, type ModelRequest, type StreamEvent, Usage } from '@openai/agents';
import { reboundModel } from 'rebound-gate/openai-agents';
import { type AdapterAnswer, adapterBench } from './gate/adapter.ts';
import type { Case } from './gate/tool-calls.ts';

const usage = { requests: 1, inputTokens: 0, outputTokens: 0, totalTokens: 0 };

function caseOf(c: Case, i: number) {
  const call = { type: 'function_call' as const, callId: `call_${i}`, name: c.call.name, arguments: c.call.arguments, status: 'completed' as const };
  const request: ModelRequest = {
    input: 'the case',
    modelSettings: {},
    tools: c.tools.map((t) => ({ type: 'function', name: t.name, description: t.description ?? '', parameters: t.parameters as never, strict: false })),
    outputType: 'text',
    handoffs: [],
    tracing: false,
  };
  const asked = { count: 0 };
  const model: Model = {
    getResponse: async () => {
      asked.count++;
      return { usage: new Usage(usage), output: [call] };
    },
    async *getStreamedResponse(): AsyncIterable<StreamEvent> {
      asked.count++;
      yield { type: 'response_started' };
      yield { type: 'response_done', response: { id: `resp_${i}`, usage, output: [call] } };
    },
  };
  return { request, asked, wrapped: reboundModel(model) };
}

const sentOf = (output: readonly AgentOutputItem[]): AdapterAnswer['sent'] => {
  const sent = output.find((item) => item.type === 'function_call');
  return sent?.type === 'function_call' ? { name: sent.name, arguments: sent.arguments } : undefined;
};

async function throughResponse(c: Case, i: number): Promise<AdapterAnswer> {
  const { request, asked, wrapped } = caseOf(c, i);
  const out = await wrapped.getResponse(request);
  return { sent: sentOf(out.output), reasked: asked.count > 1 };
}

async function throughStream(c: Case, i: number): Promise<AdapterAnswer> {
  const { request, asked, wrapped } = caseOf(c, i);
  let sent: AdapterAnswer['sent'];
  for await (const event of wrapped.getStreamedResponse(request)) if (event.type === 'response_done') sent = sentOf(event.response.output);
  return { sent, reasked: asked.count > 1 };
}

await adapterBench([
  { label: 'agents getResponse', key: 'getResponse', through: throughResponse },
  { label: 'agents streamed', key: 'getStreamedResponse', through: throughStream },
]);
