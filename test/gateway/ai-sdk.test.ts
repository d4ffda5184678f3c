// The gateway behind the AI SDK (`ai` 7, `@ai-sdk/openai-compatible` 3): generateText and streamText
// with zod tools that execute. The AI SDK validates every call against the tool's schema before it
// runs it, so a call that reaches `execute` with typed input is a call the client received valid.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText, tool } from 'ai';
import * as z from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { lastToolResult } from '../support/scripted-openai.ts';
import { startGateway, type Gateway } from './harness.ts';

let gw: Gateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

function setup(gateway: Gateway) {
  const provider = createOpenAICompatible({ name: 'rebound', baseURL: gateway.baseURL, apiKey: 'sk-client', includeUsage: true });
  const ran: Array<{ tool: string; input: unknown }> = [];
  const tools = {
    get_weather: tool({
      description: 'The forecast for a city',
      inputSchema: z.object({ city: z.string(), days: z.number().int().optional() }),
      execute: async (input) => {
        ran.push({ tool: 'get_weather', input });
        return { forecast: 'sunny' };
      },
    }),
    search_notes: tool({
      description: 'Search the notes',
      inputSchema: z.object({ query: z.string(), tags: z.array(z.string()).optional(), exact: z.boolean().optional() }),
      execute: async (input) => {
        ran.push({ tool: 'search_notes', input });
        return { hits: 0 };
      },
    }),
  };
  return { model: provider.chatModel('client-model'), tools, ran };
}

describe('the AI SDK through the gateway', () => {
  it('generateText: an invented name, "3" for an integer, a stringified array and "true" arrive valid and run', async () => {
    gw = await startGateway(() => ({
      toolCalls: [
        { id: 'call_1', name: 'GetWeather', arguments: '{"city": "Paris", "days": "3"}' },
        { id: 'call_2', name: 'search_notes', arguments: '{"query": "rain", "tags": "[\\"trip\\"]", "exact": "true"}' },
      ],
    }));
    const { model, tools, ran } = setup(gw);
    const result = await generateText({ model, tools, prompt: 'Weather in Paris?' });
    expect(result.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, input: c.input, invalid: 'invalid' in c ? c.invalid : undefined }))).toEqual([
      { id: 'call_1', name: 'get_weather', input: { city: 'Paris', days: 3 }, invalid: undefined },
      { id: 'call_2', name: 'search_notes', input: { query: 'rain', tags: ['trip'], exact: true }, invalid: undefined },
    ]);
    expect(ran).toEqual([
      { tool: 'get_weather', input: { city: 'Paris', days: 3 } },
      { tool: 'search_notes', input: { query: 'rain', tags: ['trip'], exact: true } },
    ]);
    expect(result.finishReason).toBe('tool-calls');
    expect(gw.app.activity.calls.map((r) => [r.verdict, r.category, r.source])).toEqual([
      ['repaired', 'phantom_tool', 'gateway'],
      ['repaired', 'wrong_type', 'gateway'],
    ]);
  });

  it('generateText: a call written into the text becomes a tool call the SDK runs', async () => {
    gw = await startGateway(() => ({ text: '{"name": "get_weather", "arguments": {"city": "Quito"}}' }));
    const { model, tools, ran } = setup(gw);
    const result = await generateText({ model, tools, prompt: 'Weather in Quito?' });
    expect(result.toolCalls.map((c) => [c.toolName, c.input])).toEqual([['get_weather', { city: 'Quito' }]]);
    expect(ran).toEqual([{ tool: 'get_weather', input: { city: 'Quito' } }]);
    expect(result.text).toBe('');
    expect(result.finishReason).toBe('tool-calls');
  });

  it('streamText: text streams, a blocked call is re-asked with the gate message, the corrected call runs', async () => {
    gw = await startGateway((_req, i) =>
      i === 0
        ? {
            text: 'Let me look that up.',
            toolCalls: [{ id: 'call_bad', name: 'get_weather', arguments: '{"location": "Paris"}' }],
            usage: { prompt_tokens: 30, completion_tokens: 5 },
          }
        : { toolCalls: [{ id: 'call_good', name: 'get_weather', arguments: '{"city": "Paris"}' }], usage: { prompt_tokens: 40, completion_tokens: 6 } },
    );
    const { model, tools, ran } = setup(gw);
    const result = streamText({ model, tools, prompt: 'Weather in Paris?' });
    const deltas: string[] = [];
    for await (const part of result.fullStream) if (part.type === 'text-delta') deltas.push(part.text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Let me look that up.');
    const calls = await result.toolCalls;
    expect(calls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([['call_good', 'get_weather', { city: 'Paris' }]]);
    expect(ran).toEqual([{ tool: 'get_weather', input: { city: 'Paris' } }]);
    expect(await result.finishReason).toBe('tool-calls');
    expect((await result.usage).inputTokens).toBe(70);
    const sentBack = lastToolResult(gw.upstream.requests[1]!) as { ok: boolean; error: string };
    expect(sentBack.ok).toBe(false);
    expect(sentBack.error).toMatch(/location/);
  });

  it('streamText: an answer that stays invalid reaches the client unchanged (and the SDK reports it invalid)', async () => {
    gw = await startGateway(() => ({ toolCalls: [{ id: 'call_never', name: 'get_weather', arguments: '{"days": 2}' }] }), { GATEWAY_RETRIES: '1' });
    const { model, tools, ran } = setup(gw);
    const result = streamText({ model, tools, prompt: 'Weather?' });
    await result.consumeStream();
    const calls = await result.toolCalls;
    expect(calls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([['call_never', 'get_weather', { days: 2 }]]);
    expect(calls[0]).toMatchObject({ invalid: true });
    expect(ran).toEqual([]);
    expect(gw.upstream.requests).toHaveLength(2);
  });
});
