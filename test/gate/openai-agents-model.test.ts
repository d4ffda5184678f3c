// rebound-gate/openai-agents against the OpenAI Agents SDK itself (`@openai/agents`: Agent, run, Runner,
// OpenAIChatCompletionsModel and OpenAIProvider over the `openai` client) and the scripted upstream on
// loopback, tracing off: a zod tool that records what it ran. Each case also runs without the adapter,
// where the SDK's own handling shows (it stops on an unknown tool, and tells the model only "An error
// occurred while running the tool"), so what the test measures is the adapter.
import {
  Agent,
  MaxTurnsExceededError,
  ModelBehaviorError,
  type Model,
  OpenAIChatCompletionsModel,
  OpenAIProvider,
  Runner,
  run,
  setTracingDisabled,
  tool,
} from '@openai/agents';
import OpenAI from 'openai';
import { reboundModel, reboundModelProvider } from 'rebound-gate/openai-agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { expectReaskOfBlockedOnly, validAndBlocked } from '../support/reask-scripts.ts';
import { type ChatRequest, type Script, type ScriptedServer, startScriptedOpenAI } from '../support/scripted-openai.ts';

beforeAll(() => setTracingDisabled(true));

let upstream: ScriptedServer | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function setup(script: Script, adapter: boolean) {
  await upstream?.close();
  upstream = await startScriptedOpenAI(script);
  const client = new OpenAI({ baseURL: upstream.url, apiKey: 'sk-test', maxRetries: 0 });
  const base: Model = new OpenAIChatCompletionsModel(client, 'scripted-model');
  const ran: unknown[] = [];
  const getWeather = tool({
    name: 'get_weather',
    description: 'The forecast for a city',
    parameters: z.object({ city: z.string(), days: z.number().int() }),
    execute: async (input) => {
      ran.push(input);
      return 'sunny';
    },
  });
  const agent = new Agent({ name: 'weather', instructions: 'Answer with the forecast.', model: adapter ? reboundModel(base) : base, tools: [getWeather] });
  return { agent, ran, client, getWeather, requests: upstream.requests };
}

/** One run of the agent, streamed (read to its end) or not. */
async function runTurn(agent: Agent, input: string, stream: boolean) {
  if (!stream) return run(agent, input);
  const r = await run(agent, input, { stream: true });
  for await (const _ of r);
  await r.completed;
  return r;
}

/** What the model was told of its last call, as the SDK sent it. */
const told = (req: ChatRequest) => [...req.messages].reverse().find((m) => m.role === 'tool')?.content ?? undefined;
/** A model that answers once the tool ran, and otherwise makes `call`. */
const until =
  (call: { name: string; arguments: string }): Script =>
  (req) =>
    told(req) === 'sunny' ? { text: 'Sunny.' } : { toolCalls: [{ id: 'call_1', ...call }] };

const threeAsText = until({ name: 'get_weather', arguments: '{"city":"Paris","days":"3"}' });
const misspelt = until({ name: 'get_wether', arguments: '{"city":"Paris","days":2}' });
/** A model that fixes its call only when told what is wrong with it: the gate's message names `days`. */
const missingUntilTold: Script = (req) => {
  const last = told(req);
  if (last === 'sunny') return { text: 'Sunny.' };
  if (last?.includes('days')) return { toolCalls: [{ id: 'call_2', name: 'get_weather', arguments: '{"city":"Paris","days":1}' }] };
  return { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] };
};

describe('rebound-gate/openai-agents: reboundModel', () => {
  it('"3" for an integer is repaired under the same call id and the tool runs; without it the tool never runs', async () => {
    let s = await setup(threeAsText, true);
    let r = await run(s.agent, 'Weather in Paris?');
    expect(s.ran).toEqual([{ city: 'Paris', days: 3 }]);
    expect(r.finalOutput).toBe('Sunny.');
    const sent = s.requests[1]!.messages.find((m) => m.role === 'assistant')?.tool_calls;
    expect(sent).toEqual([{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","days":3}' } }]);

    s = await setup(threeAsText, false);
    r = await run(s.agent, 'Weather in Paris?', { maxTurns: 3 }).catch((e: unknown) => e as never);
    expect(r).toBeInstanceOf(MaxTurnsExceededError);
    expect(s.ran).toEqual([]);
    expect(told(s.requests[1]!)).toBe('An error occurred while running the tool. Please try again.');
  });

  it('a misspelt tool name is repaired; without it the SDK stops the run', async () => {
    let s = await setup(misspelt, true);
    const r = await run(s.agent, 'Weather in Paris?');
    expect(s.ran).toEqual([{ city: 'Paris', days: 2 }]);
    expect(r.finalOutput).toBe('Sunny.');

    s = await setup(misspelt, false);
    const e = await run(s.agent, 'Weather in Paris?').catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ModelBehaviorError);
    expect(String(e)).toContain('Tool get_wether not found');
    expect(s.ran).toEqual([]);
  });

  it('a call missing a required argument is re-asked with the gate message and the fixed call runs; without it the model is never told', async () => {
    let s = await setup(missingUntilTold, true);
    const r = await run(s.agent, 'Weather in Paris?');
    expect(s.ran).toEqual([{ city: 'Paris', days: 1 }]);
    expect(r.finalOutput).toBe('Sunny.');
    // The re-ask is the second request: the blocked call, then the gate's message as its result.
    const reask = s.requests[1]!.messages;
    expect(reask.find((m) => m.role === 'assistant')?.tool_calls).toMatchObject([{ id: 'call_1', function: { arguments: '{"city":"Paris"}' } }]);
    const result = reask.find((m) => m.role === 'tool');
    expect(result?.tool_call_id).toBe('call_1');
    expect(JSON.parse(result!.content!)).toMatchObject({ ok: false, error: expect.stringContaining('days') });
    // The agent's history holds the fixed call only, and the turn's usage counts all three requests.
    expect(r.newItems.filter((i) => i.type === 'tool_call_item').map((i) => (i.rawItem as { callId: string }).callId)).toEqual(['call_2']);
    expect(s.requests).toHaveLength(3);
    expect(r.state.usage.requests).toBe(3);

    s = await setup(missingUntilTold, false);
    const e = await run(s.agent, 'Weather in Paris?', { maxTurns: 3 }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(MaxTurnsExceededError);
    expect(s.ran).toEqual([]);
  });

  it('streamed: the held response_done goes out repaired, a blocked call is re-asked, the stream shows the repaired call', async () => {
    for (const [script, ran] of [
      [misspelt, { city: 'Paris', days: 2 }],
      [threeAsText, { city: 'Paris', days: 3 }],
      [missingUntilTold, { city: 'Paris', days: 1 }],
    ] as const) {
      const s = await setup(script, true);
      const r = await run(s.agent, 'Weather in Paris?', { stream: true });
      const called: string[] = [];
      for await (const event of r) {
        if (event.type === 'run_item_stream_event' && event.name === 'tool_called') called.push((event.item.rawItem as { name: string }).name);
      }
      await r.completed;
      expect(r.error).toBeNull();
      expect(s.ran).toEqual([ran]);
      expect(called).toEqual(['get_weather']);
      expect(r.finalOutput).toBe('Sunny.');
      expect(r.state.usage.requests).toBe(s.requests.length);
    }
    const s = await setup(misspelt, false);
    const r = await run(s.agent, 'Weather in Paris?', { stream: true });
    const e = await (async () => {
      for await (const _ of r);
      await r.completed;
      return r.error;
    })().catch((err: unknown) => err);
    expect(String(e)).toContain('Tool get_wether not found');
    expect(s.ran).toEqual([]);
  });

  it('an answer with a valid call and a blocked one: the valid one runs once, the re-ask names only the blocked one (as the gateway asks), streamed or not', async () => {
    for (const stream of [false, true]) {
      const s = await setup(validAndBlocked, true);
      const r = await runTurn(s.agent, 'Weather in Paris and Rome?', stream);
      expect(s.ran).toEqual([
        { city: 'Paris', days: 2 },
        { city: 'Rome', days: 1 },
      ]);
      expect(r.finalOutput).toBe('Sunny.');
      expectReaskOfBlockedOnly(s.requests[1]!);
      expect(r.newItems.filter((i) => i.type === 'tool_call_item').map((i) => (i.rawItem as { callId: string }).callId)).toEqual(['call_a', 'call_c']);
      expect(s.requests).toHaveLength(3);
      expect(r.state.usage.requests).toBe(3);
    }
  });

  it('a handoff call passes untouched and a misspelt one is repaired: the other agent answers; without it the misspelt one stops the run', async () => {
    const handingOff =
      (name: string): Script =>
      (req) =>
        req.messages.some((m) => m.role === 'tool') ? { text: 'Forecaster here.' } : { toolCalls: [{ id: 'call_1', name, arguments: '{}' }] };
    const triage = (agent: Agent) => agent.clone({ handoffs: [new Agent({ name: 'forecaster', model: agent.model })] });
    for (const name of ['transfer_to_forecaster', 'transfer_to_forcaster']) {
      const s = await setup(handingOff(name), true);
      const r = await run(triage(s.agent), 'Weather in Paris?');
      expect(r.lastAgent?.name).toBe('forecaster');
      expect(r.finalOutput).toBe('Forecaster here.');
      expect(s.requests).toHaveLength(2);
    }
    const s = await setup(handingOff('transfer_to_forcaster'), false);
    const e = await run(triage(s.agent), 'Weather in Paris?').catch((err: unknown) => err);
    expect(String(e)).toContain('Tool transfer_to_forcaster not found');
  });

  it('a call still blocked after the re-ask goes out as the model gave it: the SDK does what it does without the adapter', async () => {
    const phantom: Script = () => ({ toolCalls: [{ id: 'call_1', name: 'lookup_everything', arguments: '{}' }] });
    let s = await setup(phantom, true);
    let e = await run(s.agent, 'Weather in Paris?').catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ModelBehaviorError);
    expect(String(e)).toContain('Tool lookup_everything not found');
    expect(s.requests).toHaveLength(2);
    expect(JSON.parse(told(s.requests[1]!)!)).toMatchObject({ ok: false, error: expect.stringContaining('lookup_everything') });

    s = await setup(phantom, false);
    e = await run(s.agent, 'Weather in Paris?').catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ModelBehaviorError);
    expect(String(e)).toContain('Tool lookup_everything not found');
    expect(s.requests).toHaveLength(1);
  });

  it('a re-ask that fails leaves the answer as it stood: the blocked call goes out as written, streamed or not', async () => {
    const failing: Script = (_req, i) => {
      if (i === 0) return { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] };
      if (i === 1) return { status: 500 };
      return { text: 'Sunny.' };
    };
    for (const stream of [false, true]) {
      const s = await setup(failing, true);
      const r = await runTurn(s.agent, 'Weather in Paris?', stream);
      expect(s.ran).toEqual([]);
      expect(r.finalOutput).toBe('Sunny.');
      // The SDK ran its own handling of the call as the model wrote it, and told the model so.
      expect(s.requests).toHaveLength(3);
      expect(told(s.requests[2]!)).toBe('An error occurred while running the tool. Please try again.');
    }
  });

  it('a call written into the text becomes a function call, the text without it kept, streamed or not; without it, only text', async () => {
    const inText: Script = (req) =>
      told(req) === 'sunny'
        ? { text: 'Sunny.' }
        : { text: 'Let me check.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": "2"}}</tool_call>' };
    let s = await setup(inText, true);
    const r = await run(s.agent, 'Weather in Paris?');
    expect(s.ran).toEqual([{ city: 'Paris', days: 2 }]);
    expect(r.finalOutput).toBe('Sunny.');
    const asked = s.requests[1]!.messages.find((m) => m.role === 'assistant');
    expect(asked?.content).toEqual([{ type: 'text', text: expect.stringMatching(/^Let me check\.\s*$/) }]);
    expect(asked?.tool_calls).toMatchObject([
      { id: expect.stringMatching(/^call_text_/), function: { name: 'get_weather', arguments: '{"city":"Paris","days":2}' } },
    ]);

    s = await setup(inText, true);
    const streamed = await run(s.agent, 'Weather in Paris?', { stream: true });
    let shown = '';
    for await (const text of streamed.toTextStream()) shown += text;
    await streamed.completed;
    expect(s.ran).toEqual([{ city: 'Paris', days: 2 }]);
    expect(shown).not.toContain('tool_call');
    expect(shown).toContain('Let me check.');
    expect(streamed.finalOutput).toBe('Sunny.');

    s = await setup(inText, false);
    const without = await run(s.agent, 'Weather in Paris?');
    expect(s.ran).toEqual([]);
    expect(without.finalOutput).toContain('<tool_call>');
  });

  it('reboundModelProvider: a Runner whose agent names its model gets the gated model', async () => {
    const s = await setup(threeAsText, false);
    const provider = new OpenAIProvider({ openAIClient: s.client, useResponses: false });
    const runner = new Runner({ modelProvider: reboundModelProvider(provider), tracingDisabled: true });
    const agent = new Agent({ name: 'weather', model: 'scripted-model', tools: [s.getWeather] });
    const r = await runner.run(agent, 'Weather in Paris?');
    expect(s.ran).toEqual([{ city: 'Paris', days: 3 }]);
    expect(r.finalOutput).toBe('Sunny.');
    expect(s.requests[0]!.model).toBe('scripted-model');
  });
});
