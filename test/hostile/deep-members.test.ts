// A field of the upstream's own nested 10,000 levels, past what JSON.stringify can write (it recurses
// and throws a RangeError at a few thousand; JSON.parse reads any depth, and a chunk's line may be up
// to 1 MB). The chat upstream puts it in the delta that carries a tool call and in the finish choice
// (streamed), or in the message (not streamed); the call is repaired, so the gateway writes the chunk
// or the completion itself rather than passing the upstream's bytes on. Each protocol answers 200 with
// the call (the chat answer with the field as deep as it came), never a 500 or a broken stream, and
// the agent loop's turn reading such a chunk completes (docs/configuration.md § Limits). The same for
// an upstream's error body nesting so (passed on as its error, in each protocol's shape; the loop's turn
// ends with an agent_error quoting it), and for a client's value nesting so where the gateway writes it
// as text (an id, a name, a role, arguments: its JSON text; count_tokens' estimate). Real parts: the
// gateway and the app, the scripted chat upstream.
import { afterEach, describe, expect, it } from 'vitest';
import { depthOf } from '../support/json-depth.ts';
import { startApp } from '../support/app-server.ts';
import { startScriptedAnthropic, startScriptedResponses, type NativeServer } from '../support/scripted-native.ts';
import { lastToolResult, startScriptedOpenAI } from '../support/scripted-openai.ts';
import { chat, textOf } from '../support/sse-client.ts';
import { startGateway, TOOLS, type Gateway } from '../gateway/harness.ts';

const LEVELS = 10_000;
const MEMBER = `"x_deep":${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}`;
/** Repaired by the gate (days "3" → 3): the gateway writes what the client gets. */
const CALL = { id: 'call_deep', name: 'get_weather', arguments: '{"city":"Paris","days":"3"}' };
const REPAIRED = { city: 'Paris', days: 3 };

let gw: Gateway | undefined;
let native: NativeServer | undefined;
afterEach(async () => {
  await gw?.close();
  await native?.close();
  gw = native = undefined;
});

/** POST to the gateway: `body` as JSON, or as is when it is text (a value JSON.stringify could not write). */
async function post(path: string, body: unknown): Promise<{ status: number; text: string }> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const res = await fetch(`${gw!.baseURL}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
  return { status: res.status, text: await res.text() };
}

/** The data of each event of an SSE body, parsed ([DONE] left out). */
const events = (text: string): Array<Record<string, any>> =>
  text
    .split('\n\n')
    .filter((b) => b.includes('data: ') && !b.includes('data: [DONE]'))
    .map((b) => JSON.parse(b.slice(b.indexOf('data: ') + 6)) as Record<string, any>);

const WEATHER = (TOOLS[0] as { function: { parameters: unknown } }).function.parameters;
const TOOL_MESSAGES = { name: 'get_weather', input_schema: WEATHER };
const TOOL_RESPONSES = { type: 'function', name: 'get_weather', parameters: WEATHER };

describe('an upstream field nested 10,000 levels, with a repaired call', () => {
  it('/v1/chat/completions streamed: the call repaired, the field as deep in its delta and the finish choice, [DONE] at the end', async () => {
    gw = await startGateway(() => ({ toolCalls: [CALL], member: MEMBER }));
    const answer = await post('/chat/completions', { model: 'm', stream: true, messages: [{ role: 'user', content: 'go' }], tools: TOOLS });
    expect(answer.status).toBe(200);
    expect(answer.text.endsWith('data: [DONE]\n\n')).toBe(true);
    const chunks = events(answer.text);
    expect(chunks.filter((c) => c.error !== undefined)).toEqual([]);
    const choices = chunks.flatMap((c) => c.choices as Array<Record<string, any>>);
    const call = choices.flatMap((c) => c.delta.tool_calls ?? []);
    expect(call.map((tc: any) => JSON.parse(tc.function.arguments))).toEqual([REPAIRED]);
    expect(choices.filter((c) => c.delta.x_deep !== undefined).map((c) => depthOf(c.delta.x_deep))).toEqual([LEVELS]);
    expect(choices.filter((c) => c.finish_reason !== null).map((c) => [c.finish_reason, depthOf(c.x_deep)])).toEqual([['tool_calls', LEVELS]]);
  }, 30_000);

  it('/v1/chat/completions not streamed: the call repaired, the field as deep in the message', async () => {
    gw = await startGateway(() => ({ toolCalls: [CALL], member: MEMBER }));
    const answer = await post('/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'go' }], tools: TOOLS });
    expect(answer.status).toBe(200);
    const message = JSON.parse(answer.text).choices[0].message;
    expect(JSON.parse(message.tool_calls[0].function.arguments)).toEqual(REPAIRED);
    expect(depthOf(message.x_deep)).toBe(LEVELS);
  }, 30_000);

  it.each([false, true])(
    '/v1/messages from a chat upstream (stream: %s): answered with the call',
    async (stream) => {
      gw = await startGateway(() => ({ toolCalls: [CALL], member: MEMBER }));
      const answer = await post('/messages', { model: 'm', max_tokens: 64, stream, messages: [{ role: 'user', content: 'go' }], tools: [TOOL_MESSAGES] });
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain('event: error');
      if (!stream) expect(JSON.parse(answer.text).content.find((b: any) => b.type === 'tool_use').input).toEqual(REPAIRED);
      else {
        const json = events(answer.text)
          .filter((e) => e.type === 'content_block_delta' && e.delta.type === 'input_json_delta')
          .map((e) => e.delta.partial_json)
          .join('');
        expect(JSON.parse(json)).toEqual(REPAIRED);
        expect(events(answer.text).at(-1)!.type).toBe('message_stop');
      }
    },
    30_000,
  );

  it.each([false, true])(
    '/v1/responses from a chat upstream (stream: %s): answered with the call',
    async (stream) => {
      gw = await startGateway(() => ({ toolCalls: [CALL], member: MEMBER }));
      const answer = await post('/responses', { model: 'm', stream, input: 'go', tools: [TOOL_RESPONSES] });
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain('event: error');
      const response = stream ? events(answer.text).at(-1)!.response : JSON.parse(answer.text);
      expect(response.status).toBe('completed');
      const call = response.output.find((o: any) => o.type === 'function_call');
      expect(JSON.parse(call.arguments)).toEqual(REPAIRED);
    },
    30_000,
  );
});

describe('the agent loop reading a chunk with a field nested 10,000 levels', () => {
  it('the turn completes with the text', async () => {
    gw = await startGateway(() => ({ text: 'Done.', member: MEMBER }));
    const turn = await chat(gw.app.url, { message: 'go' });
    expect(turn.status).toBe(200);
    expect(turn.events.filter((e) => e.event === 'agent_error')).toEqual([]);
    expect(turn.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed' } });
    expect(textOf(turn.events)).toBe('Done.');
  }, 30_000);

  it('a call whose arguments nest as deep, the field in its delta: blocked, the model told so, the turn completes', async () => {
    const deep = `{"path":${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}}`;
    gw = await startGateway((_, i) =>
      i === 0 ? { toolCalls: [{ id: 'call_deep', name: 'write_file', arguments: deep }], member: MEMBER } : { text: 'Done.' },
    );
    const turn = await chat(gw.app.url, { message: 'go' });
    expect(turn.status).toBe(200);
    expect(turn.events.filter((e) => e.event === 'agent_error')).toEqual([]);
    expect(turn.events.filter((e) => e.event === 'tool_result').map((e) => [e.data.verdict, e.data.ok])).toEqual([['blocked', false]]);
    expect(turn.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed' } });
    expect(textOf(turn.events)).toBe('Done.');
    expect(JSON.stringify(lastToolResult(gw.upstream.requests[1]!))).toContain('more than 64 levels');
  }, 30_000);
});

const DEEP = `${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}`;

describe('the UI message stream (/v1/ui/chat) of a turn whose model calls with arguments nested 10,000 levels', () => {
  it("the call's input shown as the model wrote it, the blocked result, the answer, [DONE]", async () => {
    const deep = `{"path":${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}}`;
    gw = await startGateway((_, i) => (i === 0 ? { toolCalls: [{ id: 'call_deep', name: 'write_file', arguments: deep }] } : { text: 'Done.' }));
    const res = await fetch(`${gw.app.url}/v1/ui/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'deep', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'go' }] }], trigger: 'submit-message' }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    const chunks = events(text);
    expect(chunks.filter((c) => c.type === 'error')).toEqual([]);
    const input = chunks.find((c) => c.type === 'tool-input-available')!.input;
    expect(depthOf(input)).toBe(LEVELS + 1);
    expect(chunks.filter((c) => c.type === 'tool-input-error').map((c) => c.toolCallId)).toEqual(['call_deep']);
    expect(
      chunks
        .filter((c) => c.type === 'text-delta')
        .map((c) => c.delta)
        .join(''),
    ).toBe('Done.');
  }, 30_000);
});

describe('a chat upstream stream with a value nested 10,000 levels where a string belongs', () => {
  const chunk = (choice: string) => `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[${choice}]}\n\n`;
  const role = chunk('{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}');
  const call = (id: string, name: string) =>
    `${role}${chunk(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":${id},"type":"function","function":{"name":${name},"arguments":"{}"}}]},"finish_reason":null}`)}${chunk('{"index":0,"delta":{},"finish_reason":"tool_calls"}')}data: [DONE]\n\n`;
  const finish = `${role}${chunk(`{"index":0,"delta":{"content":"hi"},"finish_reason":${DEEP}}`)}data: [DONE]\n\n`;
  const REQUESTS: Record<string, object> = {
    '/chat/completions': { model: 'm', stream: true, messages: [{ role: 'user', content: 'go' }] },
    '/messages': { model: 'm', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'go' }] },
    '/responses': { model: 'm', stream: true, input: 'go' },
  };
  /** The event that ends each protocol's stream when the answer ends, and its error event. */
  const END: Record<string, string> = { '/chat/completions': 'data: [DONE]', '/messages': 'event: message_stop', '/responses': 'event: response.completed' };
  const ERROR: Record<string, string> = { '/messages': 'event: error', '/responses': 'event: error' };

  it.each([
    ['/messages', "a call's id (no tools: the call passes as it came)", call(DEEP, '"get_weather"'), END],
    ['/messages', "a call's name (no tools)", call('"c1"', DEEP), END],
    ['/responses', "a call's id and name (no tools)", call(DEEP, DEEP), END],
    ['/chat/completions', 'finish_reason', finish, END],
    ['/messages', 'finish_reason', finish, END],
    ['/responses', 'finish_reason', finish, END],
    ['/messages', 'the error of an error chunk', `${role}data: {"error":${DEEP}}\n\n`, ERROR],
    ['/responses', 'the error of an error chunk', `${role}data: {"error":${DEEP}}\n\n`, ERROR],
    ['/responses', "an error chunk's message", `${role}data: {"error":{"message":${DEEP}}}\n\n`, ERROR],
  ])(
    '%s, %s: the stream ends as the protocol ends it',
    async (path, _what, raw, ends) => {
      gw = await startGateway(() => ({ raw }));
      const answer = await post(path, REQUESTS[path]);
      expect(answer.status).toBe(200);
      const last = answer.text.trimEnd().split('\n\n').at(-1)!;
      expect(last.startsWith(ends[path]!)).toBe(true);
    },
    30_000,
  );
});

describe('a native upstream stream with ids, names and deltas nested 10,000 levels (no tools: the call passes as it came)', () => {
  const events = (list: Array<[string, string]>) => list.map(([name, data]) => `event: ${name}\ndata: ${data}\n\n`).join('');
  it('an Anthropic upstream through /v1/messages: the stream ends with message_stop', async () => {
    const raw = events([
      ['message_start', `{"type":"message_start","message":{"id":${DEEP},"model":${DEEP},"usage":{"input_tokens":1}}}`],
      ['content_block_start', `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":${DEEP},"name":${DEEP},"input":{}}}`],
      ['content_block_delta', `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":${DEEP}}}`],
      ['content_block_stop', '{"type":"content_block_stop","index":0}'],
      ['message_delta', '{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":1}}'],
      ['message_stop', '{"type":"message_stop"}'],
    ]);
    native = await startScriptedAnthropic(() => ({ raw }));
    gw = await startGateway(() => ({ text: 'not asked' }), {
      MESSAGES_UPSTREAM: 'anthropic',
      ANTHROPIC_BASE_URL: native.url,
      ANTHROPIC_API_KEY: 'sk-ant-server',
    });
    const answer = await post('/messages', { model: 'm', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'go' }] });
    expect(answer.status).toBe(200);
    expect(answer.text.trimEnd().split('\n\n').at(-1)!.startsWith('event: message_stop')).toBe(true);
  }, 30_000);

  it('a Responses upstream through /v1/responses: the stream ends with response.completed', async () => {
    const raw = events([
      ['response.created', `{"type":"response.created","response":{"id":${DEEP},"model":${DEEP}}}`],
      [
        'response.output_item.added',
        `{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","call_id":${DEEP},"name":${DEEP},"arguments":""}}`,
      ],
      ['response.function_call_arguments.delta', `{"type":"response.function_call_arguments.delta","output_index":0,"delta":${DEEP}}`],
      [
        'response.output_item.done',
        '{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","call_id":"c","name":"n","arguments":"{}"}}',
      ],
      ['response.completed', '{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":1,"output_tokens":1}}}'],
    ]);
    native = await startScriptedResponses(() => ({ raw }));
    gw = await startGateway(() => ({ text: 'not asked' }), { RESPONSES_UPSTREAM: 'responses', OPENAI_BASE_URL: native.url });
    const answer = await post('/responses', { model: 'm', stream: true, input: 'go' });
    expect(answer.status).toBe(200);
    expect(answer.text.trimEnd().split('\n\n').at(-1)!.startsWith('event: response.completed')).toBe(true);
  }, 30_000);
});

describe('an upstream error body with a field nested 10,000 levels', () => {
  const body = `{"error":{"message":"bad request","type":"invalid_request_error","code":null,"param":${DEEP}}}`;

  it.each([
    ['/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'go' }] }],
    ['/chat/completions', { model: 'm', stream: true, messages: [{ role: 'user', content: 'go' }] }],
    ['/messages', { model: 'm', max_tokens: 64, messages: [{ role: 'user', content: 'go' }] }],
    ['/responses', { model: 'm', input: 'go' }],
  ])(
    '%s %j: the 400 passed on in the protocol shape, its message kept',
    async (path, request) => {
      gw = await startGateway(() => ({ status: 400, body }));
      const answer = await post(path, request);
      expect(answer.status).toBe(400);
      const json = JSON.parse(answer.text);
      expect(json.error.message).toBe('bad request');
    },
    30_000,
  );

  it('the agent loop: the turn ends with an agent_error quoting the answer, not an internal error', async () => {
    gw = await startGateway(() => ({ status: 400, body: `{"error":${DEEP}}` }));
    const turn = await chat(gw.app.url, { message: 'go' });
    expect(turn.status).toBe(200);
    const errors = turn.events.filter((e) => e.event === 'agent_error').map((e) => e.data.message as string);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('400');
    expect(turn.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'error' } });
  }, 30_000);

  it("the agent loop: a stream's error chunk whose message nests as deep ends the turn with an agent_error", async () => {
    gw = await startGateway(() => ({ raw: `data: {"error":{"message":${DEEP}}}\n\n` }), { MODEL_RETRIES: '0' });
    const turn = await chat(gw.app.url, { message: 'go' });
    expect(turn.status).toBe(200);
    const errors = turn.events.filter((e) => e.event === 'agent_error').map((e) => e.data.message as string);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('the model stream failed');
    expect(turn.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'error' } });
  }, 30_000);
});

describe('a native upstream or a model list whose error body nests 10,000 levels', () => {
  it.each([
    ['anthropic', '/messages', { model: 'm', max_tokens: 64, messages: [{ role: 'user', content: 'go' }] }],
    ['anthropic', '/messages', { model: 'm', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'go' }] }],
    ['responses', '/responses', { model: 'm', input: 'go' }],
    ['responses', '/responses', { model: 'm', stream: true, input: 'go' }],
  ])(
    '%s upstream, %s %j: its 400 passed on, its message kept',
    async (kind, path, request) => {
      const body =
        kind === 'anthropic'
          ? `{"type":"error","error":{"type":"invalid_request_error","message":"bad request","x":${DEEP}}}`
          : `{"error":{"message":"bad request","type":"invalid_request_error","code":null,"param":${DEEP}}}`;
      native = kind === 'anthropic' ? await startScriptedAnthropic(() => ({ status: 400, body })) : await startScriptedResponses(() => ({ status: 400, body }));
      gw = await startGateway(
        () => ({ text: 'the chat upstream is not asked' }),
        kind === 'anthropic'
          ? { MESSAGES_UPSTREAM: 'anthropic', ANTHROPIC_BASE_URL: native.url, ANTHROPIC_API_KEY: 'sk-ant-server' }
          : { RESPONSES_UPSTREAM: 'responses', OPENAI_BASE_URL: native.url },
      );
      const answer = await post(path, request);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text).error.message).toBe('bad request');
    },
    30_000,
  );

  it("GET /v1/models: the upstream's 500 passed on, its message kept", async () => {
    const upstream = await startScriptedOpenAI(() => ({ text: 'not asked' }), {
      models: { status: 500, body: `{"error":{"message":"models are down","type":"server_error","code":null,"param":${DEEP}}}` },
    });
    const app = await startApp({ OPENAI_API_KEY: 'sk-upstream-secret', OPENAI_BASE_URL: upstream.url, MODEL: 'loop-model', GATEWAY_MODELS: 'a=b' });
    try {
      const res = await fetch(`${app.url}/v1/models`);
      expect(res.status).toBe(500);
      expect((await res.json()).error.message).toBe('models are down');
    } finally {
      await app.close();
      await upstream.close();
    }
  }, 30_000);
});

describe('a client value nested 10,000 levels where the gateway names it', () => {
  it('/v1/messages, an image source whose type nests so: a 400 naming the field', async () => {
    gw = await startGateway(() => ({ text: 'not asked' }));
    const image = `{"type":"image","source":{"type":${DEEP}}}`;
    const res = await post('/messages', `{"model":"m","max_tokens":64,"messages":[{"role":"user","content":[${image}]}]}`);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error.message).toContain('messages[0].content[0]');
    expect(gw.upstream.requests).toHaveLength(0);
  }, 30_000);

  it.each([
    [
      '/messages',
      "an image's media_type",
      `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"x","media_type":${DEEP}}}]}]}`,
    ],
    [
      '/messages',
      "a tool_use's id and name, a tool_result's tool_use_id",
      `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":${DEEP},"name":${DEEP},"input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":${DEEP},"content":"x"}]}]}`,
    ],
    ['/responses', "a message's role", `{"model":"m","input":[{"type":"message","role":${DEEP},"content":"x"}]}`],
    [
      '/responses',
      "a function_call's call_id, name and arguments",
      `{"model":"m","input":[{"type":"function_call","call_id":${DEEP},"name":${DEEP},"arguments":${DEEP}}]}`,
    ],
    ['/responses', "a custom_tool_call's input", `{"model":"m","input":[{"type":"custom_tool_call","call_id":"c","name":"a","input":${DEEP}}]}`],
  ])(
    '%s, %s: a value where a string belongs goes to the upstream as its JSON text',
    async (path, _what, body) => {
      gw = await startGateway(() => ({ text: 'ok' }));
      expect((await post(path, body)).status).toBe(200);
      expect(gw.upstream.requests).toHaveLength(1);
      expect(JSON.stringify(gw.upstream.requests[0]!.messages)).toContain(DEEP);
    },
    30_000,
  );

  it('/v1/responses, an input item whose type nests so: a 400 (the request schema refuses it)', async () => {
    gw = await startGateway(() => ({ text: 'not asked' }));
    const res = await post('/responses', `{"model":"m","input":[{"type":${DEEP}}]}`);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error.message).toMatch(/^Invalid request: input/);
    expect(gw.upstream.requests).toHaveLength(0);
  }, 30_000);

  it('/v1/messages/count_tokens, a message nesting so: the estimate', async () => {
    gw = await startGateway(() => ({ text: 'not asked' }));
    const res = await post('/messages/count_tokens', `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"go","x":${DEEP}}]}]}`);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).input_tokens).toBeGreaterThan(LEVELS / 2);
  }, 30_000);
});
