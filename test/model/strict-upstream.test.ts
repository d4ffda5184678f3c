// The adapter is strict about what a 200 response holds: garbage, an HTML page, a non-streaming JSON
// body or an endless line are retryable upstream errors that say what came, never an empty
// completion; a stream with content and a finish reason but no [DONE] is still a completion; usage
// is kept only as non-negative safe integers. Through the real openai client and the scripted server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAI, type Reply, type ScriptedServer } from '../support/scripted-openai.ts';
import { OpenAIModel } from '../../src/model/openai.ts';
import { streamWithRetry } from '../../src/model/retry.ts';
import { ModelError, type ModelEvent } from '../../src/model/types.ts';

/** The replies of the current test, in order (the last one repeats), and the request index they start at. */
let replies: Reply[] = [];
let first = 0;
let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedOpenAI((_req, i) => replies[Math.min(i - first, replies.length - 1)]!);
});

function script(...next: Reply[]) {
  replies = next;
  first = server.requests.length;
}
afterAll(() => server.close());

function request() {
  return { messages: [{ role: 'user' as const, content: 'x' }], tools: [], toolChoice: 'auto' as const, signal: new AbortController().signal };
}

/** Streams one completion for `reply`: its events, or the error it ended with. */
async function run(reply: Reply): Promise<{ events: ModelEvent[]; error?: unknown; sentBytes: number }> {
  script(reply);
  const before = first;
  const model = new OpenAIModel({ apiKey: 'sk-strict', baseURL: server.url, model: 'strict' });
  const events: ModelEvent[] = [];
  try {
    for await (const e of model.stream(request())) events.push(e);
    return { events, sentBytes: server.sentBytes[before]! };
  } catch (error) {
    return { events, error, sentBytes: server.sentBytes[before]! };
  }
}

function expectUpstreamError(error: unknown, message: RegExp) {
  expect(error).toBeInstanceOf(ModelError);
  expect((error as ModelError).retryable).toBe(true);
  expect((error as ModelError).message).toMatch(message);
}

/** Bytes a seeded generator picks: the same garbage every run. */
function garbage(length: number, seed = 7): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

describe('a 200 response that holds no completion is a retryable upstream error', () => {
  it('an HTML page, quoted in the message', async () => {
    const { events, error } = await run({ raw: '<!DOCTYPE html>\n<html><body><h1>502 Bad Gateway</h1></body></html>\n', contentType: 'text/html' });
    expect(events).toEqual([]);
    expectUpstreamError(
      error,
      /held no completion: no chunk, no finish reason and no \[DONE\] \(content-type text\/html\); it began: <!DOCTYPE html>\\n<html>/,
    );
  });

  it('a non-streaming JSON body, said to be one', async () => {
    const body = JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
    });
    const { error } = await run({ raw: body, contentType: 'application/json' });
    expectUpstreamError(error, /non-streaming JSON body \(content-type application\/json\) instead of an event stream; it began: \{"id":"chatcmpl-1"/);
  });

  it('a pretty-printed JSON body under an event-stream content-type', async () => {
    const { error } = await run({ raw: JSON.stringify({ choices: [] }, null, 2) });
    expectUpstreamError(error, /held no completion/);
  });

  it('garbage bytes, with control characters escaped in the message', async () => {
    const { events, error } = await run({ raw: garbage(4096) });
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).retryable).toBe(true);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserts that no control character reaches the message
    expect((error as ModelError).message).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
  });

  it('an empty body, and a body of keepalive comments only', async () => {
    expectUpstreamError((await run({ raw: '' })).error, /held no completion.*the body was empty/);
    expectUpstreamError((await run({ raw: ': keepalive\n\n: keepalive\n\n' })).error, /held no completion/);
  });

  it('a data payload that is JSON but not an object', async () => {
    expectUpstreamError((await run({ raw: 'data: null\n\n' })).error, /chunk that is not a JSON object: null/);
    expectUpstreamError((await run({ raw: 'data: [1,2]\n\n' })).error, /chunk that is not a JSON object/);
  });

  it('an endless line: stopped at the 1 MB line limit, the upstream connection closed', async () => {
    const aborted = server.aborted;
    const { events, error, sentBytes } = await run({ endless: 'x'.repeat(65_536), prefix: 'data: {"choices":[{"delta":{"content":"' });
    expect(events).toEqual([]);
    expectUpstreamError(error, /SSE line longer than 1 MB \(1,048,576 characters\).*line limit/);
    await server.waitForAbort();
    expect(server.aborted).toBeGreaterThan(aborted);
    // What was sent is the cap plus what the sockets buffered, not the 256 MB the upstream offered.
    expect(sentBytes).toBeLessThan(32 * 1024 * 1024);
  });

  it('is retried while nothing was streamed, then answered', async () => {
    script({ raw: '<html>busy</html>', contentType: 'text/html' }, { raw: '{"error": "overloaded"}', contentType: 'application/json' }, { text: 'finally' });
    const before = first;
    const model = new OpenAIModel({ apiKey: 'sk-strict', baseURL: server.url, model: 'strict' });
    const retried: string[] = [];
    const events: ModelEvent[] = [];
    for await (const e of streamWithRetry(model, request(), { retries: 2, baseDelayMs: 1, onRetry: (_n, err) => retried.push(err.message) })) events.push(e);
    expect(server.requests.length - before).toBe(3);
    expect(retried).toEqual([expect.stringMatching(/held no completion/), expect.stringMatching(/non-streaming JSON body/)]);
    expect(
      events
        .filter((e) => e.type === 'text')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe('finally');
  });
});

describe('what stays a completion', () => {
  it('content and a finish reason without [DONE]', async () => {
    const { events, error } = await run({ text: 'no done marker here', omitDone: true });
    expect(error).toBeUndefined();
    expect(events.at(-1)).toEqual({ type: 'finish', toolCalls: [], finishReason: 'stop', model: 'strict', usage: { promptTokens: 100, completionTokens: 20 } });
  });

  it('a tool call without [DONE]', async () => {
    const { events, error } = await run({ toolCalls: [{ name: 'read_file', arguments: '{"path":"a"}', id: 'call_a' }], omitDone: true });
    expect(error).toBeUndefined();
    expect(events.at(-1)).toMatchObject({
      type: 'finish',
      toolCalls: [{ id: 'call_a', name: 'read_file', arguments: '{"path":"a"}' }],
      finishReason: 'tool_calls',
    });
  });

  it('empty data lines and chunks of unknown shape are skipped', async () => {
    const raw = 'data:\n\ndata: {"type":"ping"}\n\ndata: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
    const { events, error } = await run({ raw });
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'text', text: 'ok' },
      { type: 'finish', toolCalls: [], finishReason: 'stop', usage: null },
    ]);
  });

  it('chunks after [DONE] are ignored', async () => {
    const raw =
      'data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\ndata: {"choices":[{"index":0,"delta":{"content":"late"}}]}\n\n';
    const { events } = await run({ raw });
    expect(events.filter((e) => e.type === 'text')).toEqual([{ type: 'text', text: 'ok' }]);
  });
});

describe('usage from the upstream', () => {
  it.each([
    ['3e9 prompt tokens, a safe integer, is kept', { prompt_tokens: 3e9, completion_tokens: 20 }, { promptTokens: 3e9, completionTokens: 20 }],
    ['"abc" is no usage', { prompt_tokens: 'abc', completion_tokens: 20 }, null],
    ['a negative count is no usage', { prompt_tokens: 10, completion_tokens: -5 }, null],
    ['1e300 is no usage', { prompt_tokens: 1e300, completion_tokens: 1 }, null],
  ])('%s', async (_name, usage, expected) => {
    const { events, error } = await run({ text: 'counted', usage });
    expect(error).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'finish', usage: expected });
  });
});
