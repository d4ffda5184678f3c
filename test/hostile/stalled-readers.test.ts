// The hostile-client suite, readers that never read: raw node:net sockets that send their request and
// then take nothing, against the real app over loopback. What the server holds for them is measured
// where it would pile up: the external memory of the queued chunks (process.memoryUsage().arrayBuffers)
// for a turn's readers, the bytes the upstream could write for the gateway's. Then the server closes
// them (READER_STALL_MS), caps the readers of a turn (MAX_READERS_PER_TURN), and under
// ON_DISCONNECT=abort stops a turn only when its last reader has left. No timing is asserted.
import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import type { Reply, ScriptedServer } from '../support/scripted-openai.ts';
import type { TestApp } from '../support/app-server.ts';
import { scriptedApps } from '../support/scripted-app.ts';
import { collectWithEventSource } from '../support/sse-client.ts';

const MB = 1024 * 1024;
/** A 10 MB answer in 1,000 deltas of 10 KB. */
const BIG: Reply = { text: `${'y'.repeat(10 * 1024 - 1)} `.repeat(1_000) };
/** A 30 MB answer, for the gateway: more than the kernel's buffers between the upstream and a client can hold. */
const HUGE: Reply = { text: `${'y'.repeat(10 * 1024 - 1)} `.repeat(3_000) };

const sockets: Socket[] = [];
// Registered before the sockets' afterEach, so it runs after it (hooks run as a stack).
const startScripted = scriptedApps();
/** The upstream of the app `start` started last, for the tests that look at it. */
let upstream: ScriptedServer | undefined;
afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
});

async function start(reply: (index: number) => Reply, env: Record<string, string> = {}) {
  const started = await startScripted((_req, index) => reply(index), { env });
  upstream = started.upstream;
  return started.app;
}

/** A client that sends one request and never reads: the socket is paused before any byte arrives. */
function stalled(url: string, request: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.pause();
      socket.write(request);
      resolve(socket);
    });
    socket.on('error', reject);
    sockets.push(socket);
  });
}
const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
/** The connections the app's server holds open. */
const connections = (a: TestApp) => new Promise<number>((resolve, reject) => a.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));

/** Collects garbage first (the flag set at run time), so that what is measured is what is held. */
function heldArrayBuffers(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().arrayBuffers;
}

async function createTurn(url: string): Promise<{ turnId: string; streamUrl: string }> {
  const res = await fetch(`${url}/v1/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message": "go"}' });
  expect(res.status).toBe(201);
  return (await res.json()) as { turnId: string; streamUrl: string };
}

async function finished(a: TestApp, turnId: string) {
  await expect.poll(async () => (await a.deps.storage.sessions.getTurn(turnId))?.status, { timeout: 60_000, interval: 100 }).toBe('finished');
}

describe('readers that never read', () => {
  it("20 stalled readers of a 10 MB turn hold their sockets' buffers, not the turn; the server closes them after READER_STALL_MS", async () => {
    const a = await start(() => BIG, { READER_STALL_MS: '3000' });
    const { turnId, streamUrl } = await createTurn(a.url);
    const before = heldArrayBuffers();
    const readers = await Promise.all(Array.from({ length: 20 }, () => stalled(a.url, get(streamUrl))));
    await finished(a, turnId);
    // Each reader's queue stops at 64 KB past its socket: 20 × 10 MB of chunks would be 200 MB.
    const held = heldArrayBuffers() - before;
    expect(held).toBeLessThan(30 * MB);
    // Taking nothing while data waits, each is closed by the server (no client-side timeout here):
    // the server holds no connection for them any more.
    await expect.poll(() => connections(a), { timeout: 20_000 }).toBe(0);
    expect(readers.every((r) => !r.destroyed)).toBe(true);
    // The turn ran to its end for whoever reads it properly.
    const events = await collectWithEventSource(a.url + streamUrl, 60_000);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed' } });
  });

  it('the gateway reads its upstream only as fast as its client takes the answer, and aborts it when the client is closed', async () => {
    const a = await start(() => HUGE, { READER_STALL_MS: '2000' });
    const body = JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'go' }] });
    const client = await stalled(
      a.url,
      `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await upstream!.waitForAbort(30_000);
    await expect.poll(() => connections(a), { timeout: 10_000 }).toBe(0);
    expect(client.destroyed).toBe(false); // the client never learnt it: it reads nothing
    expect(upstream!.abortedRequests).toEqual([0]);
    // Of a 30 MB answer, the upstream could write what the buffers between it and the stalled client
    // hold (the kernel's socket buffers on loopback are a few MB each way), not the rest.
    expect(upstream!.sentBytes[0]).toBeLessThan(20 * MB);
  });

  it.each([
    ['/v1/messages', { model: 'claude-test', max_tokens: 1024, stream: true, messages: [{ role: 'user', content: 'go' }] }],
    ['/v1/responses', { model: 'gpt-4o-mini', stream: true, input: 'go' }],
  ])('%s through a chat upstream: the same, a stalled reader holds the buffers, not the answer', async (path, request) => {
    const a = await start(() => HUGE, { READER_STALL_MS: '2000' });
    const body = JSON.stringify(request);
    const client = await stalled(
      a.url,
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await upstream!.waitForAbort(30_000);
    await expect.poll(() => connections(a), { timeout: 10_000 }).toBe(0);
    expect(client.destroyed).toBe(false);
    expect(upstream!.abortedRequests).toEqual([0]);
    expect(upstream!.sentBytes[0]).toBeLessThan(20 * MB);
  });

  it('MAX_READERS_PER_TURN: one reader more gets a 429 that says what to do', async () => {
    const a = await start(() => ({ text: 'slow answer here', delayMs: 500 }), { MAX_READERS_PER_TURN: '2' });
    const { streamUrl } = await createTurn(a.url);
    await stalled(a.url, get(streamUrl));
    await stalled(a.url, get(streamUrl));
    await expect.poll(async () => (await fetch(a.url + streamUrl)).status, { timeout: 10_000 }).toBe(429);
    const res = await fetch(a.url + streamUrl);
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({
      error: { status: 429, code: 'too_many_readers', message: expect.stringMatching(/already has 2 readers.*MAX_READERS_PER_TURN.*Close one of its streams/) },
    });
  });

  it('ON_DISCONNECT=abort: the turn runs on while one reader is left, and stops when the last one leaves', async () => {
    const a = await start(() => ({ text: 'one two three four five six seven eight nine ten', delayMs: 300 }), { ON_DISCONNECT: 'abort' });
    const { turnId, streamUrl } = await createTurn(a.url);
    const first = new AbortController();
    const second = new AbortController();
    const open = async (c: AbortController) => {
      const res = await fetch(a.url + streamUrl, { signal: c.signal });
      const reader = res.body!.getReader();
      await reader.read(); // the headers and the first bytes: this reader is attached
      return reader;
    };
    await open(first);
    await open(second);
    first.abort();
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await a.deps.storage.sessions.getTurn(turnId))?.status).toBe('running');
    second.abort();
    await finished(a, turnId);
    const events = await collectWithEventSource(a.url + streamUrl);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'aborted' } });
  });
});
