// The HTTP surface: the EventSource flow with stream tokens, 204 for a reconnect past a finished
// turn's end, sessions across turns, CORS. Every bad input and its JSON error is a row of bad-input.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { headerAuth, startApp, type TestApp } from '../support/app-server.ts';
import { collectWithEventSource, parseSse, shape, textOf } from '../support/sse-client.ts';

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
  it('POST /v1/turns then GET the stream with the eventsource package; a reconnect past the end gets 204, a fresh one the replay', async () => {
    const created = await createTurn({ message: 'first' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      turnId: expect.any(String),
      sessionId: expect.any(String),
      streamUrl: expect.stringMatching(/^\/v1\/turns\/[0-9a-f-]+\/stream\?token=/),
    });
    const events = await collectWithEventSource(app.url + created.body.streamUrl);
    expect(shape(events)).toEqual(['turn_start', 'text_delta', 'done']);
    expect(textOf(events)).toBe('You said: first');
    expect(events[0]!.data).toMatchObject({ turnId: created.body.turnId, sessionId: created.body.sessionId });

    const again = await fetch(app.url + created.body.streamUrl, { headers: { 'last-event-id': events.at(-1)!.id! } });
    expect(again.status).toBe(204);
    const replay = parseSse(await (await fetch(app.url + created.body.streamUrl)).text());
    expect(replay.events).toEqual(events);
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

describe('refusals lose nothing', () => {
  // The refusals themselves, with their status, code and message, are rows of test/http/bad-input.test.ts.
  it("another user's attempts on a session and a turn leave the owner's turn to run", async () => {
    const a = await createTurn({ message: 'one' });
    const b = await createTurn({ message: 'two' });
    const tokenOfB = new URL(app.url + b.body.streamUrl).searchParams.get('token')!;
    expect((await fetch(`${app.url}/v1/turns/${a.body.turnId}/stream?token=${encodeURIComponent(tokenOfB)}`)).status).toBe(403);
    expect((await createTurn({ message: 'hijack', sessionId: a.body.sessionId }, bob)).status).toBe(403);
    expect((await fetch(`${app.url}/v1/sessions/${a.body.sessionId}/messages`, { headers: bob })).status).toBe(403);
    const events = await collectWithEventSource(app.url + a.body.streamUrl);
    expect(textOf(events)).toBe('You said: one');
    expect(upstream.requests.some((r) => r.messages.some((m) => m.content === 'hijack'))).toBe(false);
  });

  it('the health route answers', async () => {
    const res = await fetch(`${app.url}/health`);
    expect(await res.json()).toEqual({ ok: true, model: 'gpt-4o-mini', demo: false, storage: 'memory' });
  });
});

describe('CORS', () => {
  it('answers a preflight from a configured origin and not from another', async () => {
    const corsApp = await startApp({ CORS_ORIGINS: 'https://chat.example' });
    try {
      const ok = await fetch(`${corsApp.url}/v1/turns`, {
        method: 'OPTIONS',
        headers: { origin: 'https://chat.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' },
      });
      expect(ok.status).toBe(204);
      expect(ok.headers.get('access-control-allow-origin')).toBe('https://chat.example');
      expect(ok.headers.get('access-control-allow-headers')).toMatch(/Authorization/i);
      // Resume (EventSource's Last-Event-ID) and the gateway's own credential when the client key is forwarded.
      expect(ok.headers.get('access-control-allow-headers')).toMatch(/Last-Event-ID/i);
      expect(ok.headers.get('access-control-allow-headers')).toMatch(/X-Rebound-Authorization/i);
      const other = await fetch(`${corsApp.url}/v1/turns`, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await corsApp.close();
    }
  });

  it('says once that an answer varies with the Origin', async () => {
    const corsApp = await startApp({ CORS_ORIGINS: 'https://chat.example' });
    try {
      const res = await fetch(`${corsApp.url}/v1/turns`, {
        method: 'POST',
        headers: { origin: 'https://chat.example', 'content-type': 'application/json' },
        body: '{',
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://chat.example');
      expect(res.headers.get('vary')).toBe('Origin');
    } finally {
      await corsApp.close();
    }
  });
});
