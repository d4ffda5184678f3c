// The SSE writer's contract, under each sink: the web ReadableStream (every runtime) and Node's
// ServerResponse (src/entries/node-sse.ts, over a real loopback socket read by a raw HTTP client, so
// that "the client takes nothing" is a socket nobody reads). One SseStream, the same behaviour either
// way: coalescing, flush, backpressure, the close once the client took the rest, the stall, the client
// leaving, keepalives.
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeSseSink } from '../entries/node-sse.ts';
import { ReaderStalledError, type SseChannel, SSE_HEADERS, SseStream, type SseStreamOptions } from './sse.ts';

const decoder = new TextDecoder();
const defaults = { keepaliveMs: 60_000, stallMs: 60_000 };
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The client's side of one stream: each read is one chunk the stream sent (null: the end); a read rejects when the stream failed. */
interface Client {
  read(): Promise<string | null>;
  /** Everything until the end. */
  readAll(): Promise<string>;
  /** The client leaves. */
  leave(): Promise<void>;
}

interface Opened {
  out: SseChannel;
  signal: AbortSignal;
  /** Ends the run: normally, or with an error. */
  release(error?: unknown): void;
  client: Client;
}

/** A sink under test: opens a stream whose run waits for `release`, and the client reading it. */
interface SinkUnderTest {
  name: string;
  open(options?: Partial<SseStreamOptions>): Promise<Opened>;
}

function runUntilReleased() {
  let release!: (error?: unknown) => void;
  const until = new Promise<void>((resolve, reject) => (release = (error) => (error === undefined ? resolve() : reject(error))));
  const opened: { out?: SseChannel; signal?: AbortSignal } = {};
  const run = (out: SseChannel, signal: AbortSignal) => {
    opened.out = out;
    opened.signal = signal;
    return until;
  };
  return { run, release, opened };
}

async function readAll(client: Client): Promise<string> {
  let all = '';
  for (let chunk = await client.read(); chunk !== null; chunk = await client.read()) all += chunk;
  return all;
}

const web: SinkUnderTest = {
  name: 'web ReadableStream',
  async open(options = {}) {
    const { run, release, opened } = runUntilReleased();
    const stream = new SseStream(run, { ...defaults, ...options });
    const reader = stream.response(200, { ...SSE_HEADERS }).body!.getReader();
    const client: Client = {
      read: async () => {
        const chunk = await reader.read();
        return chunk.done ? null : decoder.decode(chunk.value);
      },
      readAll: () => readAll(client),
      leave: () => reader.cancel(),
    };
    return { out: opened.out!, signal: opened.signal!, release, client };
  },
};

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * A raw HTTP/1.1 client that reads the socket only while a read waits, so what it does not read stays
 * in the kernel's buffers and then the server's: each chunk of the chunked body is one read.
 */
function rawClient(socket: Socket): Client & { head: Promise<string> } {
  let buffered = Buffer.alloc(0);
  let head: string | undefined;
  let ended = false;
  let failed: Error | undefined;
  let wake: () => void = () => {};
  let gotHead!: (head: string) => void;
  const headPromise = new Promise<string>((resolve) => (gotHead = resolve));
  socket.pause();
  socket.on('data', (data: Buffer) => {
    buffered = Buffer.concat([buffered, data]);
    wake();
  });
  socket.on('close', () => {
    if (!ended) failed = new Error('the connection closed before the end of the stream');
    wake();
  });
  socket.on('error', () => {});
  /** The next chunk in what was read, if whole. */
  const take = (): string | null | undefined => {
    if (head === undefined) {
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return undefined;
      head = buffered.subarray(0, end).toString('latin1');
      gotHead(head);
      buffered = buffered.subarray(end + 4);
    }
    const line = buffered.indexOf('\r\n');
    if (line < 0) return undefined;
    const size = Number.parseInt(buffered.subarray(0, line).toString('latin1'), 16);
    if (buffered.length < line + 2 + size + 2) return undefined;
    const text = buffered.subarray(line + 2, line + 2 + size).toString('utf8');
    buffered = buffered.subarray(line + 2 + size + 2);
    if (size === 0) {
      ended = true;
      return null;
    }
    return text;
  };
  const client = {
    head: headPromise,
    async read(): Promise<string | null> {
      for (;;) {
        const chunk = take();
        if (chunk !== undefined) {
          socket.pause();
          return chunk;
        }
        if (failed) throw failed;
        const more = new Promise<void>((resolve) => (wake = resolve));
        socket.resume();
        await more;
      }
    },
    readAll: () => readAll(client),
    async leave() {
      socket.destroy();
    },
  };
  return client;
}

const node: SinkUnderTest = {
  name: "Node's ServerResponse",
  async open(options = {}) {
    const { run, release, opened } = runUntilReleased();
    let started!: () => void;
    const handled = new Promise<void>((resolve) => (started = resolve));
    // The socket's high-water mark is the sink's: what a response holds past it waits for the client.
    const server = createServer({ highWaterMark: options.highWaterBytes }, (_req, res) => {
      new SseStream(run, { ...defaults, ...options }, new NodeSseSink(res)).response(200, { ...SSE_HEADERS });
      started();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.write('GET / HTTP/1.1\r\nHost: test\r\n\r\n');
    const client = rawClient(socket);
    await handled;
    return { out: opened.out!, signal: opened.signal!, release, client };
  },
};

/**
 * Writes 16 KB at a time, each after drained(), while the client reads nothing, until drained() has
 * waited 50 ms (the client is behind). Returns what was written, and the wait.
 */
async function fillUntilWaiting(out: SseChannel): Promise<{ written: string; waiting: Promise<void> }> {
  let written = '';
  for (let i = 0; i < 4096; i++) {
    const line = `data: ${String(i).padStart(6, '0')} ${'x'.repeat(16 * 1024)}\n\n`;
    out.write(line);
    written += line;
    const waiting = out.drained();
    const waited = await Promise.race([waiting.then(() => false), sleep(50).then(() => true)]);
    if (waited) return { written, waiting };
  }
  throw new Error('drained() never waited: no backpressure');
}

describe.each([web, node])('SseStream over the $name', (sink) => {
  it("coalesces a tick's writes into one chunk once the tick is over; flush() sends them at once", async () => {
    const { out, client, release } = await sink.open();
    out.write('data: a\n\n');
    out.write('');
    out.write('data: b\n\n');
    expect(await client.read()).toBe('data: a\n\ndata: b\n\n');
    out.write('data: c\n\n');
    out.flush(); // sent now: what is written after it, in the same tick, is another chunk
    out.write('data: d\n\n');
    expect(await client.read()).toBe('data: c\n\n');
    expect(await client.read()).toBe('data: d\n\n');
    release();
    expect(await client.read()).toBeNull();
  });

  it('writes `: open` first when asked, and fails the stream when the run rejects', async () => {
    const { client, release } = await sink.open({ open: true });
    expect(await client.read()).toBe(': open\n\n');
    release(new Error('upstream broke'));
    await expect(client.read()).rejects.toThrow();
  });

  it('drained() waits while the client takes nothing, and resolves once it takes what waits', async () => {
    const { out, client, release } = await sink.open({ highWaterBytes: 64 * 1024 });
    const { written, waiting } = await fillUntilWaiting(out);
    let drained = false;
    void waiting.then(() => (drained = true));
    await sleep(20);
    expect(drained).toBe(false);
    let read = '';
    while (read.length < written.length) read += await client.read();
    expect(read).toBe(written);
    await waiting;
    release();
    expect(await client.read()).toBeNull();
  });

  it('the run ends while the client is behind: the stream closes once the client has taken all of it', async () => {
    const { out, client, release } = await sink.open({ highWaterBytes: 64 * 1024 });
    const { written } = await fillUntilWaiting(out);
    out.write('data: the end\n\n');
    release();
    await sleep(20);
    expect(await client.readAll()).toBe(`${written}data: the end\n\n`);
  });

  it('a client that takes nothing for stallMs while data waits is closed, the signal aborted with ReaderStalledError', async () => {
    const { out, signal, client } = await sink.open({ highWaterBytes: 64 * 1024, stallMs: 100 });
    const aborted = new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason)));
    await fillUntilWaiting(out);
    expect(await aborted).toBeInstanceOf(ReaderStalledError);
    // What waited is dropped with the stream: the client sees it fail.
    await expect(client.readAll()).rejects.toThrow();
  });

  it('the client leaving aborts the run, and so does the request signal', async () => {
    const a = await sink.open();
    const left = new Promise((resolve) => a.signal.addEventListener('abort', resolve));
    await a.client.leave();
    await left;
    expect(String(a.signal.reason)).toMatch(/client disconnected/);
    a.out.write('data: after\n\n'); // ignored: the stream is closed
    a.release();

    const request = new AbortController();
    const b = await sink.open({ requestSignal: request.signal });
    request.abort();
    expect(b.signal.aborted).toBe(true);
    expect(await b.client.readAll()).toBe('');
    b.release();
  });

  it('sends `: keepalive` comments while idle, none to a client that has not taken what it was sent', async () => {
    const idle = await sink.open({ keepaliveMs: 20 });
    expect(await idle.client.read()).toBe(': keepalive\n\n');
    expect(await idle.client.read()).toBe(': keepalive\n\n');
    idle.release();

    const behind = await sink.open({ keepaliveMs: 20, highWaterBytes: 64 * 1024 });
    const { written } = await fillUntilWaiting(behind.out);
    await sleep(100); // several keepalive periods, the data still unread
    behind.release(); // the stream ends once the client has taken the rest: no keepalive can follow it
    const all = await behind.client.readAll();
    // Keepalives may come while it filled (the client kept up then), none once it was behind: after the last line.
    expect(all.replaceAll(': keepalive\n\n', '')).toBe(written);
    expect(all.endsWith(written.slice(written.lastIndexOf('data: ')))).toBe(true);
  });
});
