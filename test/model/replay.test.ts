// Recorded real provider streams (../shared/bench/openai-streams) replayed byte for byte through
// the scripted server into our adapter (src/model/openai.ts, plain fetch). Expected calls and text are
// read from the recordings independently of the assembler: the text is every delta.content of
// choice 0 joined; the calls are checked against the index's counts and must parse as JSON.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { OpenAIModel } from '../../src/model/openai.ts';
import type { ModelEvent } from '../../src/model/types.ts';
import { streamsDir } from '../support/shared.ts';

interface IndexEntry {
  name: string;
  file: string;
  contains: { tool_calls: number; parallel_tool_calls: boolean; usage_chunk: boolean; text: boolean; choices: number };
}

const dir = streamsDir();
const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as IndexEntry[];
let current = '';
let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedOpenAI(() => ({ raw: current }));
});
afterAll(() => server.close());

async function replay(raw: string) {
  current = raw;
  const model = new OpenAIModel({ apiKey: 'sk-replay', baseURL: server.url, model: 'replay' });
  const events: ModelEvent[] = [];
  for await (const e of model.stream({ messages: [{ role: 'user', content: 'x' }], tools: [], toolChoice: 'auto', signal: new AbortController().signal }))
    events.push(e);
  const finish = events.at(-1)!;
  if (finish.type !== 'finish') throw new Error('no finish event');
  return { text: events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join(''), finish };
}

/**
 * The text and the raw argument pieces per call, straight from the recorded chunks. A call is an
 * index, or a new id under a used index; a repeat identical to its original is not a call (Cerebras).
 */
function expectedFrom(raw: string) {
  let text = '';
  const args = new Map<string, string>();
  const ids = new Map<number, string>();
  const names = new Map<string, string>();
  for (const line of raw.split('\n')) {
    if (!line.startsWith('data: ') || line.trim() === 'data: [DONE]') continue;
    const chunk = JSON.parse(line.slice(6));
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      if (typeof choice.delta?.content === 'string') text += choice.delta.content;
      for (const tc of choice.delta?.tool_calls ?? []) {
        const index = tc.index ?? 0;
        if (tc.id && !ids.has(index)) ids.set(index, tc.id);
        const key = tc.id && tc.id !== ids.get(index) ? `${index}/${tc.id}` : `${index}`;
        args.set(key, (args.get(key) ?? '') + (tc.function?.arguments ?? ''));
        if (tc.function?.name) names.set(key, tc.function.name);
      }
    }
  }
  const calls = [...args.entries()].filter(([key, value]) => {
    const original = key.split('/')[0]!;
    return key === original || value !== args.get(original) || names.get(key) !== names.get(original);
  });
  return { text, args: calls.map(([, v]) => v) };
}

describe('recorded provider streams', () => {
  it('has the recordings', () => {
    expect(index.length).toBeGreaterThanOrEqual(70);
  });

  for (const entry of index) {
    it(`${entry.name}`, async () => {
      const raw = readFileSync(join(dir, entry.file), 'utf8');
      const expected = expectedFrom(raw);
      const { text, finish } = await replay(raw);
      expect(text).toBe(expected.text);
      expect(finish.toolCalls).toHaveLength(entry.contains.tool_calls);
      expect(finish.toolCalls.map((c) => c.arguments)).toEqual(expected.args);
      for (const call of finish.toolCalls) {
        expect(call.id).not.toBe('');
        expect(call.name).toMatch(/^[A-Za-z_][\w.-]*$/);
        expect(() => JSON.parse(call.arguments)).not.toThrow();
      }
      if (entry.contains.usage_chunk) expect(finish.usage?.completionTokens).toBeGreaterThan(0);
    });
  }

  it('assembles two parallel calls of the OpenAI recording exactly', async () => {
    const raw = readFileSync(join(dir, 'openai-python__test_parse_multiple_pydantic_tools__453df473e962.txt'), 'utf8');
    const { finish } = await replay(raw);
    expect(finish.toolCalls.map((c) => c.name)).toEqual(['GetWeatherArgs', 'get_stock_price']);
    expect(JSON.parse(finish.toolCalls[0]!.arguments)).toEqual({ city: 'Edinburgh', country: 'UK', units: 'c' });
    expect(JSON.parse(finish.toolCalls[1]!.arguments)).toEqual({ ticker: 'AAPL', exchange: 'NASDAQ' });
    expect(finish.toolCalls[0]!.id).toBe('call_lQnnsesjFMWMQ5IeWPHzR4th');
    expect(finish.finishReason).toBe('tool_calls');
  });

  it('keeps the name of a Mistral call that repeats an empty name in later chunks', async () => {
    const { finish } = await replay(readFileSync(join(dir, 'vercel-ai__mistral__mistral-incremental-tool-call.txt'), 'utf8'));
    expect(finish.toolCalls).toEqual([{ id: 'chatcmpl-tool-9f149c74c42f265b', name: 'webSearchTool', arguments: '{"query": "current Berlin weather"}' }]);
  });
});
