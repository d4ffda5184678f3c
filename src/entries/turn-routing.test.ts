import { describe, expect, it } from 'vitest';
import { defaultTools } from '../../functions/index.ts';
import { MemoryActivityWriter } from '../activity/memory-writer.ts';
import { loadConfig } from '../config.ts';
import { createApp } from '../http/app.ts';
import { noAuth, type AppDeps } from '../http/deps.ts';
import { createModel } from '../model/index.ts';
import { createMemoryStorage } from '../store/memory.ts';
import { dispatch, LOCAL_OBJECT, routeFor, type ObjectNamespace, type Route } from './turn-routing.ts';

const ID = '0b7e6c1a-3f5d-4e2a-9c8b-1d2e3f4a5b6c';

describe('routeFor', () => {
  const cases: Array<[string, string, Route]> = [
    ['POST', '/v1/chat', { to: 'chat' }],
    ['GET', `/v1/turns/${ID}/stream`, { to: 'object', name: ID }],
    ['HEAD', `/v1/turns/${ID}/stream`, { to: 'object', name: ID }],
    ['POST', `/v1/turns/${ID}/stop`, { to: 'object', name: ID }],
    // A decision on a waiting call: the turn goes on in its object.
    ['POST', `/v1/turns/${ID}/approvals/apr_0123456789abcdef0123456789abcdef`, { to: 'object', name: ID }],
    ['GET', `/v1/turns/${ID.toUpperCase()}/stream`, { to: 'object', name: ID }],
    // useChat's routes: the Worker creates or finds the chat's turn, its object streams it.
    ['POST', '/v1/ui/chat', { to: 'ui-chat' }],
    ['GET', '/v1/ui/chat/my-chat%2F1/stream', { to: 'ui-chat' }],
    // Not about one running turn, or not a turn at all: the Worker's app answers (201, 404, 405, a preflight).
    ['POST', '/v1/turns', { to: 'worker' }],
    ['OPTIONS', `/v1/turns/${ID}/stream`, { to: 'worker' }],
    ['POST', `/v1/turns/${ID}/stream`, { to: 'worker' }],
    ['GET', `/v1/turns/${ID}/stop`, { to: 'worker' }],
    ['GET', `/v1/turns/${ID}/approvals/apr_0123456789abcdef0123456789abcdef`, { to: 'worker' }],
    ['POST', `/v1/turns/${ID}/approvals/apr_1/more`, { to: 'worker' }],
    ['GET', '/v1/turns/not-a-uuid/stream', { to: 'worker' }],
    ['GET', `/v1/turns/${ID}/stream/more`, { to: 'worker' }],
    ['GET', '/v1/chat', { to: 'worker' }],
    ['OPTIONS', '/v1/ui/chat', { to: 'worker' }],
    ['GET', '/v1/ui/chat', { to: 'worker' }],
    ['HEAD', '/v1/ui/chat/c/stream', { to: 'worker' }],
    ['POST', '/v1/ui/chat/c/stream', { to: 'worker' }],
    ['GET', '/v1/ui/chat/a/b/stream', { to: 'worker' }],
    ['GET', '/v1/sessions/x/messages', { to: 'worker' }],
    ['GET', '/health', { to: 'worker' }],
  ];
  it.each(cases)('shared storage: %s %s', (method, path, route) => {
    expect(routeFor(method, path, 'shared')).toEqual(route);
  });

  it('storage in one isolate: all of /v1/ goes to the one object that holds it, the rest stays', () => {
    for (const [method, path] of [
      ['POST', '/v1/chat'],
      ['POST', '/v1/ui/chat'],
      ['GET', '/v1/ui/chat/c/stream'],
      ['POST', '/v1/turns'],
      ['GET', `/v1/turns/${ID}/stream`],
      ['GET', '/v1/sessions/x/messages'],
      ['OPTIONS', '/v1/turns'],
    ] as const) {
      expect(routeFor(method, path, 'isolate'), `${method} ${path}`).toEqual({ to: 'object', name: LOCAL_OBJECT });
    }
    for (const path of ['/', '/health', '/dashboard', '/v1']) expect(routeFor('GET', path, 'isolate')).toEqual({ to: 'worker' });
  });
});

/** A Worker app and object apps over one shared store, as on Supabase; objects counted by name. */
function sharedWorld({ demoWordDelayMs = 0 } = {}) {
  const config = loadConfig({ TURN_TOKEN_SECRET: 'routing-test-secret-0123456789', KEEPALIVE_MS: '10000' });
  const deps: AppDeps = {
    config,
    model: createModel(config, { demoWordDelayMs }),
    storage: createMemoryStorage(),
    activity: new MemoryActivityWriter(),
    tools: defaultTools,
    auth: noAuth,
  };
  const worker = createApp(deps);
  const objects = new Map<string, { app: ReturnType<typeof createApp>; requests: Request[] }>();
  const namespace: ObjectNamespace = {
    idFromName: (name) => ({ name }),
    get: (id) => {
      const { name } = id as { name: string };
      const object = objects.get(name) ?? { app: createApp(deps), requests: [] };
      objects.set(name, object);
      return {
        fetch: async (request: Request) => {
          object.requests.push(request.clone());
          return object.app.fetch(request);
        },
      };
    },
  };
  const send = (request: Request) => dispatch(request, { storage: 'shared', serve: (r) => worker.fetch(r), objects: namespace });
  return { send, objects };
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  new Request(`http://127.0.0.1:8787${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('dispatch with shared storage', () => {
  it('POST /v1/chat: the Worker creates the turn, the object named by its id streams it', async () => {
    const { send, objects } = sharedWorld();
    const res = await send(post('/v1/chat', { message: 'hello' }, { 'x-trace': 'kept' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const body = await res.text();
    const turnId = /"turnId":"([^"]+)"/.exec(body)![1]!;
    expect(body).toContain('event: done');
    expect([...objects.keys()]).toEqual([turnId]);
    const [forwarded] = objects.get(turnId)!.requests;
    expect(forwarded!.method).toBe('GET');
    expect(new URL(forwarded!.url).pathname).toBe(`/v1/turns/${turnId}/stream`);
    expect(forwarded!.headers.get('x-trace')).toBe('kept');
    expect(forwarded!.headers.get('content-type')).toBeNull();

    // A reconnect reaches the same object, and so does a stop.
    const stream = await send(
      new Request(`http://127.0.0.1:8787${new URL(forwarded!.url).pathname}${new URL(forwarded!.url).search}`, { headers: { 'last-event-id': '1' } }),
    );
    expect(stream.status).toBe(200);
    expect(await stream.text()).toMatch(/^id: 2$/m);
    const stop = await send(post(`/v1/turns/${turnId}/stop`, {}));
    expect(stop.status).toBe(409); // finished: nothing to stop, but answered by the turn's object
    expect(objects.get(turnId)!.requests).toHaveLength(3);
    expect(objects.size).toBe(1);
  });

  it('a POST /v1/chat the Worker refuses is answered as refused, and wakes no object', async () => {
    const { send, objects } = sharedWorld();
    const res = await send(post('/v1/chat', { message: '' }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/message must not be empty/);
    expect(objects.size).toBe(0);
  });
});

/** The chunks of a UI message stream body (its `data:` lines), `[DONE]` as a string. */
function uiChunks(body: string): Array<Record<string, unknown> | string> {
  return body
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => (frame === 'data: [DONE]' ? '[DONE]' : (JSON.parse(frame.slice('data: '.length)) as Record<string, unknown>)));
}

const uiMessage = (chatId: string, text = 'hello') => ({
  id: chatId,
  messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }],
  trigger: 'submit-message',
});
const resume = (chatId: string) => new Request(`http://127.0.0.1:8787/v1/ui/chat/${chatId}/stream`, { headers: { 'x-trace': 'kept' } });

describe('dispatch of the useChat routes with shared storage', () => {
  it('POST /v1/ui/chat: the Worker creates the turn, the object named by its id streams it as a UI message stream', async () => {
    const { send, objects } = sharedWorld();
    const res = await send(post('/v1/ui/chat', uiMessage('chat-1'), { 'x-trace': 'kept' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const chunks = uiChunks(await res.text());
    const start = chunks[0] as { type: string; messageId: string };
    expect(start.type).toBe('start');
    expect(chunks.at(-2)).toMatchObject({ type: 'finish', messageMetadata: { reason: 'completed' } });
    expect(chunks.at(-1)).toBe('[DONE]');
    expect([...objects.keys()]).toEqual([start.messageId]);
    const [forwarded] = objects.get(start.messageId)!.requests;
    expect(forwarded!.method).toBe('GET');
    expect(new URL(forwarded!.url).pathname).toBe(`/v1/turns/${start.messageId}/stream`);
    expect(new URL(forwarded!.url).searchParams.get('format')).toBe('ui');
    expect(forwarded!.headers.get('x-trace')).toBe('kept');
    for (const name of ['content-type', 'x-rebound-handoff']) expect(forwarded!.headers.get(name), name).toBeNull();
    // The turn has ended: nothing to resume, and no object is asked.
    expect((await send(resume('chat-1'))).status).toBe(204);
    expect(objects.get(start.messageId)!.requests).toHaveLength(1);
  });

  it("GET /v1/ui/chat/:id/stream: the Worker finds the chat's running turn, its object replays it from the start after the sender left", async () => {
    const { send, objects } = sharedWorld({ demoWordDelayMs: 5 });
    const sent = await send(post('/v1/ui/chat', uiMessage('chat-2')));
    const reader = sent.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    await reader.cancel(); // useChat's stop(): the reader leaves, the turn runs on
    const turnId = (uiChunks(first)[0] as { messageId: string }).messageId;

    const resumed = await send(resume('chat-2'));
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const chunks = uiChunks(await resumed.text());
    expect(chunks[0]).toMatchObject({ type: 'start', messageId: turnId });
    expect(chunks.at(-2)).toMatchObject({ type: 'finish', messageMetadata: { reason: 'completed' } });
    expect([...objects.keys()]).toEqual([turnId]);
    expect(objects.get(turnId)!.requests.map((r) => new URL(r.url).searchParams.get('format'))).toEqual(['ui', 'ui']);
  });

  it('what the Worker refuses, or has no turn for, is answered by the Worker and wakes no object', async () => {
    const { send, objects } = sharedWorld();
    const refused = await send(post('/v1/ui/chat', { id: 'chat-3', messages: [] }));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/messages must not be empty/);
    expect((await send(resume('never-seen'))).status).toBe(204);
    expect(objects.size).toBe(0);
  });
});
