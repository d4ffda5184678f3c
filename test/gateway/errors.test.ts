// What goes wrong reaches an OpenAI client in the shape it reads: upstream errors with their own
// status and body, requests the gateway cannot serve as a 400 that says so, a missing upstream as
// a 503 that names the setting.
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { ASK, TOOLS, startGateway, type Gateway } from './harness.ts';
import { startApp, type TestApp } from '../support/app-server.ts';
import { freePort } from '../support/ports.ts';

let gw: Gateway | undefined;
let bare: TestApp | undefined;
afterEach(async () => {
  await gw?.close();
  await bare?.close();
  gw = bare = undefined;
});

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as { error: { message: string; type: string; param: string | null; code: string | null } },
  };
}

describe('upstream errors', () => {
  it('pass through with their status and body (stream and non-stream)', async () => {
    gw = await startGateway(() => ({ status: 429, message: 'Rate limit reached for requests' }));
    for (const stream of [false, true]) {
      const res = await post(gw.baseURL, { model: 'm', messages: ASK, stream });
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ error: { message: 'Rate limit reached for requests', type: 'server_error', code: null } });
    }
    const err = await gw.openai.chat.completions.create({ model: 'm', messages: ASK }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as Error).message).toMatch(/Rate limit reached/);
  });

  it('an upstream that cannot be reached is a 502 that names it', async () => {
    const port = await freePort();
    bare = await startApp({ OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` });
    const res = await post(`${bare.url}/v1`, { model: 'm', messages: ASK });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ code: 'upstream_unreachable', type: 'upstream_error' });
    expect(res.body.error.message).toContain(`127.0.0.1:${port}`);
  });

  it('an upstream that does not answer in MODEL_TIMEOUT_MS is a 504', async () => {
    gw = await startGateway(() => ({ text: 'too late', headersAfterMs: 2_000 }), { MODEL_TIMEOUT_MS: '200' });
    const res = await post(gw.baseURL, { model: 'm', messages: ASK });
    expect(res.status).toBe(504);
    expect(res.body.error.message).toMatch(/MODEL_TIMEOUT_MS/);
  });
});

describe('requests the gateway cannot serve', () => {
  const cases: Array<[string, Record<string, unknown>, string | null, RegExp]> = [
    ['n > 1', { n: 3 }, 'n', /n = 3 is not supported.*make 3 requests/],
    ['audio output', { modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }, 'audio', /Audio output is not supported/],
    ['the functions API', { functions: [{ name: 'f', parameters: {} }] }, 'functions', /send the same definitions as "tools"/],
    ['a custom tool', { tools: [{ type: 'custom', custom: { name: 'grammar' } }] }, 'tools[0].type', /function tools only/],
    [
      'tool_choice naming another tool',
      { tools: TOOLS, tool_choice: { type: 'function', function: { name: 'get_wether' } } },
      'tool_choice',
      /"get_wether", which is not among the request's tools \("get_weather", "search_notes", "write_file"\)/,
    ],
  ];
  for (const [what, extra, param, message] of cases) {
    it(`${what}: 400 with a message that says what to send`, async () => {
      gw = await startGateway(() => ({ text: 'never asked' }));
      const res = await post(gw.baseURL, { model: 'm', messages: ASK, ...extra });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
      expect(res.body.error.message).toMatch(message);
      expect(gw.upstream.requests).toHaveLength(0);
    });
  }

  it('a body that is not JSON, or lacks messages: 400 in the OpenAI shape', async () => {
    gw = await startGateway(() => ({ text: 'never asked' }));
    const notJson = await post(gw.baseURL, '{"model": "m", "messages": [');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toMatchObject({ code: 'malformed_json', type: 'invalid_request_error' });
    const noMessages = await post(gw.baseURL, { model: 'm' });
    expect(noMessages.status).toBe(400);
    expect(noMessages.body.error.message).toMatch(/messages is required/);
  });

  it('the legacy completions: 400 naming the endpoint to use', async () => {
    gw = await startGateway(() => ({ text: 'never asked' }));
    const res = await fetch(`${gw.baseURL}/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/POST \/v1\/chat\/completions/);
  });

  it('without an upstream key: 503 that names the settings', async () => {
    bare = await startApp({});
    const res = await post(`${bare.url}/v1`, { model: 'm', messages: ASK });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'gateway_not_configured' });
    expect(res.body.error.message).toMatch(/OPENAI_API_KEY/);
  });
});

describe('model mapping', () => {
  it('maps names listed in GATEWAY_MODELS, "*" maps the rest', async () => {
    gw = await startGateway(() => ({ text: 'ok' }), { GATEWAY_MODELS: 'gpt-4o=llama-3.3-70b,*=qwen2.5-coder' });
    await gw.openai.chat.completions.create({ model: 'gpt-4o', messages: ASK });
    await gw.openai.chat.completions.create({ model: 'gpt-4o-mini', messages: ASK });
    expect(gw.upstream.requests.map((r) => r.model)).toEqual(['llama-3.3-70b', 'qwen2.5-coder']);
  });

  it('passes names through without a mapping', async () => {
    gw = await startGateway(() => ({ text: 'ok' }));
    await gw.openai.chat.completions.create({ model: 'my-model', messages: ASK, temperature: 0.2, max_tokens: 50 });
    expect(gw.upstream.requests[0]).toMatchObject({ model: 'my-model', temperature: 0.2, max_tokens: 50 });
  });
});
