// rebound-gate/langchain against LangChain.js itself (`langchain` createAgent, `@langchain/openai`'s
// ChatOpenAI) and the scripted upstream: zod tools that record what they ran. Each case also runs
// without the middleware, where LangChain's own tool-input error reaches the model instead.
import { ChatOpenAI } from '@langchain/openai';
import { AIMessage, createAgent, tool } from 'langchain';
import { reboundMiddleware } from 'rebound-gate/langchain';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { expectReaskOfBlockedOnly, validAndBlocked } from '../support/reask-scripts.ts';
import { type Script, type ScriptedServer, startScriptedOpenAI } from '../support/scripted-openai.ts';

let upstream: ScriptedServer | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function run(script: Script, middleware: boolean, retries?: number) {
  upstream = await startScriptedOpenAI(script);
  const ran: unknown[] = [];
  const getWeather = tool(
    async (input) => {
      ran.push(input);
      return 'sunny';
    },
    { name: 'get_weather', description: 'The forecast for a city', schema: z.object({ city: z.string(), days: z.number().int() }) },
  );
  const model = new ChatOpenAI({ model: 'scripted-model', apiKey: 'sk-test', configuration: { baseURL: upstream.url }, maxRetries: 0 });
  const agent = createAgent({ model, tools: [getWeather], middleware: middleware ? [reboundMiddleware({ retries })] : [] });
  const result = await agent.invoke({ messages: [{ role: 'user', content: 'Weather in Paris?' }] });
  return { ran, result, requests: upstream.requests };
}

const done = (req: { messages: Array<{ role: string }> }) => req.messages.some((m) => m.role === 'tool');

describe('rebound-gate/langchain: reboundMiddleware', () => {
  it('"3" for an integer is repaired and the tool runs; without it LangChain refuses the input', async () => {
    const script: Script = (req) =>
      done(req) ? { text: 'Sunny.' } : { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris","days":"3"}' }] };
    const withGate = await run(script, true);
    expect(withGate.ran).toEqual([{ city: 'Paris', days: 3 }]);
    await upstream!.close();
    const without = await run(script, false);
    expect(without.ran).toEqual([]);
  });

  it('a misspelt tool name is repaired; without it the agent tells the model there is no such tool', async () => {
    const script: Script = (req) =>
      done(req) ? { text: 'Sunny.' } : { toolCalls: [{ id: 'call_1', name: 'get_wether', arguments: '{"city":"Paris","days":2}' }] };
    const withGate = await run(script, true);
    expect(withGate.ran).toEqual([{ city: 'Paris', days: 2 }]);
    await upstream!.close();
    const without = await run(script, false);
    expect(without.ran).toEqual([]);
  });

  it('a call missing a required argument is re-asked with the gate error as a ToolMessage, and the fixed call runs', async () => {
    const script: Script = (_req, i) => {
      if (i === 0) return { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] };
      if (i === 1) return { toolCalls: [{ id: 'call_2', name: 'get_weather', arguments: '{"city":"Paris","days":1}' }] };
      return { text: 'Sunny.' };
    };
    const withGate = await run(script, true);
    expect(withGate.ran).toEqual([{ city: 'Paris', days: 1 }]);
    const told = withGate.requests[1]!.messages.find((m) => m.role === 'tool');
    expect(told?.tool_call_id).toBe('call_1');
    expect(JSON.parse(told!.content!)).toMatchObject({ ok: false, error: expect.stringContaining('days') });
  });

  it('an answer with a valid call and a blocked one: the valid one runs once, the re-ask names only the blocked one (as the gateway asks)', async () => {
    const { ran, requests } = await run(validAndBlocked, true);
    expect(ran).toHaveLength(2);
    expect(ran).toEqual(
      expect.arrayContaining([
        { city: 'Paris', days: 2 },
        { city: 'Rome', days: 1 },
      ]),
    );
    expectReaskOfBlockedOnly(requests[1]!);
    // The agent's next request answers both calls that ran, under their ids: call_a from the first answer, call_c from the retry.
    const results = requests[2]!.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    expect(results.sort()).toEqual(['call_a', 'call_c']);
    expect(requests).toHaveLength(3);
  });

  it('a re-ask that fails leaves the answer as it stood: the blocked call goes on as written and LangChain tells the model its own error', async () => {
    const failing: Script = (_req, i) => {
      if (i === 0) return { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] };
      if (i === 1) return { status: 500 };
      return { text: 'Sunny.' };
    };
    const { ran, result, requests } = await run(failing, true);
    expect(ran).toEqual([]);
    expect(requests).toHaveLength(3);
    // The third request is the agent's own next step: the call as the model wrote it, LangChain's error as its result.
    const told = requests[2]!.messages.find((m) => m.role === 'tool');
    expect(told?.tool_call_id).toBe('call_1');
    expect(told?.content).not.toContain('"ok":false');
    expect(result.messages.at(-1)?.content).toBe('Sunny.');
  });

  it('a call written into the text in a calling form is taken as the other adapters take it: repaired, run, the text kept without it', async () => {
    const script: Script = (req) =>
      done(req) ? { text: 'Sunny.' } : { text: 'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": "3"}}\n</tool_call>' };
    const { ran, result } = await run(script, true);
    expect(ran).toEqual([{ city: 'Paris', days: 3 }]);
    const asked = result.messages.find((m) => AIMessage.isInstance(m) && (m.tool_calls ?? []).length > 0) as AIMessage;
    expect(asked.content).toBe('Checking.');
    expect(asked.tool_calls?.[0]).toMatchObject({ name: 'get_weather', args: { city: 'Paris', days: 3 }, id: expect.stringMatching(/^call_text_/) });
    expect(result.messages.at(-1)?.content).toBe('Sunny.');
    // Without the middleware LangChain reads no call from text: the answer is the text.
    await upstream!.close();
    const without = await run(script, false);
    expect(without.ran).toEqual([]);
  });

  it('a blocked call in the text is re-asked like any call; with no retry left the answer stays text and nothing runs', async () => {
    const missing = 'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
    const script: Script = (_req, i) => {
      if (i === 0) return { text: missing };
      if (i === 1) return { toolCalls: [{ id: 'call_2', name: 'get_weather', arguments: '{"city":"Paris","days":1}' }] };
      return { text: 'Sunny.' };
    };
    const withRetry = await run(script, true);
    expect(withRetry.ran).toEqual([{ city: 'Paris', days: 1 }]);
    const reask = withRetry.requests[1]!.messages;
    expect(reask.find((m) => m.role === 'assistant')?.content).toBe('Checking.');
    const told = reask.find((m) => m.role === 'tool');
    expect(told?.tool_call_id).toMatch(/^call_text_/);
    expect(JSON.parse(told!.content!)).toMatchObject({ ok: false, error: expect.stringContaining('days') });
    await upstream!.close();
    const noRetry = await run(() => ({ text: missing }), true, 0);
    expect(noRetry.ran).toEqual([]);
    expect(noRetry.requests).toHaveLength(1);
    expect(noRetry.result.messages.at(-1)?.content).toBe(missing);
  });
});
