// Issue 29 in the three adapters, against the frameworks themselves and the scripted upstream: the
// review's answers and the hand-written negatives over the own tools (test/support/prose-calls.ts) run
// no tool and reach the caller exactly as the model wrote them, through rebound-gate/ai-sdk
// (generateText, streamText), rebound-gate/langchain (createAgent) and rebound-gate/openai-agents (run,
// streamed and not); a call in markup, or an answer that is nothing but the call, still runs through
// each of them (all three read calls written into the text).
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ChatOpenAI } from '@langchain/openai';
import { Agent, type Model, OpenAIChatCompletionsModel, run, setTracingDisabled, tool as agentsTool } from '@openai/agents';
import { generateText, stepCountIs, streamText, tool as aiTool, wrapLanguageModel } from 'ai';
import { createAgent, tool as lcTool } from 'langchain';
import OpenAI from 'openai';
import { reboundMiddleware as aiSdkMiddleware } from 'rebound-gate/ai-sdk';
import { reboundMiddleware as langchainMiddleware } from 'rebound-gate/langchain';
import { reboundModel } from 'rebound-gate/openai-agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { CALLING_FORMS, proseAnswers } from '../support/prose-calls.ts';
import { type ChatRequest, type ScriptedServer, startScriptedOpenAI } from '../support/scripted-openai.ts';

const prose = proseAnswers();
const forms = Object.values(CALLING_FORMS);
const answers = [...prose, ...forms];
const PATH = z.object({ path: z.string() });
/** The tools each framework gets: what they ran, by name. */
let ran: Array<{ name: string; input: unknown }> = [];
const record = (name: string) => async (input: unknown) => {
  ran.push({ name, input });
  return 'done';
};

let upstream: ScriptedServer;
beforeAll(async () => {
  setTracingDisabled(true);
  // The first user message is the index of the answer to give; after a tool ran, "Deleted."
  upstream = await startScriptedOpenAI((req: ChatRequest) => {
    if (req.messages.some((m) => m.role === 'tool')) return { text: 'Deleted.' };
    const said = req.messages.find((m) => m.role === 'user')?.content;
    return { text: answers[Number(said)]! };
  });
});
afterAll(() => upstream.close());

type Answer = (i: number) => Promise<string>;

function aiSdk(stream: boolean): Answer {
  const provider = createOpenAICompatible({ name: 'scripted', baseURL: upstream.url, apiKey: 'sk-test' });
  const model = wrapLanguageModel({ model: provider.chatModel('scripted-model'), middleware: aiSdkMiddleware() });
  const tools = {
    read_file: aiTool({ inputSchema: PATH, execute: record('read_file') }),
    delete_file: aiTool({ inputSchema: PATH, execute: record('delete_file') }),
  };
  return async (i) => {
    const options = { model, tools, prompt: String(i), stopWhen: stepCountIs(3) };
    if (!stream) return (await generateText(options)).text;
    const r = streamText(options);
    return r.text;
  };
}

function langchain(): Answer {
  const model = new ChatOpenAI({ model: 'scripted-model', apiKey: 'sk-test', configuration: { baseURL: upstream.url }, maxRetries: 0 });
  const tools = [
    lcTool(record('read_file'), { name: 'read_file', description: 'Reads a file', schema: PATH }),
    lcTool(record('delete_file'), { name: 'delete_file', description: 'Deletes a file', schema: PATH }),
  ];
  const agent = createAgent({ model, tools, middleware: [langchainMiddleware()] });
  return async (i) => {
    const result = await agent.invoke({ messages: [{ role: 'user', content: String(i) }] });
    return String(result.messages.at(-1)?.content);
  };
}

function agents(stream: boolean): Answer {
  const client = new OpenAI({ baseURL: upstream.url, apiKey: 'sk-test', maxRetries: 0 });
  const base: Model = new OpenAIChatCompletionsModel(client, 'scripted-model');
  const tools = [
    agentsTool({ name: 'read_file', description: 'Reads a file', parameters: PATH, execute: record('read_file') }),
    agentsTool({ name: 'delete_file', description: 'Deletes a file', parameters: PATH, execute: record('delete_file') }),
  ];
  const agent = new Agent({ name: 'files', instructions: 'Work on the files.', model: reboundModel(base), tools });
  return async (i) => {
    if (!stream) return String((await run(agent, String(i))).finalOutput);
    const r = await run(agent, String(i), { stream: true });
    for await (const _ of r);
    await r.completed;
    return String(r.finalOutput);
  };
}

const adapters: Array<[string, () => Answer]> = [
  ['rebound-gate/ai-sdk generateText', () => aiSdk(false)],
  ['rebound-gate/ai-sdk streamText', () => aiSdk(true)],
  ['rebound-gate/langchain createAgent', langchain],
  ['rebound-gate/openai-agents run', () => agents(false)],
  ['rebound-gate/openai-agents run, streamed', () => agents(true)],
];

describe.each(adapters)('a call in the model’s prose runs nothing: %s (issue 29)', (_name, make) => {
  it(`every prose answer (${prose.length}) runs no tool and reaches the caller unchanged`, async () => {
    const answer = make();
    for (let i = 0; i < prose.length; i++) {
      ran = [];
      expect(await answer(i), prose[i]).toBe(prose[i]);
      expect(ran, prose[i]).toEqual([]);
    }
  });

  it('a call in markup, or an answer that is nothing but the call, runs', async () => {
    const answer = make();
    for (let i = prose.length; i < answers.length; i++) {
      ran = [];
      expect(await answer(i), answers[i]).toBe('Deleted.');
      expect(ran, answers[i]).toEqual([{ name: 'delete_file', input: { path: 'notes/important.md' } }]);
    }
  });
});
