// Issue 29 at the gateway, streamed and not: an answer whose prose shows or asks about a call (the
// review's answers and the hand-written negatives over the own tools, here a client's tools without
// annotations) comes back as the upstream wrote it, with no tool_calls and the upstream's finish; a
// call in markup, or an answer that is nothing but the call, still becomes a tool call.
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLING_FORMS, proseAnswers } from '../support/prose-calls.ts';
import type { ChatRequest } from '../support/scripted-openai.ts';
import { fold, startGateway, type Gateway } from './harness.ts';

/** The own workspace tools as a gateway client would send them: names and schemas, no annotations. */
const fileTool = (name: string, properties: Record<string, unknown>): OpenAI.Chat.ChatCompletionTool => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties, required: ['path'] } },
});
const TOOLS = [
  fileTool('read_file', { path: { type: 'string' } }),
  fileTool('write_file', { path: { type: 'string' }, content: { type: 'string' }, overwrite: { type: 'boolean' } }),
  fileTool('patch_file', { path: { type: 'string' }, search: { type: 'string' }, replace: { type: 'string' } }),
  fileTool('delete_file', { path: { type: 'string' } }),
  { type: 'function', function: { name: 'search_files', parameters: { type: 'object', properties: { query: { type: 'string' }, path: { type: 'string' } } } } },
  {
    type: 'function',
    function: { name: 'save_memory', parameters: { type: 'object', properties: { content: { type: 'string' }, memory_type: { type: 'string' } } } },
  },
] satisfies OpenAI.Chat.ChatCompletionTool[];

const answers = [...proseAnswers(), ...Object.values(CALLING_FORMS)];
let gw: Gateway;
beforeAll(async () => {
  // The user's message is the index of the answer to give.
  gw = await startGateway((req: ChatRequest) => ({ text: answers[Number(req.messages.at(-1)?.content)]! }));
});
afterAll(() => gw.close());

const ask = (i: number) => ({ model: 'm', messages: [{ role: 'user' as const, content: String(i) }], tools: TOOLS });

async function both(i: number) {
  const whole = await gw.openai.chat.completions.create(ask(i));
  const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
  for await (const chunk of await gw.openai.chat.completions.create({ ...ask(i), stream: true })) chunks.push(chunk);
  return { whole: whole.choices[0]!, streamed: fold(chunks) };
}

describe('a call in the model’s prose is not a tool call at the gateway (issue 29)', () => {
  it(`every prose answer (${proseAnswers().length}) comes back unchanged, without tool_calls, streamed and not`, async () => {
    for (let i = 0; i < proseAnswers().length; i++) {
      const { whole, streamed } = await both(i);
      expect(whole.message.content, answers[i]).toBe(answers[i]);
      expect(whole.message.tool_calls ?? [], answers[i]).toEqual([]);
      expect(whole.finish_reason).toBe('stop');
      expect(streamed.content, answers[i]).toBe(answers[i]);
      expect(streamed.calls, answers[i]).toEqual([]);
      expect(streamed.finishReason).toBe('stop');
    }
  });

  it('a call in markup, or an answer that is nothing but the call, becomes a tool call, streamed and not', async () => {
    for (let i = proseAnswers().length; i < answers.length; i++) {
      const { whole, streamed } = await both(i);
      const call = whole.message.tool_calls?.[0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall | undefined;
      expect(call?.function, answers[i]).toEqual({ name: 'delete_file', arguments: '{"path":"notes/important.md"}' });
      expect(whole.finish_reason).toBe('tool_calls');
      expect(
        streamed.calls.map((c) => c.name),
        answers[i],
      ).toEqual(['delete_file']);
      expect(streamed.finishReason).toBe('tool_calls');
      expect(streamed.content).not.toContain('delete_file');
    }
  });
});
