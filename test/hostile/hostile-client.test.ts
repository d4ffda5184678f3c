// The hostile-client suite, bodies: what an authenticated client can send to make the server work, hold
// memory or answer at length, against the real app over loopback (node:http, bodies written as they
// are). Each row holds its answer to a bound: the status and code, an error body of at most 16 KB that
// names the problem, and for the bodies that are accepted, a turn that runs. How long each answer takes
// and what /health waits meanwhile are printed by `npm run bench:abuse`, not asserted here.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_BODY_VALUES, MAX_PROBLEMS } from '../../src/http/body.ts';
import { GATEWAY_COUNTS } from '../../src/gateway/request.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { startApp, type TestApp } from '../support/app-server.ts';
import { parseUiStream } from '../support/ui-chunks.ts';

const MAX_ERROR_BODY = 16 * 1024;
/** A tool name that would forge a log line and recolour the terminal, and is 2 MB long. */
const FORGED_NAME = `get_wether\nrebound: all good \u001b[32mOK\u001b[0m${'x'.repeat(2 * 1024 * 1024)}`;

let upstream: ScriptedServer;
let app: TestApp;

beforeAll(async () => {
  // A request with a get_weather tool is answered with a call to the forged name below; any other with text.
  upstream = await startScriptedOpenAI((req) =>
    req.tools?.some((t) => t.function.name === 'get_weather') ? { toolCalls: [{ name: FORGED_NAME, arguments: '{}' }] } : { text: 'fine' },
  );
  app = await startApp({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: upstream.url });
});

afterAll(async () => {
  await app?.close();
  await upstream?.close();
});

interface Answer {
  status: number;
  text: string;
}

function post(path: string, body: string): Promise<Answer> {
  const { hostname, port } = new URL(app.url);
  return new Promise((resolve, reject) => {
    const r = request(
      { hostname, port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

/** `count` copies of `item` as a JSON array's members, built as text (a million objects would cost the test, not the server). */
const members = (item: string, count: number) => new Array(count).fill(item).join(',');

const user = '{"id":"m1","role":"user","parts":[{"type":"text","text":"hello"}]}';
/** The 4 MB body of the review: about 1.4 million empty messages. */
const uiBody = (last: string, count = 1_398_000) =>
  `{"id":"chat-${count}-${last.length}","messages":[${members('{}', count)},${last}],"trigger":"submit-message"}`;
const gatewayBody = (fields: string) => `{"model":"gpt-4o-mini",${fields}}`;

function expectBoundedError(answer: Answer, status: number, message: RegExp) {
  expect(answer.status).toBe(status);
  expect(answer.text.length).toBeLessThanOrEqual(MAX_ERROR_BODY);
  const body = JSON.parse(answer.text) as { error: { message: string } };
  expect(body.error.message).toMatch(message);
  return body;
}

describe('hostile bodies get a bounded answer', () => {
  it('/v1/ui/chat: 1.4 million {} messages, the last one invalid: a 400 about the last message alone', async () => {
    const body = uiBody('{}');
    expect(body.length).toBeGreaterThan(2.7 * 1024 * 1024);
    const answer = await post('/v1/ui/chat', body);
    const error = expectBoundedError(
      answer,
      400,
      /^Invalid request: messages\.1398000\.role: role must be "user", "assistant" or "system"; messages\.1398000\.parts/,
    );
    expect(error).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.any(String) } });
  });

  it('/v1/ui/chat: 1.4 million {} before a valid user message: the history is not capped, the turn runs', async () => {
    const answer = await post('/v1/ui/chat', uiBody(user));
    expect(answer.status).toBe(200);
    const { chunks, done } = parseUiStream(answer.text);
    expect(done).toBe(true);
    expect(chunks.map((c) => c.type)).toContain('finish');
    expect(upstream.requests.at(-1)?.messages.at(-1)).toMatchObject({ role: 'user', content: 'hello' });
  });

  it('/v1/ui/chat: a history whose brackets do not balance is not JSON', async () => {
    const answer = await post('/v1/ui/chat', `{"id":"x","messages":[${members('{}', 1000)},{],${user}]}`);
    expectBoundedError(answer, 400, /not valid JSON \(.*\)\. Send one JSON object/);
  });

  it('the gateway: 8 MB of {} messages is refused at the 10,001st, OpenAI-shaped', async () => {
    const body = gatewayBody(`"messages":[${members('{}', 2_790_000)}]`);
    expect(body.length).toBeGreaterThan(7.9 * 1024 * 1024);
    const answer = await post('/v1/chat/completions', body);
    const error = expectBoundedError(
      answer,
      400,
      /messages has more than 10,000 items, the most this route reads \(docs\/configuration\.md § Limits\)\. Send at most 10,000/,
    );
    expect(error.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', status: 400 });
    expect(GATEWAY_COUNTS.messages).toBe(10_000);
  });

  it('the gateway: 1,001 tools, 1,001 content parts', async () => {
    const tool = '{"type":"function","function":{"name":"t"}}';
    const tools = await post('/v1/chat/completions', gatewayBody(`"messages":[{"role":"user","content":"hi"}],"tools":[${members(tool, 1001)}]`));
    expectBoundedError(tools, 400, /tools has more than 1,000 items/);
    const part = '{"type":"text","text":"x"}';
    const parts = await post(
      '/v1/chat/completions',
      gatewayBody(`"messages":[{"role":"user","content":"hi"},{"role":"user","content":[${members(part, 1001)}]}]`),
    );
    expectBoundedError(parts, 400, /messages\[\]\.content has more than 1,000 items/);
  });

  it("/v1/messages, /v1/messages/count_tokens and /v1/responses: past 8 MB a 413, unread; past the counts a 400 in the route's shape", async () => {
    const asked = upstream.requests.length;
    const big = `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"${'x'.repeat(8 * 1024 * 1024)}"}]}`;
    for (const path of ['/v1/messages', '/v1/messages/count_tokens']) {
      expectBoundedError(await post(path, big), 413, /larger than 8192 KB/);
    }
    const bigInput = `{"model":"m","input":"${'x'.repeat(8 * 1024 * 1024)}"}`;
    expectBoundedError(await post('/v1/responses', bigInput), 413, /larger than 8192 KB/);

    const tool = '{"name":"t","input_schema":{"type":"object"}}';
    const tools = await post('/v1/messages', `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}],"tools":[${members(tool, 1001)}]}`);
    expect(expectBoundedError(tools, 400, /tools has more than 1,000 items/)).toMatchObject({ type: 'error' });
    const block = '{"type":"text","text":"x"}';
    const blocks = await post('/v1/messages', `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[${members(block, 1001)}]}]}`);
    expectBoundedError(blocks, 400, /content has more than 1,000 items/);
    const items = await post('/v1/responses', `{"model":"m","input":[${members('{"role":"user","content":"x"}', 10_001)}]}`);
    expectBoundedError(items, 400, /input has more than 10,000 items/);
    const rtools = await post('/v1/responses', `{"model":"m","input":"hi","tools":[${members('{"type":"function","name":"t"}', 1001)}]}`);
    expectBoundedError(rtools, 400, /tools has more than 1,000 items/);
    expect(upstream.requests.length).toBe(asked);
  });

  it('the gateway: 10,000 invalid messages: the first problems and how many more', async () => {
    const answer = await post('/v1/chat/completions', gatewayBody(`"messages":[${members('{"content":"x"}', 10_000)}]`));
    expectBoundedError(
      answer,
      400,
      new RegExp(`^Invalid request: messages\\.0\\.role: every message needs a role;.*; and ${10_000 - MAX_PROBLEMS} more problems, not listed\\.$`),
    );
  });

  it(`the gateway: more than ${MAX_BODY_VALUES.toLocaleString('en')} values in a field it forwards unread`, async () => {
    const answer = await post(
      '/v1/chat/completions',
      gatewayBody(`"messages":[{"role":"user","content":"hi"}],"metadata":{"x":[${members('{}', 2_000_000)}]}`),
    );
    expectBoundedError(answer, 400, /more than 100,000 JSON values \(objects, arrays and their members\)/);
  });

  it('the gateway: a 1.8 MB tool name of ANSI escapes in tool_choice is quoted cut, with its length', async () => {
    const name = `x${'\u001b[31m\n'.repeat(300_000)}`;
    const answer = await post(
      '/v1/chat/completions',
      gatewayBody(
        `"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"t"}}],"tool_choice":${JSON.stringify({ type: 'function', function: { name } })}`,
      ),
    );
    const error = expectBoundedError(
      answer,
      400,
      /tool_choice names "x\\u001b\[31m\\u000a.*…" \(1800001 chars\), which is not among the request's tools \("t"\)/,
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may reach the message
    expect(error.error.message).not.toMatch(/[\u0000-\u001f]/);
  });

  it('a /v1/turns message of any characters: the error quotes nothing raw', async () => {
    const answer = await post('/v1/turns', JSON.stringify({ message: 'hi', sessionId: '\u001b[2J'.repeat(20_000) }));
    expectBoundedError(answer, 400, /sessionId: sessionId must be a UUID/);
  });
});

describe('log lines quote what a model or client controls', () => {
  it("a blocked tool name with a newline, ANSI escapes and 2 MB is one short line in the gateway's log", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const answer = await post(
        '/v1/chat/completions',
        gatewayBody(
          `"messages":[{"role":"user","content":"weather?"}],"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}]`,
        ),
      );
      expect(answer.status).toBe(200);
      const lines = warn.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('still blocked'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/passed on unchanged: "get_wether\\u000arebound: all good \\u001b\[32mOK.*…" \(2097192 chars\)$/);
      expect(lines[0]!.length).toBeLessThan(1_000);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may reach the log
      expect(lines[0]).not.toMatch(/[\u0000-\u001f]/);
    } finally {
      warn.mockRestore();
    }
  });
});
