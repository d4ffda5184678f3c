// A user's message with NUL, a lone surrogate or the storage escape character in it, through the app as
// `npm start` wires it (embedded PGlite, the demo model): accepted (it used to be a 500: PostgreSQL
// refused the NUL in agent_turns.message), run, and given back exactly by the history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openLocalDeps, type LocalDeps } from '../../src/entries/local.ts';
import { noAuth } from '../../src/http/deps.ts';
import { ESCAPE } from '../../src/store/text-codec.ts';
import { startApp, type TestApp } from '../support/app-server.ts';
import { chat, parseSse } from '../support/sse-client.ts';

let local: LocalDeps;
let app: TestApp;

beforeAll(async () => {
  local = await openLocalDeps(loadConfig({ DEMO_MODEL: 'true' }), { auth: noAuth, demoWordDelayMs: 0, activity: { flushIntervalMs: 10 } });
  const { storage, activity, dashboard } = local.deps;
  app = await startApp({ DEMO_MODEL: 'true' }, { storage, activity, dashboard });
});
afterAll(async () => {
  await app?.close();
  await local?.close();
});

const MESSAGES = ['hi \u0000 there', 'lone \uD800 and \uDC00', `escape ${ESCAPE}0000 and \u{1F600}`];

async function history(sessionId: string) {
  const res = await fetch(`${app.url}/v1/sessions/${sessionId}/messages`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: Array<{ role: string; content: string | null }> }).messages;
}

describe('a user message PostgreSQL cannot hold as it is', () => {
  it.each(MESSAGES)('POST /v1/chat %j: 200, the turn runs, the history gives the message back', async (message) => {
    const stream = await chat(app.url, { message });
    expect(stream.status).toBe(200);
    expect(stream.events.map((e) => e.event)).not.toContain('agent_error');
    expect(stream.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed' } });
    const sessionId = stream.events[0]?.data.sessionId as string;
    expect((await history(sessionId))[0]).toEqual({ role: 'user', content: message });
  });

  it.each(MESSAGES)('POST /v1/turns %j: 201, the stream runs it, the history gives it back', async (message) => {
    const res = await fetch(`${app.url}/v1/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }) });
    expect(res.status).toBe(201);
    const { sessionId, streamUrl } = (await res.json()) as { sessionId: string; streamUrl: string };
    const events = parseSse(await (await fetch(new URL(streamUrl, app.url))).text()).events;
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed' } });
    expect((await history(sessionId))[0]).toEqual({ role: 'user', content: message });
  });
});
