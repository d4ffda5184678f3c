// The re-ask conformance suite (issue 31): one re-ask policy for every host, checked the same way on each.
// The same scripted answers (test/support/reask-scripts.ts) go through Rebound's gateway (Chat
// Completions, streamed and not), the AI SDK middleware (generateText, streamText), the LangChain
// middleware (wrapModelCall) and the Agents SDK model (getResponse, getStreamedResponse), each driven by
// its own real client over the scripted upstream; what the host hands its caller for one model request
// (the calls, by id and arguments) and what the upstream was asked must be the same everywhere: a valid
// call and a blocked one (only the blocked one re-asked), a call still blocked after the retry (it goes
// out as the model wrote it), a retry repeating a call already out (dropped), a re-ask that fails (the
// answer before it stands), a repair (no re-ask).
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ChatOpenAI } from '@langchain/openai';
import { OpenAIChatCompletionsModel, type ModelRequest, setTracingDisabled, withTrace } from '@openai/agents';
import { generateText, jsonSchema, streamText, tool as aiTool, wrapLanguageModel } from 'ai';
import { tool as lcTool } from 'langchain';
import OpenAI from 'openai';
import { reboundMiddleware as aiSdkMiddleware } from 'rebound-gate/ai-sdk';
import { reboundMiddleware as langchainMiddleware } from 'rebound-gate/langchain';
import { reboundModel } from 'rebound-gate/openai-agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { startGateway } from '../gateway/harness.ts';
import { REASK_CASES, WEATHER_SCHEMA, expectReaskOfBlockedOnly, type HostAnswer } from '../support/reask-scripts.ts';
import { type ChatRequest, type Script, type ScriptedServer, startScriptedOpenAI } from '../support/scripted-openai.ts';

beforeAll(() => setTracingDisabled(true));

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function upstreamFor(script: Script): Promise<ScriptedServer> {
  const upstream = await startScriptedOpenAI(script);
  closers.push(() => upstream.close());
  return upstream;
}

const args = (input: unknown): unknown => (typeof input === 'string' ? JSON.parse(input) : input);

/** One model request through a host: the calls it hands its caller, and the upstream's requests. */
type Host = (script: Script) => Promise<{ answer: HostAnswer; requests: ChatRequest[] }>;

const gateway =
  (stream: boolean): Host =>
  async (script) => {
    // The adapters' default retries (1), so that every host re-asks as often.
    const gw = await startGateway(script, { GATEWAY_RETRIES: '1' });
    closers.push(() => gw.close());
    const body = {
      model: 'scripted-model',
      messages: [{ role: 'user' as const, content: 'Weather in Paris and Rome?' }],
      tools: [{ type: 'function' as const, function: { name: 'get_weather', description: 'The forecast for a city', parameters: WEATHER_SCHEMA } }],
    };
    if (!stream) {
      const r = await gw.openai.chat.completions.create(body);
      const calls = r.choices[0]!.message.tool_calls ?? [];
      return { answer: calls.map((c) => ({ id: c.id, args: args(c.type === 'function' ? c.function.arguments : '') })), requests: gw.upstream.requests };
    }
    const s = gw.openai.chat.completions.stream({ ...body, stream: true });
    const done = await s.finalChatCompletion();
    const calls = done.choices[0]!.message.tool_calls ?? [];
    return { answer: calls.map((c) => ({ id: c.id, args: args(c.type === 'function' ? c.function.arguments : '') })), requests: gw.upstream.requests };
  };

const aiSdk =
  (stream: boolean): Host =>
  async (script) => {
    const upstream = await upstreamFor(script);
    const provider = createOpenAICompatible({ name: 'scripted', baseURL: upstream.url, apiKey: 'sk-test' });
    const model = wrapLanguageModel({ model: provider.chatModel('scripted-model'), middleware: aiSdkMiddleware() });
    // No execute: the SDK hands the calls back after the one model request.
    const tools = { get_weather: aiTool({ description: 'The forecast for a city', inputSchema: jsonSchema(WEATHER_SCHEMA as never) }) };
    const prompt = 'Weather in Paris and Rome?';
    const calls = stream
      ? await streamText({ model, tools, prompt, maxRetries: 0 }).toolCalls
      : (await generateText({ model, tools, prompt, maxRetries: 0 })).toolCalls;
    return { answer: calls.map((c) => ({ id: c.toolCallId, args: args(c.input) })), requests: upstream.requests };
  };

const langchain: Host = async (script) => {
  const upstream = await upstreamFor(script);
  const chat = new ChatOpenAI({ model: 'scripted-model', apiKey: 'sk-test', configuration: { baseURL: upstream.url }, maxRetries: 0 });
  const getWeather = lcTool(async () => 'sunny', {
    name: 'get_weather',
    description: 'The forecast for a city',
    schema: z.object({ city: z.string(), days: z.number().int() }),
  });
  const middleware = langchainMiddleware();
  const request = { model: chat, tools: [getWeather], messages: [{ role: 'user', content: 'Weather in Paris and Rome?' }] };
  const handler = (r: typeof request) => chat.bindTools(r.tools).invoke(r.messages as never);
  // The middleware's own hook, called as createAgent calls it.
  const wrap = middleware.wrapModelCall as unknown as (r: typeof request, h: typeof handler) => Promise<{ tool_calls?: Array<{ id?: string; args: unknown }> }>;
  const message = await wrap(request, handler);
  return { answer: (message.tool_calls ?? []).map((c) => ({ id: c.id ?? '', args: c.args })), requests: upstream.requests };
};

const agents =
  (stream: boolean): Host =>
  async (script) => {
    const upstream = await upstreamFor(script);
    const client = new OpenAI({ baseURL: upstream.url, apiKey: 'sk-test', maxRetries: 0 });
    const model = reboundModel(new OpenAIChatCompletionsModel(client, 'scripted-model'));
    const request: ModelRequest = {
      input: 'Weather in Paris and Rome?',
      modelSettings: {},
      tools: [{ type: 'function', name: 'get_weather', description: 'The forecast for a city', parameters: WEATHER_SCHEMA as never, strict: false }],
      outputType: 'text',
      handoffs: [],
      tracing: false,
    };
    let output: Array<{ type: string; callId?: string; arguments?: string }>;
    // As the Runner calls the model: inside a trace.
    output = await withTrace('conformance', async () => {
      if (!stream) return (await model.getResponse(request)).output as typeof output;
      let done: typeof output = [];
      for await (const event of model.getStreamedResponse(request)) {
        if (event.type === 'response_done') done = event.response.output as typeof output;
      }
      return done;
    });
    const calls = output.filter((i) => i.type === 'function_call');
    return { answer: calls.map((c) => ({ id: c.callId!, args: args(c.arguments) })), requests: upstream.requests };
  };

const HOSTS: Record<string, Host> = {
  'gateway, chat.completions.create': gateway(false),
  'gateway, chat.completions.stream': gateway(true),
  'AI SDK middleware, generateText': aiSdk(false),
  'AI SDK middleware, streamText': aiSdk(true),
  'LangChain middleware, wrapModelCall': langchain,
  'Agents SDK model, getResponse': agents(false),
  'Agents SDK model, getStreamedResponse': agents(true),
};

describe.each(Object.entries(HOSTS))('re-ask conformance: %s', (_name, host) => {
  it.each(REASK_CASES.map((c) => [c.name, c] as const))('%s', async (_case, c) => {
    const { answer, requests } = await host(c.script);
    expect(answer).toEqual(c.answer);
    expect(requests).toHaveLength(c.requests);
    if (c.requests > 1) expectReaskOfBlockedOnly(requests[1]!, c.reasked);
  });
});
