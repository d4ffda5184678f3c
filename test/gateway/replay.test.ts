// The 72 recorded provider streams (../shared/bench/openai-streams) replayed through the gateway into
// the real openai client: wherever the gate passes a call, the client must receive the recording's
// content and calls byte for byte (ids, names, arguments text), with the recording's finish_reason
// and usage. The request's tools are built from the recording's own calls (every argument name
// declared, any value allowed), as an app that made these calls would have declared them; recordings
// without calls are asked without tools. Expectations are read from the recorded chunks, independently
// of the gateway: choice 0's content and refusal joined, a call per index (a repeat under a new id
// that is identical to its call is not a call, as Cerebras sends it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gate, type ToolSpec } from 'rebound-gate';
import { startApp, type TestApp } from '../support/app-server.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { streamsDir } from '../support/shared.ts';

interface IndexEntry {
  name: string;
  file: string;
  contains: { tool_calls: number; usage_chunk: boolean; choices: number };
}

const dir = streamsDir();
const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as IndexEntry[];
let current = '';
let upstream: ScriptedServer;
let app: TestApp;
let client: OpenAI;
beforeAll(async () => {
  upstream = await startScriptedOpenAI(() => ({ raw: current }));
  app = await startApp({ OPENAI_API_KEY: 'sk-replay', OPENAI_BASE_URL: upstream.url });
  client = new OpenAI({ apiKey: 'sk-client', baseURL: `${app.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await app.close();
  await upstream.close();
});

interface RecordedCall {
  id: string;
  name: string;
  arguments: string;
}

function recorded(raw: string) {
  let text = '';
  let refusal = '';
  let finishReason: string | null = null;
  let usage = false;
  const calls = new Map<string, RecordedCall>();
  const firstId = new Map<number, string>();
  for (const line of raw.split('\n')) {
    if (!line.startsWith('data: ') || line.trim() === 'data: [DONE]') continue;
    const chunk = JSON.parse(line.slice(6));
    if (chunk.usage) usage = true;
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      if (choice.delta?.content != null) text += typeof choice.delta.content === 'string' ? choice.delta.content : JSON.stringify(choice.delta.content);
      if (typeof choice.delta?.refusal === 'string') refusal += choice.delta.refusal;
      if (choice.finish_reason) finishReason = choice.finish_reason;
      for (const tc of choice.delta?.tool_calls ?? []) {
        const i = tc.index ?? 0;
        if (tc.id && !firstId.has(i)) firstId.set(i, tc.id);
        const key = tc.id && tc.id !== firstId.get(i) ? `${i}/${tc.id}` : `${i}`;
        const call = calls.get(key) ?? { id: tc.id ?? '', name: '', arguments: '' };
        if (tc.function?.name && tc.function.name !== call.name) call.name += tc.function.name;
        call.arguments += tc.function?.arguments ?? '';
        calls.set(key, call);
      }
    }
  }
  const distinct = [...calls.entries()].filter(([key, call]) => {
    const original = calls.get(key.split('/')[0]!)!;
    return key === key.split('/')[0] || call.arguments !== original.arguments || call.name !== original.name;
  });
  return { text, refusal, finishReason, usage, calls: distinct.map(([, c]) => c) };
}

/** The tools an app making these calls would have declared: each argument name, any value. */
function toolsFor(calls: RecordedCall[]): OpenAI.Chat.ChatCompletionFunctionTool[] {
  const byName = new Map<string, Set<string>>();
  for (const c of calls) {
    const params = byName.get(c.name) ?? new Set<string>();
    for (const k of Object.keys(JSON.parse(c.arguments) as object)) params.add(k);
    byName.set(c.name, params);
  }
  return [...byName].map(([name, params]) => ({
    type: 'function',
    function: { name, parameters: { type: 'object', properties: Object.fromEntries([...params].map((p) => [p, {}])) } },
  }));
}

describe('recorded provider streams through the gateway', () => {
  it('has the recordings', () => {
    expect(index.length).toBeGreaterThanOrEqual(70);
  });

  for (const entry of index) {
    it(entry.name, async () => {
      current = readFileSync(join(dir, entry.file), 'utf8');
      const expected = recorded(current);
      const tools = toolsFor(expected.calls);
      const stream = await client.chat.completions.create({
        model: 'replay',
        messages: [{ role: 'user', content: 'x' }],
        stream: true,
        ...(tools.length ? { tools } : {}),
      });
      let text = '';
      let refusal = '';
      let finishReason: string | null = null;
      let usage = false;
      const calls = new Map<number, RecordedCall>();
      for await (const chunk of stream) {
        if (chunk.usage) usage = true;
        expect(chunk.choices.every((c) => c.index === 0)).toBe(true);
        for (const choice of chunk.choices) {
          const content: unknown = choice.delta.content;
          if (content != null) text += typeof content === 'string' ? content : JSON.stringify(content);
          refusal += choice.delta.refusal ?? '';
          if (choice.finish_reason) finishReason = choice.finish_reason;
          for (const tc of choice.delta.tool_calls ?? []) {
            // Every call arrives whole, in one delta.
            expect(calls.has(tc.index)).toBe(false);
            calls.set(tc.index, { id: tc.id!, name: tc.function!.name!, arguments: tc.function!.arguments! });
          }
        }
      }
      expect(text).toBe(expected.text);
      expect(refusal).toBe(expected.refusal);
      expect(finishReason).toBe(expected.finishReason);
      expect(usage).toBe(expected.usage);
      expect(calls.size).toBe(entry.contains.tool_calls);
      const specs = tools.map((t) => ({ name: t.function.name, parameters: t.function.parameters })) as ToolSpec[];
      const received = [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
      for (const [i, call] of expected.calls.entries()) {
        const verdict = gate(call, specs);
        expect(verdict.verdict).toBe('pass');
        expect(received[i]).toEqual(call.id ? call : { ...call, id: received[i]!.id });
      }
    });
  }
});
