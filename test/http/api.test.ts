// The HTTP surface: the EventSource flow with stream tokens, 204 on a finished turn, sessions
// across turns, and a clear JSON error for every bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { headerAuth, startApp, type TestApp } from '../support/app-server.ts';
import { collectWithEventSource, shape, textOf } from '../support/sse-client.ts';

let upstream: ScriptedServer;
let app: TestApp;
beforeAll(async () => {
  upstream = await startScriptedOpenAI((req) => ({ text: `You said: ${req.messages.filter((m) => m.role === 'user').at(-1)?.content}` }));
  app = await startApp({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: upstream.url, MAX_MESSAGE_CHARS: '1000' }, { auth: headerAuth });
});
afterAll(async () => {
  await app.close();
  await upstream.close();
});

const alice = { 'content-type': 'application/json', 'x-test-user': 'alice' };
const bob = { 'content-type': 'application/json', 'x-test-user': 'bob' };

async function createTurn(body: unknown, headers: Record<string, string> = alice) {
  const res = await fetch(`${app.url}/v1/turns`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}

describe('EventSource flow', () => {
  it('POST /v1/turns then GET the stream with the eventsource package; a reconnect gets 204', async () => {
    const created = await createTurn({ message: 'first' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ turnId: expect.any(String), sessionId: expect.any(String), streamUrl: expect.stringMatching(/^\/v1\/turns\/[0-9a-f-]+\/stream\?token=/) });
    const events = await collectWithEventSource(app.url + created.body.streamUrl);
    expect(shape(events)).toEqual(['turn_start', 'text_delta', 'done']);
    expect(textOf(events)).toBe('You said: first');
    expect(events[0]!.data).toMatchObject({ turnId: created.body.turnId, sessionId: created.body.sessionId });

    const again = await fetch(app.url + created.body.streamUrl);
    expect(again.status).toBe(204);
    expect(upstream.requests.filter((r) => r.messages.some((m) => m.content === 'first'))).toHaveLength(1);
  });

  it('continues a session: the second turn sees the first in its history', async () => {
    const first = await createTurn({ message: 'remember the word cobalt' });
    await collectWithEventSource(app.url + first.body.streamUrl);
    const second = await createTurn({ message: 'which word?', sessionId: first.body.sessionId });
    expect(second.body.sessionId).toBe(first.body.sessionId);
    await collectWithEventSource(app.url + second.body.streamUrl);
    const sent = upstream.requests.at(-1)!.messages.map((m) => m.content);
    expect(sent).toContain('remember the word cobalt');
    expect(sent).toContain('You said: remember the word cobalt');
    const history = await fetch(`${app.url}/v1/sessions/${first.body.sessionId}/messages`, { headers: alice });
    expect(history.status).toBe(200);
    const { messages } = (await history.json()) as { messages: Array<{ role: string; content: string }> };
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });
});

describe('bad input', () => {
  const post = (body: string, headers: Record<string, string> = alice, path = '/v1/turns') => fetch(`${app.url}${path}`, { method: 'POST', headers, body });

  async function expectError(res: Response, status: number, pattern: RegExp) {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const body = (await res.json()) as { error: { status: number; code: string; message: string } };
    expect(body.error.status).toBe(status);
    expect(body.error.message).toMatch(pattern);
    return body;
  }

  it('400 for malformed JSON', async () => {
    await expectError(await post('{"message": "hi"'), 400, /not valid JSON/);
    await expectError(await post('{"message": ', alice, '/v1/chat'), 400, /not valid JSON/);
  });

  it('400 for a missing, empty or mistyped field, naming the field', async () => {
    await expectError(await post('{}'), 400, /message/);
    await expectError(await post('{"message": "   "}'), 400, /message must not be empty/);
    await expectError(await post('{"message": 42}'), 400, /message/);
    await expectError(await post('{"message": "hi", "sessionId": "nope"}'), 400, /sessionId must be a UUID/);
  });

  it('413 for a message or body that is too large', async () => {
    await expectError(await post(JSON.stringify({ message: 'x'.repeat(1001) })), 400, /at most 1000 characters/);
    await expectError(await post(JSON.stringify({ message: 'x'.repeat(300 * 1024) })), 413, /larger than 256 KB/);
  });

  it('415 for another content type', async () => {
    await expectError(await post('message=hi', { 'content-type': 'application/x-www-form-urlencoded', 'x-test-user': 'alice' }), 415, /application\/json/);
    await expectError(await post('{"message":"hi"}', { 'x-test-user': 'alice' }), 415, /application\/json/);
  });

  it('404 for an unknown route or turn', async () => {
    await expectError(await fetch(`${app.url}/v2/nothing`), 404, /No route GET \/v2\/nothing/);
    await expectError(await fetch(`${app.url}/v1/turns/00000000-0000-4000-8000-000000000000/stream?token=x`), 404, /No turn/);
    await expectError(await fetch(`${app.url}/v1/turns/not-a-uuid/stream`), 404, /No turn/);
  });

  it('401 without credentials, or without a valid stream token', async () => {
    await expectError(await post('{"message":"hi"}', { 'content-type': 'application/json' }), 401, /credentials/);
    const { body } = await createTurn({ message: 'token checks' });
    const base = `${app.url}/v1/turns/${body.turnId}/stream`;
    await expectError(await fetch(base), 401, /Missing stream token/);
    await expectError(await fetch(`${base}?token=garbage`), 401, /Malformed stream token/);
  });

  it('403 for a token of another turn, or a session of another user', async () => {
    const a = await createTurn({ message: 'one' });
    const b = await createTurn({ message: 'two' });
    const tokenOfB = new URL(app.url + b.body.streamUrl).searchParams.get('token')!;
    await expectError(await fetch(`${app.url}/v1/turns/${a.body.turnId}/stream?token=${encodeURIComponent(tokenOfB)}`), 403, /not valid for this turn/);
    const stolen = await createTurn({ message: 'hijack', sessionId: a.body.sessionId }, bob);
    expect(stolen.status).toBe(403);
    expect(stolen.body.error.message).toMatch(/belongs to another user/);
    const peek = await fetch(`${app.url}/v1/sessions/${a.body.sessionId}/messages`, { headers: bob });
    await expectError(peek, 403, /another user/);
    // Nothing was lost: the rightful owner's turn still runs.
    const events = await collectWithEventSource(app.url + a.body.streamUrl);
    expect(textOf(events)).toBe('You said: one');
  });

  it('the health route answers', async () => {
    const res = await fetch(`${app.url}/health`);
    expect(await res.json()).toEqual({ ok: true, model: 'gpt-4o-mini', demo: false });
  });
});

describe('CORS', () => {
  it('answers a preflight from a configured origin and not from another', async () => {
    const corsApp = await startApp({ CORS_ORIGINS: 'https://chat.example' });
    try {
      const ok = await fetch(`${corsApp.url}/v1/turns`, { method: 'OPTIONS', headers: { origin: 'https://chat.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' } });
      expect(ok.status).toBe(204);
      expect(ok.headers.get('access-control-allow-origin')).toBe('https://chat.example');
      expect(ok.headers.get('access-control-allow-headers')).toMatch(/Authorization/i);
      const other = await fetch(`${corsApp.url}/v1/turns`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await corsApp.close();
    }
  });
});
