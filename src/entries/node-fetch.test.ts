// nodeFetch against Node's fetch on the same real upstreams (the scripted server, a gzip server, a
// closed port): what chat-post.ts and its readers see must not depend on which one the entry picked.
import { createServer, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { Agent, type Dispatcher, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAI, type ScriptedServer } from '../../test/support/scripted-openai.ts';
import { postChat, readBounded } from '../model/chat-post.ts';
import { nodeFetch } from './node-fetch.ts';
import { OpenAIModel } from '../model/openai.ts';
import { ModelError, type ModelEvent } from '../model/types.ts';

const words = Array.from({ length: 300 }, (_, i) => `w${i} `).join('');
/** 2.7 MB, 1.3 MB gzipped: many chunks each way, past the 64 KB a body holds for its reader (node-fetch.ts HELD_BYTES). */
const bigText = Array.from({ length: 400_000 }, (_, i) => `${(i * 7919) % 1_000_003} `).join('');
let upstream: ScriptedServer;
let gzipUrl: string;
let closeGzip: () => void;
beforeAll(async () => {
  upstream = await startScriptedOpenAI((request) => {
    const message = request.messages.at(-1)?.content;
    if (message === 'slow headers') return { text: 'late', headersAfterMs: 2_000 };
    if (message === 'slow body') return { text: words, delayMs: 20 };
    if (message === 'fail') return { status: 429, message: 'slow down' };
    return { text: words };
  });
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync(req.url === '/big' ? bigText : 'compressed answer'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  gzipUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  closeGzip = () => server.close();
});
afterAll(async () => {
  await upstream.close();
  closeGzip();
});

const signal = () => new AbortController().signal;
const endpoint = (fetch: typeof globalThis.fetch, timeoutMs = 1_000) => ({ baseURL: upstream.url, apiKey: 'sk-test', timeoutMs, fetch });
const ask = (content: string) => ({ model: 'm', stream: true, messages: [{ role: 'user', content }] });

describe.each([
  ['fetch', fetch],
  ['nodeFetch', nodeFetch],
])('%s', (_name, fetchFn) => {
  it('streams the answer: status, content-type, and the events the model reads from it', async () => {
    const model = new OpenAIModel({ apiKey: 'sk-test', baseURL: upstream.url, model: 'm', fetch: fetchFn });
    const events: ModelEvent[] = [];
    for await (const e of model.stream({ messages: [{ role: 'user', content: 'hi' }], tools: [], toolChoice: 'auto', signal: signal() })) events.push(e);
    const text = events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
    expect(text).toBe(words);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    const posted = await postChat(endpoint(fetchFn), ask('hi'), { signal: signal() });
    if (posted.kind !== 'response') throw new Error(posted.kind);
    expect(posted.response.status).toBe(200);
    expect(posted.response.headers.get('content-type')).toBe('text/event-stream');
    const body = await posted.response.text();
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(Buffer.byteLength(body)).toBe(upstream.sentBytes.at(-1));
  });

  it('an error status with its body and headers', async () => {
    const posted = await postChat(endpoint(fetchFn), ask('fail'), { signal: signal() });
    if (posted.kind !== 'response') throw new Error(posted.kind);
    expect(posted.response.status).toBe(429);
    expect(posted.response.ok).toBe(false);
    expect(JSON.parse((await readBounded(posted.response, 1 << 16)).text)).toMatchObject({ error: { message: 'slow down' } });
  });

  it('a closed port is unreachable, naming the cause; no headers in time is a timeout', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await postChat({ ...endpoint(fetchFn), baseURL: `http://127.0.0.1:${port}/v1` }, ask('hi'), { signal: signal() });
    expect(refused).toMatchObject({ kind: 'unreachable', message: expect.stringContaining('ECONNREFUSED') });
    expect(await postChat(endpoint(fetchFn, 100), ask('slow headers'), { signal: signal() })).toEqual({ kind: 'timeout' });
  });

  it("the caller's abort mid-body ends the body and the upstream's request", async () => {
    const controller = new AbortController();
    const posted = await postChat(endpoint(fetchFn), ask('slow body'), { signal: controller.signal });
    if (posted.kind !== 'response') throw new Error(posted.kind);
    const reader = posted.response.body!.getReader();
    await reader.read();
    const aborted = upstream.waitForAbort();
    controller.abort(new Error('the turn stopped'));
    await expect(async () => {
      for (;;) if ((await reader.read()).done) break;
    }).rejects.toThrow();
    await aborted;
  });

  it('sends the path and query as the URL reads them (a string or a URL, each time the same), and a URL it cannot parse fails as fetch fails', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const url of [`${base}/v1/a b?q=1&r=é#frag`, new URL(`${base}/v1/x/../models?x`), `${base}/v1/a b?q=1&r=é#frag`, base]) {
      expect(await (await fetchFn(url, { method: 'GET' })).text()).toBe('ok');
    }
    server.close();
    expect(seen).toEqual(['/v1/a%20b?q=1&r=%C3%A9', '/v1/models?x', '/v1/a%20b?q=1&r=%C3%A9', '/']);
    await expect(fetchFn('http://[::1', { method: 'GET' })).rejects.toThrow(TypeError);
  });

  it("the answer reads as fetch's Response: its fields, each reader once, a clone, a body read before its reader", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-two': ['a', 'b'] }).end('{"a":1}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const response = await fetchFn(url, { method: 'GET' });
      expect(response).toBeInstanceOf(Response);
      expect([response.status, response.ok, response.statusText, response.redirected]).toEqual([201, true, 'Made', false]);
      expect([response.headers.get('content-type'), response.headers.get('x-two')]).toEqual(['application/json', 'a, b']);
      expect(response.bodyUsed).toBe(false);
      const copy = response.clone();
      expect(await response.json()).toEqual({ a: 1 });
      expect(response.bodyUsed).toBe(true);
      await expect(response.text()).rejects.toThrow(TypeError);
      expect(new TextDecoder().decode(await copy.arrayBuffer())).toBe('{"a":1}');

      const read = await fetchFn(url, { method: 'GET' });
      const reader = read.body!.getReader();
      expect((await reader.read()).done).toBe(false);
      expect(read.bodyUsed).toBe(true);
      await expect(read.text()).rejects.toThrow(TypeError);
      await expect(read.blob()).rejects.toThrow(TypeError);
      expect(() => read.clone()).toThrow(TypeError);
    } finally {
      server.close();
    }
  });

  it('a gzip body is decoded (its headers as they came), a large one whole', async () => {
    const response = await fetchFn(gzipUrl, { method: 'GET', headers: { accept: 'text/plain' } });
    expect(await response.text()).toBe('compressed answer');
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(await (await fetchFn(`${gzipUrl}big`, { method: 'GET' })).text()).toBe(bigText);
  });
});

describe('nodeFetch', () => {
  /** A server on loopback answering each request with `answer`; its URL, its connections' count, and its close. */
  async function serve(answer: (res: ServerResponse) => void) {
    let connections = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => answer(res));
    });
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, connections: () => connections, close: () => server.close() };
  }

  /**
   * A raw HTTP/1.1 server on loopback: on a request, its chunked answer's head is sent, then `body` writes
   * the chunks on the socket itself (so that the test decides what goes in one socket write).
   */
  async function serveRaw(body: (socket: Socket) => void) {
    const server = createNetServer((socket) => {
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n');
        body(socket);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() };
  }

  /**
   * Writes `piece` `times` times into `out` as fast as it takes them (each full write waits for its
   * drain), then ends it with `last`: `ended` once the end is written. A server that cannot finish while
   * nothing reads its answer.
   */
  function writeAll(out: Writable, piece: string, times: number, last: string, ended: () => void): void {
    let sent = 0;
    const more = (): void => {
      while (sent < times) {
        sent++;
        if (!out.write(piece)) return void out.once('drain', more);
      }
      out.end(last, ended);
    };
    more();
  }

  it('a read the reader waits for is handed over before the parser reads past it: the answer ends on the next read, and the connection is kept', async () => {
    // The parser's handler as undici calls it, recorded: nodeFetch's body is fed by it (UpstreamBody).
    const seen: string[] = [];
    const agent = new Agent().compose(
      (dispatch) => (options, handler: Dispatcher.DispatchHandler) =>
        dispatch(options, {
          onRequestStart: (c, context) => handler.onRequestStart?.(c, context),
          onResponseStart: (c, status, headers, message) => handler.onResponseStart?.(c, status, headers, message),
          onResponseData: (c, chunk) => {
            seen.push('data');
            handler.onResponseData?.(c, chunk);
          },
          onResponseEnd: (c, trailers) => {
            seen.push('end');
            handler.onResponseEnd?.(c, trailers);
          },
          onResponseError: (c, error) => handler.onResponseError?.(c, error),
        }),
    );
    // The last event and the answer's end in one write, as an upstream sends its last delta.
    const server = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders();
      setTimeout(() => res.end('data: {"last":true}\n\n'), 20);
    });
    const global = getGlobalDispatcher();
    setGlobalDispatcher(agent);
    try {
      for (let i = 0; i < 2; i++) {
        seen.length = 0;
        const reader = (await nodeFetch(server.url, { method: 'POST', body: '{}' })).body!.getReader();
        const first = await reader.read();
        expect(new TextDecoder().decode(first.value)).toBe('data: {"last":true}\n\n');
        expect(seen).toEqual(['data']);
        expect((await reader.read()).done).toBe(true);
        expect(seen).toEqual(['data', 'end']);
        // undici takes a connection back a turn of the event loop after its answer's end.
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(server.connections()).toBe(1);
    } finally {
      setGlobalDispatcher(global);
      await agent.close();
      server.close();
    }
  });

  it('the worst upstream, a body in one-byte chunks: HELD_BYTES bounds the chunks held too (the socket is not read on), and the body comes whole', async () => {
    const payload = 2 * 1024 * 1024; // 12 MB on the wire ("1\r\nx\r\n" a byte): more than loopback's socket buffers take
    let written = false;
    const server = await serveRaw((socket) =>
      writeAll(socket, '1\r\nx\r\n'.repeat(64 * 1024), payload / (64 * 1024), '0\r\n\r\n', () => {
        written = true;
      }),
    );
    try {
      const response = await nodeFetch(server.url, { method: 'POST', body: '{}' });
      await new Promise((r) => setTimeout(r, 300));
      expect(written).toBe(false);
      const text = await response.text();
      expect(text.length).toBe(payload);
      expect(text).toBe('x'.repeat(payload));
    } finally {
      server.close();
    }
  });

  it('a socket read of many chunks that wakes the reader is handed over in one read, not split at its first chunk', async () => {
    const events = Array.from({ length: 50 }, (_, i) => `data: {"i":${i}}\n\n`);
    // The fifty chunks in one socket write (one read), as an upstream's burst of deltas arrives.
    const server = await serveRaw((socket) => {
      setTimeout(() => socket.write(events.map((e) => `${Buffer.byteLength(e).toString(16)}\r\n${e}\r\n`).join('')), 20);
      setTimeout(() => socket.end('0\r\n\r\n'), 40);
    });
    try {
      const reader = (await nodeFetch(server.url, { method: 'POST', body: '{}' })).body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe(events.join(''));
      expect((await reader.read()).done).toBe(true);
    } finally {
      server.close();
    }
  });

  it('a body no one reads stops being read from the socket (HELD_BYTES), and is whole once read', async () => {
    const piece = 'x'.repeat(64 * 1024);
    const pieces = 256; // 16 MB: more than loopback's socket buffers take
    let finished = false;
    const server = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      writeAll(res, piece, pieces, '', () => {
        finished = true;
      });
    });
    try {
      const response = await nodeFetch(server.url, { method: 'POST', body: '{}' });
      await new Promise((r) => setTimeout(r, 300));
      expect(finished).toBe(false);
      expect(Buffer.byteLength(await response.text())).toBe(pieces * piece.length);
    } finally {
      server.close();
    }
  });

  it('a body that breaks off mid-stream fails the read (a retryable ModelError for the model)', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"choices":[{"index":0,"delta":{"content":"half"}}]}\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const model = new OpenAIModel({ apiKey: 'k', baseURL, model: 'm', fetch: nodeFetch });
    const error = await (async () => {
      try {
        for await (const _ of model.stream({ messages: [{ role: 'user', content: 'hi' }], tools: [], toolChoice: 'auto', signal: signal() }));
      } catch (err) {
        return err;
      }
    })();
    server.close();
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).retryable).toBe(true);
  });
});
