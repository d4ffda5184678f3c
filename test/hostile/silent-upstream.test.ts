// The hostile-model suite, upstreams that hold the gateway: one that never sends its response headers,
// and one whose non-streamed answer is larger than any completion (MAX_COMPLETION_BYTES). Against the
// real app over loopback, each gateway route, the chat upstream and the native ones: every request
// gets a bounded answer (docs/configuration.md § Limits), not a connection held forever. No timing is
// asserted.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_COMPLETION_BYTES } from '../../src/gateway/upstream.ts';
import { startApp, type TestApp } from '../support/app-server.ts';

let mode: 'silent' | 'huge' = 'silent';
let asked = 0;
const held: ServerResponse[] = [];
let upstream: Server;
let app: TestApp;
/** The same, with the native upstreams: MESSAGES_UPSTREAM=anthropic, RESPONSES_UPSTREAM=responses. */
let native: TestApp;
/** The same with a wait for headers no loaded machine reaches, for the answer past the cap (the wait is not what it tests). */
let patient: TestApp;

beforeAll(async () => {
  upstream = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      asked++;
      if (mode === 'silent')
        held.push(res); // never answered
      else {
        // The headers first, so that building and writing 32 MB on a loaded machine is not taken for
        // an upstream that never answered (the 200 ms MODEL_TIMEOUT_MS is the wait for headers).
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        res.end(`{"pad":"${'x'.repeat(MAX_COMPLETION_BYTES)}"}`);
      }
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const env = {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: `${url}/v1`,
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    MODEL_TIMEOUT_MS: '200',
    MODEL_RETRIES: '1',
  };
  app = await startApp(env);
  native = await startApp({ ...env, MESSAGES_UPSTREAM: 'anthropic', RESPONSES_UPSTREAM: 'responses' });
  patient = await startApp({ ...env, MODEL_TIMEOUT_MS: '30000' });
});

afterAll(async () => {
  for (const res of held.splice(0)) res.destroy();
  await app?.close();
  await native?.close();
  await patient?.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'go' }] };
const messages = { model: 'claude-test', max_tokens: 16, messages: [{ role: 'user', content: 'go' }] };
const responses = { model: 'gpt-4o-mini', input: 'go' };
const routes: Array<[string, unknown]> = [
  ['/v1/chat/completions', chat],
  ['/v1/messages', messages],
  ['/v1/responses', responses],
];

async function post(path: string, body: unknown, to: TestApp = app) {
  const res = await fetch(`${to.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

describe('an upstream that never answers', () => {
  it.each(routes)('%s: a 504 after MODEL_TIMEOUT_MS that names the wait', async (path, body) => {
    mode = 'silent';
    const before = asked;
    const answer = await post(path, body);
    expect(answer.status).toBe(504);
    expect(answer.text).toMatch(/did not answer within 200 ms \(MODEL_TIMEOUT_MS\)/);
    // The request reached the upstream: on a loaded machine its server may read it after the 504.
    await expect.poll(() => asked, { timeout: 5_000 }).toBeGreaterThan(before);
  });

  it.each(routes.slice(1))('%s, native upstream: the same 504', async (path, body) => {
    mode = 'silent';
    const answer = await post(path, body, native);
    expect(answer.status).toBe(504);
    expect(answer.text).toMatch(/did not answer within 200 ms \(MODEL_TIMEOUT_MS\)/);
  });
});

describe('an upstream answer past MAX_COMPLETION_BYTES', () => {
  it('/v1/chat/completions: the gateway stops reading it and answers 502 upstream_too_large', async () => {
    mode = 'huge';
    const answer = await post('/v1/chat/completions', chat, patient);
    expect(answer.status).toBe(502);
    expect(answer.text.length).toBeLessThan(16 * 1024);
    expect(answer.text).toMatch(/larger than 32 MB; the gateway stopped reading it/);
  });
});
