// GET /v1/ui/chat/:id/stream, what useChat({resume: true}) calls on mount, through the `ai` package's
// DefaultChatTransport.reconnectToStream: the chat's running turn, replayed from its first event and
// then followed (from this process, or from the persisted log when another instance runs it), or 204
// when none runs. A client that leaves (useChat's stop() aborts the fetch) ends only its reader; the
// stop endpoint, with the turn id from the start chunk, ends the turn.
import { afterEach, describe, expect, it } from 'vitest';
import type { UIMessageChunk } from 'ai';
import { headerAuth, startApp, type TestApp } from '../support/app-server.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { createMemoryStorage } from '../../src/store/memory.ts';
import { chatSessionId } from '../../src/http/ui-stream/chat-session.ts';
import { readReply, textOf, transport, userMessage } from './client.ts';

const LONG = `${Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ')}.`;

let apps: TestApp[] = [];
let upstream: ScriptedServer | undefined;
afterEach(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await upstream?.close();
  apps = [];
  upstream = undefined;
});

/** A scripted model that answers LONG slowly (about 1.5 s), and `count` apps over one storage (instances of one deployment). */
async function setup(count = 1, overrides: Parameters<typeof startApp>[1] = {}) {
  upstream = await startScriptedOpenAI(() => ({ text: LONG, delayMs: 25 }));
  const storage = createMemoryStorage();
  for (let i = 0; i < count; i++)
    apps.push(await startApp({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: upstream.url, MODEL: 'scripted-1' }, { storage, ...overrides }));
  return { upstream, apps };
}

/** Sends a message as useChat does and leaves after the first text (useChat's stop() aborts the fetch). Returns the start chunk. */
async function sendAndLeave(baseUrl: string, chatId: string, headers: Record<string, string> = {}) {
  const leave = new AbortController();
  const stream = await transport(baseUrl, headers).sendMessages({
    chatId,
    messages: [userMessage('tell me a long story')],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: leave.signal,
  });
  const reader = stream.getReader();
  const seen: UIMessageChunk[] = [];
  while (!seen.some((c) => c.type === 'text-delta')) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the stream ended before any text');
    seen.push(value);
  }
  leave.abort();
  await reader.cancel().catch(() => {});
  const start = seen[0] as Extract<UIMessageChunk, { type: 'start' }>;
  return { turnId: start.messageId!, metadata: start.messageMetadata as { turnId: string; sessionId: string } };
}

async function resume(baseUrl: string, chatId: string, headers: Record<string, string> = {}) {
  const seen: Response[] = [];
  const stream = await transport(baseUrl, headers, seen).reconnectToStream({ chatId });
  return { stream, response: seen[0]! };
}

describe('GET /v1/ui/chat/:id/stream', () => {
  it('replays the running turn from its start and follows it to the end; 204 once it has ended, and for a chat never seen', async () => {
    const [app] = (await setup()).apps;
    const never = await resume(app!.url, 'never-seen');
    expect(never.stream).toBeNull();
    expect(never.response.status).toBe(204);
    expect(await app!.deps.storage.sessions.getSession(await chatSessionId(null, 'never-seen'))).toBeNull(); // nothing created

    const { turnId, metadata } = await sendAndLeave(app!.url, 'story');
    expect(metadata.turnId).toBe(turnId);
    // The reader left; the turn did not: the chat's running turn is resumed whole.
    const resumed = await resume(app!.url, 'story');
    expect(resumed.response.status).toBe(200);
    expect(resumed.response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const reply = await readReply(resumed.stream!, resumed.response);
    expect(reply.errors).toEqual([]);
    expect(reply.chunks[0]).toMatchObject({ type: 'start', messageId: turnId });
    expect(reply.message.id).toBe(turnId);
    expect(textOf(reply.message)).toBe(LONG);
    expect(reply.message.metadata).toMatchObject({ turnId, reason: 'completed', iterations: 1 });
    expect(upstream!.aborted).toBe(0);

    const after = await resume(app!.url, 'story');
    expect(after.stream).toBeNull();
    expect(after.response.status).toBe(204);
  });

  it('refuses a second message while a turn runs in the chat (409, naming the turn), and takes it once the turn has ended', async () => {
    const [app] = (await setup()).apps;
    const { turnId } = await sendAndLeave(app!.url, 'busy');
    const res = await fetch(`${app!.url}/v1/ui/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'busy', messages: [userMessage('and another')] }),
    });
    expect(res.status).toBe(409);
    const error = ((await res.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('conflict');
    expect(error.message).toContain(`POST /v1/turns/${turnId}/stop`);
    const resumed = await resume(app!.url, 'busy');
    await readReply(resumed.stream!, resumed.response);
    const next = await transport(app!.url).sendMessages({
      chatId: 'busy',
      messages: [userMessage('and another')],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    expect(textOf((await readReply(next, resumed.response)).message)).toBe(LONG);
  });

  it('stops the turn with POST /v1/turns/:id/stop (the turn id from the start chunk): the stream ends with abort', async () => {
    const [app] = (await setup()).apps;
    const { turnId } = await sendAndLeave(app!.url, 'stop-me');
    const resumed = await resume(app!.url, 'stop-me');
    const reading = readReply(resumed.stream!, resumed.response);
    const stop = await fetch(`${app!.url}/v1/turns/${turnId}/stop`, { method: 'POST' });
    expect(stop.status).toBe(202);
    const reply = await reading;
    expect(reply.errors).toEqual([]);
    expect(reply.chunks.map((c) => c.type).slice(-2)).toEqual(['message-metadata', 'abort']);
    expect(reply.chunks.some((c) => c.type === 'finish')).toBe(false);
    expect(reply.message.metadata).toMatchObject({ turnId, reason: 'aborted' });
    expect(textOf(reply.message).length).toBeLessThan(LONG.length);
    await upstream!.waitForAbort();
    expect((await resume(app!.url, 'stop-me')).response.status).toBe(204);
  });

  it('resumes on another instance from the persisted log', async () => {
    const [a, b] = (await setup(2)).apps;
    const { turnId } = await sendAndLeave(a!.url, 'elsewhere');
    const resumed = await resume(b!.url, 'elsewhere');
    expect(resumed.response.status).toBe(200);
    const reply = await readReply(resumed.stream!, resumed.response);
    expect(reply.errors).toEqual([]);
    expect(reply.message.id).toBe(turnId);
    expect(textOf(reply.message)).toBe(LONG);
    expect(reply.message.metadata).toMatchObject({ reason: 'completed' });
  });

  it('is per user: another user with the same chat id has nothing to resume; no credentials is a 401', async () => {
    const [app] = (await setup(1, { auth: headerAuth })).apps;
    await sendAndLeave(app!.url, 'mine', { 'x-test-user': 'alice' });
    const bob = await resume(app!.url, 'mine', { 'x-test-user': 'bob' });
    expect(bob.response.status).toBe(204);
    const anonymous = await fetch(`${app!.url}/v1/ui/chat/mine/stream`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    const alice = await resume(app!.url, 'mine', { 'x-test-user': 'alice' });
    expect(textOf((await readReply(alice.stream!, alice.response)).message)).toBe(LONG);
  });
});
