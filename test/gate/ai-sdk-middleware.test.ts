// rebound-gate/ai-sdk against the AI SDK itself (`ai` 7, `@ai-sdk/openai-compatible`) and the scripted
// upstream: generateText and streamText with zod tools that execute. Each case runs the same request
// without the middleware too, and expects the AI SDK's own invalid-call result there, so what the
// test measures is the middleware.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText, tool, wrapLanguageModel } from 'ai';
import { reboundMiddleware, reboundRepairToolCall } from 'rebound-gate/ai-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { expectReaskOfBlockedOnly, validAndBlocked } from '../support/reask-scripts.ts';
import { type Script, type ScriptedServer, startScriptedOpenAI } from '../support/scripted-openai.ts';

let upstream: ScriptedServer | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function setup(script: Script, middleware: boolean) {
  upstream = await startScriptedOpenAI(script);
  const provider = createOpenAICompatible({ name: 'scripted', baseURL: upstream.url, apiKey: 'sk-test' });
  const base = provider.chatModel('scripted-model');
  const model = middleware ? wrapLanguageModel({ model: base, middleware: reboundMiddleware() }) : base;
  const ran: unknown[] = [];
  const tools = {
    get_weather: tool({
      description: 'The forecast for a city',
      inputSchema: z.object({ city: z.string(), days: z.number().int() }),
      execute: async (input) => {
        ran.push(input);
        return { forecast: 'sunny' };
      },
    }),
  };
  return { model, tools, ran };
}

const calls = (r: { toolCalls: Array<{ toolCallId: string; toolName: string; input: unknown }> }) =>
  r.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, input: c.input, invalid: 'invalid' in c ? c.invalid : undefined }));

const threeAsText: Script = () => ({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris","days":"3"}' }] });
const misspelt: Script = () => ({ toolCalls: [{ id: 'call_1', name: 'get_wether', arguments: '{"city":"Paris","days":2}' }] });
const missingThenFixed: Script = (req) =>
  req.messages.some((m) => m.role === 'tool')
    ? { toolCalls: [{ id: 'call_2', name: 'get_weather', arguments: '{"city":"Paris","days":1}' }] }
    : { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] };

describe('rebound-gate/ai-sdk: reboundMiddleware', () => {
  it('generateText: "3" for an integer is repaired under the same id and runs; without it the AI SDK reports the call invalid', async () => {
    let s = await setup(threeAsText, true);
    let r = await generateText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    expect(calls(r)).toEqual([{ id: 'call_1', name: 'get_weather', input: { city: 'Paris', days: 3 }, invalid: undefined }]);
    expect(s.ran).toEqual([{ city: 'Paris', days: 3 }]);
    await upstream!.close();
    s = await setup(threeAsText, false);
    r = await generateText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    expect(calls(r)[0]).toMatchObject({ id: 'call_1', invalid: true });
    expect(s.ran).toEqual([]);
  });

  it('streamText: the held call is emitted repaired; without it the AI SDK reports it invalid', async () => {
    let s = await setup(threeAsText, true);
    let r = streamText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    expect(calls({ toolCalls: await r.toolCalls })).toEqual([{ id: 'call_1', name: 'get_weather', input: { city: 'Paris', days: 3 }, invalid: undefined }]);
    expect(s.ran).toEqual([{ city: 'Paris', days: 3 }]);
    await upstream!.close();
    s = await setup(threeAsText, false);
    r = streamText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    expect((await r.toolCalls)[0]).toMatchObject({ toolCallId: 'call_1', invalid: true });
    expect(s.ran).toEqual([]);
  });

  it('a misspelt tool name is repaired; without it the AI SDK has no such tool', async () => {
    let s = await setup(misspelt, true);
    let r = await generateText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    expect(calls(r)).toEqual([{ id: 'call_1', name: 'get_weather', input: { city: 'Paris', days: 2 }, invalid: undefined }]);
    await upstream!.close();
    s = await setup(misspelt, false);
    r = await generateText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    expect(calls(r)[0]).toMatchObject({ name: 'get_wether', invalid: true });
  });

  it('streamText: a misspelt tool name is repaired under the same id and runs; without it the AI SDK has no such tool', async () => {
    let s = await setup(misspelt, true);
    let r = streamText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    expect(calls({ toolCalls: await r.toolCalls })).toEqual([{ id: 'call_1', name: 'get_weather', input: { city: 'Paris', days: 2 }, invalid: undefined }]);
    expect(s.ran).toEqual([{ city: 'Paris', days: 2 }]);
    await upstream!.close();
    s = await setup(misspelt, false);
    r = streamText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    expect(calls({ toolCalls: await r.toolCalls })[0]).toMatchObject({ name: 'get_wether', invalid: true });
    expect(s.ran).toEqual([]);
  });

  it('a call missing a required argument is re-asked with the gate message and the fixed call runs', async () => {
    let s = await setup(missingThenFixed, true);
    let r = await generateText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    expect(calls(r)).toEqual([{ id: 'call_2', name: 'get_weather', input: { city: 'Paris', days: 1 }, invalid: undefined }]);
    expect(s.ran).toEqual([{ city: 'Paris', days: 1 }]);
    expect(r.usage).toMatchObject({ inputTokens: 200, outputTokens: 40 });
    expect(upstream!.requests).toHaveLength(2);
    const told = upstream!.requests[1]!.messages.find((m) => m.role === 'tool');
    expect(told?.tool_call_id).toBe('call_1');
    expect(JSON.parse(told!.content!)).toMatchObject({ ok: false, error: expect.stringContaining('days') });
    await upstream!.close();
    s = await setup(missingThenFixed, false);
    r = await generateText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    expect(calls(r)[0]).toMatchObject({ id: 'call_1', invalid: true });
    expect(upstream!.requests).toHaveLength(1);
  });

  it('a call written into the text becomes a real tool call, the text without it kept; without it, only text', async () => {
    const inText: Script = (req) =>
      req.messages.some((m) => m.role === 'tool')
        ? { text: 'Done.' }
        : { text: 'Let me check.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}</tool_call>' };
    let s = await setup(inText, true);
    let r = await generateText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    expect(r.steps[0]!.toolCalls.map((c) => ({ name: c.toolName, input: c.input }))).toEqual([{ name: 'get_weather', input: { city: 'Paris', days: 2 } }]);
    expect(r.steps[0]!.text.trim()).toBe('Let me check.');
    expect(s.ran).toEqual([{ city: 'Paris', days: 2 }]);
    await upstream!.close();
    s = await setup(inText, false);
    r = await generateText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    expect(r.toolCalls).toEqual([]);
    expect(s.ran).toEqual([]);
  });

  it('streamText: a call missing a required argument is re-asked for, the fixed call runs; without it the AI SDK reports it invalid', async () => {
    let s = await setup(missingThenFixed, true);
    let r = streamText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    expect(calls({ toolCalls: await r.toolCalls })).toEqual([{ id: 'call_2', name: 'get_weather', input: { city: 'Paris', days: 1 }, invalid: undefined }]);
    expect(s.ran).toEqual([{ city: 'Paris', days: 1 }]);
    expect(await r.finishReason).toBe('tool-calls');
    // Both answers' tokens (100 in, 20 out each, as the scripted upstream reports them).
    expect(await r.usage).toMatchObject({ inputTokens: 200, outputTokens: 40 });
    // The re-ask, as the gateway sends it: the blocked call as the model wrote it, then the gate's message as its result.
    expect(upstream!.requests).toHaveLength(2);
    const [assistant, told] = upstream!.requests[1]!.messages.slice(-2);
    expect(assistant).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_1', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] });
    expect(told).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
    expect(JSON.parse(told!.content!)).toMatchObject({ ok: false, error: expect.stringContaining('days') });
    // The blocked call never reached the AI SDK: one call, the fixed one.
    const parts = [];
    for await (const p of r.fullStream) parts.push(p);
    expect(parts.filter((p) => p.type === 'tool-call').map((p) => p.toolCallId)).toEqual(['call_2']);
    await upstream!.close();
    s = await setup(missingThenFixed, false);
    r = streamText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    expect(calls({ toolCalls: await r.toolCalls })[0]).toMatchObject({ id: 'call_1', invalid: true });
    expect(s.ran).toEqual([]);
    expect(upstream!.requests).toHaveLength(1);
  });

  it('an answer with a valid call and a blocked one: the valid one runs once, the re-ask names only the blocked one (as the gateway asks), for generateText and streamText', async () => {
    for (const stream of [false, true]) {
      const s = await setup(validAndBlocked, true);
      const toolCalls = stream
        ? await streamText({ model: s.model, tools: s.tools, prompt: 'Weather?' }).toolCalls
        : (await generateText({ model: s.model, tools: s.tools, prompt: 'Weather?' })).toolCalls;
      expect(calls({ toolCalls })).toEqual([
        { id: 'call_a', name: 'get_weather', input: { city: 'Paris', days: 2 }, invalid: undefined },
        { id: 'call_c', name: 'get_weather', input: { city: 'Rome', days: 1 }, invalid: undefined },
      ]);
      expect(s.ran).toEqual([
        { city: 'Paris', days: 2 },
        { city: 'Rome', days: 1 },
      ]);
      expectReaskOfBlockedOnly(upstream!.requests[1]!);
      await upstream!.close();
    }
  });

  it('streamText: a call still blocked after the re-ask goes out as the model wrote it (the AI SDK reports it, as without the middleware)', async () => {
    const stillMissing: Script = () => ({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] });
    const s = await setup(stillMissing, true);
    const r = streamText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    expect((await r.toolCalls).map((c) => ({ id: c.toolCallId, input: c.input, invalid: c.invalid }))).toEqual([
      { id: 'call_1', input: { city: 'Paris' }, invalid: true },
    ]);
    expect(s.ran).toEqual([]);
    expect(upstream!.requests).toHaveLength(2);
  });

  it('streamText: a re-ask that fails (an error status, a stream that breaks) leaves the answer as the model gave it', async () => {
    const failing = [{ status: 500 }, { garbledAfter: 'Let me' }] as const;
    for (const failure of failing) {
      const s = await setup((_req, i) => (i === 0 ? { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] } : failure), true);
      const r = streamText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
      const parts = [];
      for await (const p of r.fullStream) parts.push(p);
      expect(parts.filter((p) => p.type === 'error')).toEqual([]);
      expect((await r.toolCalls).map((c) => ({ id: c.toolCallId, invalid: c.invalid }))).toEqual([{ id: 'call_1', invalid: true }]);
      expect(await r.finishReason).toBe('tool-calls');
      expect(upstream!.requests).toHaveLength(2);
      await upstream!.close();
    }
  });

  it('streamText: a call written into the text becomes a tool call, the text shown up to it and never the call; without it, only text', async () => {
    const inText: Script = () => ({
      text: 'Let me check the forecast.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": "2"}}</tool_call>',
    });
    let s = await setup(inText, true);
    let r = streamText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    const shown: string[] = [];
    for await (const p of r.fullStream) if (p.type === 'text-delta') shown.push(p.text);
    expect(shown.join('').trim()).toBe('Let me check the forecast.');
    expect(shown.length).toBeGreaterThan(1); // the text before the call went out as it came, word by word
    const [call] = await r.toolCalls;
    expect(call).toMatchObject({ toolName: 'get_weather', input: { city: 'Paris', days: 2 } });
    expect(call!.toolCallId).toMatch(/^call_text_/);
    expect(s.ran).toEqual([{ city: 'Paris', days: 2 }]);
    expect(await r.finishReason).toBe('tool-calls');
    await upstream!.close();
    s = await setup(inText, false);
    r = streamText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    expect(await r.text).toContain('<tool_call>');
    expect(await r.toolCalls).toEqual([]);
    expect(s.ran).toEqual([]);
  });

  it('streamText: a call written into the text that is blocked is re-asked like any call, and never shown', async () => {
    const blockedInText: Script = (req) =>
      req.messages.some((m) => m.role === 'tool')
        ? { toolCalls: [{ id: 'call_2', name: 'get_weather', arguments: '{"city":"Paris","days":1}' }] }
        : { text: 'Let me check.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>' };
    const s = await setup(blockedInText, true);
    const r = streamText({ model: s.model, tools: s.tools, prompt: 'Weather?' });
    let shown = '';
    for await (const p of r.fullStream) if (p.type === 'text-delta') shown += p.text;
    expect(shown.trim()).toBe('Let me check.');
    expect(calls({ toolCalls: await r.toolCalls })).toEqual([{ id: 'call_2', name: 'get_weather', input: { city: 'Paris', days: 1 }, invalid: undefined }]);
    expect(s.ran).toEqual([{ city: 'Paris', days: 1 }]);
    const [assistant, told] = upstream!.requests[1]!.messages.slice(-2);
    expect(assistant).toMatchObject({ role: 'assistant', tool_calls: [{ function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] });
    expect(assistant!.content?.trim()).toBe('Let me check.');
    expect(told).toMatchObject({ role: 'tool', tool_call_id: expect.stringMatching(/^call_text_/) });
    expect(JSON.parse(told!.content!)).toMatchObject({ ok: false, error: expect.stringContaining('days') });
  });

  it('reboundRepairToolCall, as experimental_repairToolCall, repairs what the AI SDK found invalid', async () => {
    const s = await setup(threeAsText, false);
    const r = await generateText({ model: s.model, tools: s.tools, prompt: 'Weather?', experimental_repairToolCall: reboundRepairToolCall });
    expect(calls(r)).toEqual([{ id: 'call_1', name: 'get_weather', input: { city: 'Paris', days: 3 }, invalid: undefined }]);
    expect(s.ran).toEqual([{ city: 'Paris', days: 3 }]);
  });
});
