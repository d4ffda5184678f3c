// The gateway as a client sees it: the real app on @hono/node-server in front of the scripted
// OpenAI-compatible upstream (test/support/scripted-openai.ts), and the tools the suites ask with:
// one of each kind of parameter the gate repairs (enum, integer, array, boolean) and a file body
// marked as code with the gateway's extension field.
import OpenAI from 'openai';
import { startApp, type TestApp } from '../support/app-server.ts';
import { startScriptedOpenAI, type Script, type ScriptedServer } from '../support/scripted-openai.ts';
import type { AppDeps } from '../../src/http/deps.ts';

export interface Gateway {
  upstream: ScriptedServer;
  app: TestApp;
  /** The base URL a client is pointed at: the app's /v1. */
  baseURL: string;
  openai: OpenAI;
  close(): Promise<void>;
}

export async function startGateway(script: Script, env: Record<string, string> = {}, overrides: Partial<AppDeps> = {}): Promise<Gateway> {
  const upstream = await startScriptedOpenAI(script);
  const app = await startApp({ OPENAI_API_KEY: 'sk-upstream-secret', OPENAI_BASE_URL: upstream.url, MODEL: 'loop-model', ...env }, overrides);
  const baseURL = `${app.url}/v1`;
  return {
    upstream,
    app,
    baseURL,
    openai: new OpenAI({ apiKey: 'sk-client', baseURL, maxRetries: 0 }),
    async close() {
      await app.close();
      await upstream.close();
    },
  };
}

export const TOOLS: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'The forecast for a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, units: { type: 'string', enum: ['c', 'f'] }, days: { type: 'integer' } },
        required: ['city'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'search_notes',
      description: 'Search the notes',
      parameters: {
        type: 'object',
        properties: { query: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, exact: { type: 'boolean' } },
        required: ['query'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'write_file',
      description: 'Write a whole file',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string', 'x-rebound-code': true } },
        required: ['path', 'content'],
      },
    },
  },
];

export const ASK: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }];

/** Folds a stream of chunks into the message a client ends up with. */
export function fold(chunks: OpenAI.Chat.ChatCompletionChunk[]) {
  let content = '';
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let finishReason: string | null = null;
  let usage: OpenAI.CompletionUsage | null | undefined;
  const indexDeltas: number[] = [];
  for (const chunk of chunks) {
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.delta.content) content += choice.delta.content;
      for (const tc of choice.delta.tool_calls ?? []) {
        indexDeltas.push(tc.index);
        const call = calls.get(tc.index) ?? { id: '', name: '', arguments: '' };
        if (tc.id) call.id = tc.id;
        if (tc.function?.name) call.name += tc.function.name;
        if (tc.function?.arguments) call.arguments += tc.function.arguments;
        calls.set(tc.index, call);
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  }
  return { content, calls: [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c), finishReason, usage, indexDeltas };
}
