// The POST to /chat/completions and what the model adapter makes of its failures: what the openai
// SDK used to do for it (a headers timeout, status → retryable or not, the error body's message, the
// caller's abort), now with fetch alone.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { getModels, postChat, readBounded } from './chat-post.ts';
import { OpenAIModel } from './openai.ts';
import { ModelError, type ModelEvent } from './types.ts';
import type { ToolSpec } from 'rebound-gate';

/** A fetch that records its requests and answers with `reply` (or never, until its signal aborts). */
function fakeFetch(reply: (() => Response) | 'never' | Error) {
  const requests: Array<{ url: string; init: RequestInit }> = [];
  const fn: typeof fetch = (input, init) => {
    requests.push({ url: String(input), init: init! });
    if (reply instanceof Error) return Promise.reject(reply);
    if (reply === 'never') {
      if (init!.signal!.aborted) return Promise.reject(init!.signal!.reason); // as fetch does
      return new Promise((_, reject) => init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason)));
    }
    return Promise.resolve(reply());
  };
  return { fn, requests };
}

const json = (status: number, body: unknown) => () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

async function failure(model: OpenAIModel, signal = new AbortController().signal): Promise<unknown> {
  try {
    const events: ModelEvent[] = [];
    for await (const e of model.stream({ messages: [{ role: 'user', content: 'hi' }], tools: [], toolChoice: 'auto', signal })) events.push(e);
  } catch (err) {
    return err;
  }
  throw new Error('expected the stream to fail');
}

const model = (fetch: typeof globalThis.fetch, timeoutMs = 1_000) =>
  new OpenAIModel({ apiKey: 'sk-test', baseURL: 'http://upstream.test/v1/', model: 'm', timeoutMs, fetch });

describe('postChat', () => {
  it('posts JSON to <baseURL>/chat/completions with the key, and asks for an event stream when streaming', async () => {
    const { fn, requests } = fakeFetch(json(200, {}));
    const posted = await postChat(
      { baseURL: 'http://upstream.test/v1//', apiKey: 'sk-x', timeoutMs: 1_000, fetch: fn },
      { model: 'm', stream: true },
      { signal: new AbortController().signal },
    );
    expect(posted.kind).toBe('response');
    expect(requests[0]!.url).toBe('http://upstream.test/v1/chat/completions');
    expect(requests[0]!.init.method).toBe('POST');
    expect(requests[0]!.init.headers).toEqual({ 'content-type': 'application/json', accept: 'text/event-stream', authorization: 'Bearer sk-x' });
    expect(JSON.parse(String(requests[0]!.init.body))).toEqual({ model: 'm', stream: true });
  });

  it('sends no authorization without a key', async () => {
    const { fn, requests } = fakeFetch(json(200, {}));
    await postChat(
      { baseURL: 'http://upstream.test/v1', apiKey: undefined, timeoutMs: 1_000, fetch: fn },
      { stream: false },
      { signal: new AbortController().signal },
    );
    expect(requests[0]!.init.headers).toEqual({ 'content-type': 'application/json', accept: 'application/json' });
  });

  it('is a timeout when no headers come in time, unreachable with the cause when fetch fails', async () => {
    const never = fakeFetch('never');
    expect(await postChat({ baseURL: 'http://u', apiKey: 'k', timeoutMs: 20, fetch: never.fn }, {}, { signal: new AbortController().signal })).toEqual({
      kind: 'timeout',
    });
    const failed = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
    const refused = fakeFetch(failed);
    expect(await postChat({ baseURL: 'http://u', apiKey: 'k', timeoutMs: 1_000, fetch: refused.fn }, {}, { signal: new AbortController().signal })).toEqual({
      kind: 'unreachable',
      message: 'fetch failed (connect ECONNREFUSED 127.0.0.1:9)',
      cause: failed,
    });
  });

  it("throws the caller's abort as it is", async () => {
    const { fn } = fakeFetch('never');
    const controller = new AbortController();
    const reason = new Error('the client left');
    setTimeout(() => controller.abort(reason), 10);
    await expect(postChat({ baseURL: 'http://u', apiKey: 'k', timeoutMs: 5_000, fetch: fn }, {}, { signal: controller.signal })).rejects.toBe(reason);
  });

  it("passes the caller's abort on after the headers (it ends the body), and the headers timeout no longer fires then", async () => {
    const { fn, requests } = fakeFetch(json(200, {}));
    const controller = new AbortController();
    const posted = await postChat({ baseURL: 'http://u', apiKey: 'k', timeoutMs: 20, fetch: fn }, { stream: true }, { signal: controller.signal });
    expect(posted.kind).toBe('response');
    const sent = requests[0]!.init.signal!;
    await new Promise((r) => setTimeout(r, 40));
    expect(sent.aborted).toBe(false);
    const reason = new Error('stopped');
    controller.abort(reason);
    expect(sent.aborted).toBe(true);
    expect(sent.reason).toBe(reason);
  });

  it("leaves no listener on the caller's signal once the request has aborted (a headers timeout): a turn's signal outlives its requests", async () => {
    const { fn } = fakeFetch('never');
    const controller = new AbortController();
    const pending = postChat({ baseURL: 'http://u', apiKey: 'k', timeoutMs: 20, fetch: fn }, {}, { signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    expect((await pending).kind).toBe('timeout');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('sends an already aborted request aborted', async () => {
    const { fn, requests } = fakeFetch('never');
    const reason = new Error('gone');
    await expect(postChat({ baseURL: 'http://u', apiKey: 'k', timeoutMs: 1_000, fetch: fn }, {}, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(requests[0]!.init.signal!.reason).toBe(reason);
  });
});

describe('OpenAIModel request body', () => {
  const tool = (name: string, parameters: ToolSpec['parameters'], description?: string): ToolSpec => ({
    name,
    parameters,
    ...(description ? { description } : {}),
  });
  const schema = { type: 'object', properties: { path: { type: 'string', description: 'a "quoted" path\n' } }, required: ['path'] } as ToolSpec['parameters'];

  async function bodies(tools: ToolSpec[][], toolChoice: 'auto' | 'none' = 'auto'): Promise<string[]> {
    const { fn, requests } = fakeFetch(
      () => new Response('data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'),
    );
    const m = model(fn);
    for (const list of tools)
      for await (const _ of m.stream({ messages: [{ role: 'user', content: 'hi' }], tools: list, toolChoice, signal: new AbortController().signal }));
    return requests.map((r) => String(r.init.body));
  }
  /** The body as the adapter built it before the tools' JSON was reused: one JSON.stringify of it all. */
  const whole = (tools: ToolSpec[], toolChoice: 'auto' | 'none' = 'auto') =>
    JSON.stringify({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
      ...(tools.length
        ? {
            tools: tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })),
            tool_choice: toolChoice,
          }
        : {}),
    });

  it('is byte for byte one JSON.stringify of the request, on the first request and on those that reuse the tools', async () => {
    const tools = [tool('read_file', schema, 'Reads a file.'), tool('list', { type: 'object' } as ToolSpec['parameters'])];
    const sent = await bodies([tools, tools, [], [tools[1]!]], 'none');
    expect(sent).toEqual([whole(tools, 'none'), whole(tools, 'none'), whole([], 'none'), whole([tools[1]!], 'none')]);
  });

  it('sends a renamed or redescribed tool as it is now, though its schema object is the same', async () => {
    const first = [tool('read_file', schema, 'Reads a file.')];
    const renamed = [tool('open_file', schema, 'Reads a file.')];
    const redescribed = [tool('open_file', schema, 'Opens a file.')];
    expect(await bodies([first, renamed, redescribed])).toEqual([whole(first), whole(renamed), whole(redescribed)]);
  });
});

describe('getModels', () => {
  it('gets <baseURL>/models with the key, as JSON, with the same failures as postChat', async () => {
    const { fn, requests } = fakeFetch(json(200, { object: 'list', data: [] }));
    const got = await getModels({ baseURL: 'http://upstream.test/v1/', apiKey: 'sk-x', timeoutMs: 1_000, fetch: fn }, new AbortController().signal);
    expect(got.kind).toBe('response');
    expect(requests[0]!.url).toBe('http://upstream.test/v1/models');
    expect(requests[0]!.init.method).toBe('GET');
    expect(requests[0]!.init.body).toBeUndefined();
    expect(requests[0]!.init.headers).toEqual({ accept: 'application/json', authorization: 'Bearer sk-x' });
    const never = fakeFetch('never');
    expect(await getModels({ baseURL: 'http://u', apiKey: 'k', timeoutMs: 20, fetch: never.fn }, new AbortController().signal)).toEqual({ kind: 'timeout' });
  });
});

describe('readBounded', () => {
  it('reads a body up to the cap whole, and says when it stopped past it', async () => {
    const body = () => new Response(new Blob(['{"choices": [', '"é"]}']).stream());
    expect(await readBounded(body(), 64)).toEqual({ text: '{"choices": ["é"]}', whole: true });
    expect(await readBounded(body(), 19)).toEqual({ text: '{"choices": ["é"]}', whole: true });
    expect(await readBounded(body(), 8)).toEqual({ text: '{"choice', whole: false });
    expect(await readBounded(new Response('short'), 1_024)).toEqual({ text: 'short', whole: true });
  });

  it('reads only the first bytes of an endless body', async () => {
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(new TextEncoder().encode('x'.repeat(1_000)));
      },
    });
    const head = await readBounded(new Response(endless), 2_500);
    expect(head).toEqual({ text: 'x'.repeat(2_500), whole: false });
    expect(pulls).toBeLessThan(10);
  });
});

describe('OpenAIModel errors', () => {
  it.each([
    [401, false],
    [400, false],
    [404, false],
    [408, true],
    [409, true],
    [429, true],
    [500, true],
    [503, true],
  ])('%i is a ModelError, retryable: %s, with the status and the message of the error body', async (status, retryable) => {
    const err = await failure(model(fakeFetch(json(status, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } })).fn));
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ retryable, status, message: `the model returned ${status}: Incorrect API key provided` });
  });

  it('quotes an error body that is not OpenAI-shaped, bounded and with control characters escaped', async () => {
    const html = await failure(model(fakeFetch(() => new Response(`<html>Bad\u0000 Gateway</html>${'!'.repeat(10_000)}`, { status: 502 })).fn));
    expect((html as ModelError).message).toMatch(/^the model returned 502: <html>Bad\\u0000 Gateway<\/html>!+…$/);
    expect((html as ModelError).message.length).toBeLessThan(400);
    const odd = await failure(model(fakeFetch(json(500, { error: { code: 42 } })).fn));
    expect((odd as ModelError).message).toBe('the model returned 500: {"code":42}');
    const empty = await failure(model(fakeFetch(() => new Response(null, { status: 503 })).fn));
    expect((empty as ModelError).message).toBe('the model returned 503: no body');
  });

  it('no headers within timeoutMs is a retryable timeout; an unreachable server is retryable', async () => {
    expect(await failure(model(fakeFetch('never').fn, 20))).toMatchObject({ retryable: true, message: 'the model did not answer in time' });
    const failed = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
    const refused = await failure(model(fakeFetch(failed).fn));
    expect(refused).toMatchObject({ retryable: true, message: 'could not reach the model: fetch failed (connect ECONNREFUSED)' });
    expect((refused as ModelError).cause).toBe(failed);
  });

  it('a body that breaks off is a retryable ModelError that keeps what was thrown as its cause', async () => {
    const reset = new TypeError('terminated', { cause: new Error('other side closed') });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n'));
        controller.error(reset);
      },
    });
    const err = await failure(model(fakeFetch(() => new Response(body, { headers: { 'content-type': 'text/event-stream' } })).fn));
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ retryable: true, message: 'terminated', cause: reset });
  });

  it("the caller's abort before the headers is thrown as it is, not a ModelError", async () => {
    const controller = new AbortController();
    const reason = new Error('stopped');
    setTimeout(() => controller.abort(reason), 10);
    expect(await failure(model(fakeFetch('never').fn, 5_000), controller.signal)).toBe(reason);
  });

  it("sends the model, the messages, include_usage and, with tools, each as a function with the turn's tool_choice", async () => {
    const { fn, requests } = fakeFetch(() => new Response('data: [DONE]\n\n', { headers: { 'content-type': 'text/event-stream' } }));
    const tools = [{ name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } }];
    for await (const _ of model(fn).stream({ messages: [{ role: 'user', content: 'hi' }], tools, toolChoice: 'none', signal: new AbortController().signal }))
      void _;
    expect(JSON.parse(String(requests[0]!.init.body))).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: tools[0] }],
      tool_choice: 'none',
    });
  });

  it("defaults to OpenAI's API", async () => {
    const { fn, requests } = fakeFetch(() => new Response('data: [DONE]\n\n'));
    for await (const _ of new OpenAIModel({ apiKey: 'k', model: 'm', fetch: fn }).stream({
      messages: [],
      tools: [],
      toolChoice: 'auto',
      signal: new AbortController().signal,
    }))
      void _;
    expect(requests[0]!.url).toBe('https://api.openai.com/v1/chat/completions');
  });
});
