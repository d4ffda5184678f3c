// Durable turns over real HTTP (Node): a turn outlives its connections. Resume with Last-Event-ID at a
// random event joins up with no gap and no duplicate, a turn completes with nobody attached, stop ends
// it for every reader, two readers see the same events, and only the owner may stop or read it.
import { describe, expect, it } from 'vitest';
import type { Script, ScriptedServer } from '../support/scripted-openai.ts';
import { headerAuth } from '../support/app-server.ts';
import { scriptedApps } from '../support/scripted-app.ts';
import { parseBlock, type SseEvent } from '../support/sse-client.ts';

const start = scriptedApps({ KEEPALIVE_MS: '200' });
/** The upstream of the app `setup` started last, for the tests that look at it. */
let upstream: ScriptedServer | undefined;

const ANSWER = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
/** A turn with text, a tool call and a final answer, streamed slowly enough to be cut anywhere. */
const script: Script = (req) =>
  req.messages.some((m) => m.role === 'tool')
    ? { text: ANSWER, delayMs: 4 }
    : { text: 'Let me look.', toolCalls: [{ name: 'list_files', arguments: '{}' }], delayMs: 4 };

async function setup(env: Record<string, string> = {}, scriptFor: Script = script, auth = false) {
  const started = await start(scriptFor, { env, deps: auth ? { auth: headerAuth } : {} });
  upstream = started.upstream;
  return started.app;
}

async function createTurn(base: string, message: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/v1/turns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ message }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { turnId: string; sessionId: string; streamUrl: string };
}

/** Reads a stream's events; stops (drops the connection) after `limit` events when given. */
async function read(url: string, options: { lastEventId?: number; limit?: number; headers?: Record<string, string> } = {}) {
  const controller = new AbortController();
  const res = await fetch(url, {
    headers: { ...(options.lastEventId !== undefined ? { 'last-event-id': String(options.lastEventId) } : {}), ...options.headers },
    signal: controller.signal,
  });
  const events: SseEvent[] = [];
  if (res.status !== 200) return { status: res.status, events };
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = res.body!.getReader();
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      buffer += decoder.decode(r.value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const parsed = parseBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (parsed.event) events.push(parsed.event);
        if (options.limit !== undefined && events.length >= options.limit) {
          controller.abort();
          return { status: res.status, events };
        }
      }
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  }
  return { status: res.status, events };
}

const ids = (events: SseEvent[]) => events.map((e) => Number(e.id));
const strip = (events: SseEvent[]) =>
  events.map(({ event, data }) => ({
    event,
    data: JSON.parse(JSON.stringify(data, (k, v) => (['turnId', 'sessionId', 'durationMs', 'id'].includes(k) ? undefined : v))),
  }));

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('durable turns', () => {
  it('resumes after a drop at a random event: joined events equal an uninterrupted run, ids contiguous', async () => {
    const app = await setup();
    const reference = await read(`${app.url}${(await createTurn(app.url, 'look around')).streamUrl}`);
    expect(reference.events.at(-1)!.event).toBe('done');
    const total = reference.events.length;
    expect(total).toBeGreaterThan(20);

    for (const cut of [1, 2 + Math.floor(Math.random() * (total - 4)), total - 1]) {
      const turn = await createTurn(app.url, 'look around');
      const url = `${app.url}${turn.streamUrl}`;
      const first = await read(url, { limit: cut });
      expect(first.events).toHaveLength(cut);
      await new Promise((r) => setTimeout(r, 30)); // the turn runs on meanwhile
      const rest = await read(url, { lastEventId: Number(first.events.at(-1)!.id) });
      const joined = [...first.events, ...rest.events];
      expect(ids(joined)).toEqual(joined.map((_, i) => i + 1));
      expect(strip(joined)).toEqual(strip(reference.events));
      // The same turn replayed whole after its end, from the log, is the same event for event.
      expect((await read(url)).events).toEqual(joined);
      // And a reconnect that has seen everything gets 204, which stops EventSource.
      expect((await read(url, { lastEventId: joined.length })).status).toBe(204);
    }
  });

  it('completes a turn nobody is reading: done completed, history and activity rows written', async () => {
    const app = await setup();
    const turn = await createTurn(app.url, 'look around');
    const url = `${app.url}${turn.streamUrl}`;
    await read(url, { limit: 2 }); // start it, then leave
    await waitFor(async () => (await app.deps.storage.sessions.getTurn(turn.turnId))?.status === 'finished');
    const history = await app.deps.storage.sessions.history(turn.sessionId);
    expect(history[0]).toEqual({ role: 'user', content: 'look around' });
    expect(history.at(-1)).toEqual({ role: 'assistant', content: ANSWER });
    expect(app.activity.calls.filter((r) => r.turn_id === turn.turnId)).toHaveLength(1);
    const replay = await read(url);
    expect(replay.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed' } });
  });

  it('stop ends the turn as aborted for every reader, aborts the upstream request, and is idempotent', async () => {
    const app = await setup({}, () => ({ text: ANSWER, delayMs: 200 }));
    const turn = await createTurn(app.url, 'talk slowly');
    const url = `${app.url}${turn.streamUrl}`;
    const readers = [read(url), read(url)];
    await read(url, { limit: 2 }); // turn_start and the first words: something was shown before the stop
    const stop = () => fetch(`${app.url}/v1/turns/${turn.turnId}/stop`, { method: 'POST' });
    const first = await stop();
    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({ turnId: turn.turnId, status: 'stopping' });
    await upstream!.waitForAbort(5_000);
    const [a, b] = (await Promise.all(readers)) as [Awaited<(typeof readers)[0]>, Awaited<(typeof readers)[1]>];
    expect(a.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'aborted' } });
    expect(b.events).toEqual(a.events);
    // What the readers were shown of the cut answer is kept in the history, after the user's message.
    const shown = a.events
      .filter((e) => e.event === 'text_delta')
      .map((e) => e.data.text)
      .join('');
    expect(shown.length).toBeGreaterThan(0);
    await waitFor(async () => (await app.deps.storage.sessions.getTurn(turn.turnId))?.status === 'finished');
    expect(await app.deps.storage.sessions.history(turn.sessionId)).toEqual([
      { role: 'user', content: 'talk slowly' },
      { role: 'assistant', content: shown },
    ]);
    const again = await stop();
    expect(again.status).toBe(409);
    expect((await again.json()).error).toMatchObject({ status: 409, code: 'conflict' });
  });

  it('two readers that join at different times receive the same events', async () => {
    const app = await setup();
    const turn = await createTurn(app.url, 'look around');
    const url = `${app.url}${turn.streamUrl}`;
    const early = read(url);
    await new Promise((r) => setTimeout(r, 40));
    const late = await read(url);
    expect(late.events).toEqual((await early).events);
    expect(late.events.at(-1)!.event).toBe('done');
  });

  it('ON_DISCONNECT=abort restores the old behaviour: the reader leaving aborts the turn', async () => {
    const app = await setup({ ON_DISCONNECT: 'abort' }, () => ({ text: ANSWER, delayMs: 100 }));
    const turn = await createTurn(app.url, 'talk slowly');
    await read(`${app.url}${turn.streamUrl}`, { limit: 2 });
    await upstream!.waitForAbort(5_000);
    await waitFor(async () => (await app.deps.storage.sessions.getTurn(turn.turnId))?.status === 'finished');
    expect((await read(`${app.url}${turn.streamUrl}`)).events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'aborted' } });
  });

  it('only the owner may stop a turn or read its stream; no credentials is a 401', async () => {
    const app = await setup({}, () => ({ text: ANSWER, delayMs: 100 }), true);
    const turn = await createTurn(app.url, 'mine', { 'x-test-user': 'alice' });
    const stopAs = (user?: string) => fetch(`${app.url}/v1/turns/${turn.turnId}/stop`, { method: 'POST', headers: user ? { 'x-test-user': user } : {} });
    expect((await stopAs()).status).toBe(401);
    const forbidden = await stopAs('mallory');
    expect(forbidden.status).toBe(403);
    expect((await forbidden.json()).error.code).toBe('forbidden');
    // A stream token is bound to its turn and user: no token is 401, another turn's token is 403.
    expect((await read(`${app.url}/v1/turns/${turn.turnId}/stream`)).status).toBe(401);
    const other = await createTurn(app.url, 'theirs', { 'x-test-user': 'mallory' });
    const token = new URL(other.streamUrl, app.url).searchParams.get('token')!;
    expect((await read(`${app.url}/v1/turns/${turn.turnId}/stream?token=${encodeURIComponent(token)}`)).status).toBe(403);
    expect((await stopAs('alice')).status).toBe(202);
  });

  it('refuses a Last-Event-ID that is not a number, saying what to send', async () => {
    const app = await setup();
    const turn = await createTurn(app.url, 'look around');
    const res = await fetch(`${app.url}${turn.streamUrl}&lastEventId=abc`);
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toMatch(/Last-Event-ID must be/);
  });
});
