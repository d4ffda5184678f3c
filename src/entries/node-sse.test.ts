// Node's SSE sink as the response sees it (the SseSink contract itself is src/http/sse.test.ts, over
// both sinks): the headers go with the first chunk, in one write, or alone once nothing came for
// HEADERS_WAIT_MS; and through the app, the gateway's streamed answer keeps the headers the request's
// middleware set (CORS) and reaches the client whole.
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway } from '../../test/gateway/harness.ts';
import { SSE_HEADERS, type SseChannel, SseStream } from '../http/sse.ts';
import { HEADERS_WAIT_MS, NodeSseSink } from './node-sse.ts';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A stream served by Node's sink on a real server, the route's order: `before` runs on the channel, then the response is made. */
async function serveOne(before: (out: SseChannel) => void) {
  let out!: SseChannel;
  let release!: () => void;
  let response!: ServerResponse;
  const server = createServer((_req, res) => {
    response = res;
    const stream = new SseStream(
      (channel) => {
        out = channel;
        before(channel);
        return new Promise<void>((resolve) => (release = resolve));
      },
      { keepaliveMs: 60_000, stallMs: 60_000 },
      new NodeSseSink(res),
    );
    stream.response(200, { ...SSE_HEADERS, 'x-test': 'yes' });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  const packets: { at: number; text: string }[] = [];
  socket.on('data', (data: Buffer) => packets.push({ at: performance.now(), text: data.toString('utf8') }));
  const sentAt = performance.now();
  socket.write('GET / HTTP/1.1\r\nHost: test\r\n\r\n');
  return { packets, sentAt, out: () => out, release: () => release(), socket, response: () => response };
}

/** A stream served, its first chunk (with the headers) at the client: what a test sends next goes on its own. */
async function servedPastFirst() {
  const served = await serveOne((out) => {
    out.write('data: first\n\n');
    out.flush();
  });
  while (served.packets.length === 0) await sleep(2);
  return served;
}

/** Counts the writes `socket` hands to the system (a corked socket's buffered chunks go in one). */
function countWrites(socket: Socket): { count: number } {
  const counted = { count: 0 };
  const write = socket._write.bind(socket);
  const writev = socket._writev?.bind(socket);
  socket._write = (chunk, encoding, callback) => {
    counted.count++;
    write(chunk, encoding, callback);
  };
  if (writev) {
    socket._writev = (chunks, callback) => {
      counted.count++;
      writev(chunks, callback);
    };
  }
  return counted;
}

describe('NodeSseSink', () => {
  it('sends the headers with the chunk the stream queued before the response was made: one write', async () => {
    const served = await serveOne((out) => {
      out.write('data: first\n\n');
      out.flush(); // the gateway's first read, queued before the route hands over its response
    });
    while (served.packets.length === 0) await sleep(5);
    const [first] = served.packets;
    expect(first!.text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(first!.text).toMatch(/\r\nx-test: yes\r\n/);
    expect(first!.text).toMatch(/\r\n\r\nd\r\ndata: first\n\n\r\n$/); // the head and the first chunk in one packet
    served.release();
    served.socket.destroy();
  });

  it('with nothing to send, the headers go alone after HEADERS_WAIT_MS, and the chunks follow', async () => {
    const served = await serveOne(() => {});
    while (served.packets.length === 0) await sleep(2);
    const [head] = served.packets;
    expect(head!.text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n$/); // the head alone
    expect(head!.at - served.sentAt).toBeGreaterThanOrEqual(HEADERS_WAIT_MS - 1);
    served.out().write('data: later\n\n');
    while (served.packets.length === 1) await sleep(2);
    expect(served.packets[1]!.text).toBe('d\r\ndata: later\n\n\r\n');
    served.release();
    served.socket.destroy();
  });

  it('flush() hands the text to the socket at once, not once the promise callbacks after it are done', async () => {
    const served = await servedPastFirst();
    const socket = served.response().socket!;
    served.out().write('data: the call\n\n');
    served.out().flush();
    // ServerResponse.write() corks the socket until process.nextTick, which runs after every promise
    // callback queued behind the write (the gateway's rest of the read, its usage, the answer's end):
    // the sink uncorks it, so the text is with the system before this function returns.
    expect(socket.writableCorked).toBe(0);
    expect(socket.writableLength).toBe(0);
    while (served.packets.length === 1) await sleep(2);
    expect(served.packets[1]!.text).toBe('10\r\ndata: the call\n\n\r\n');
    served.release();
    served.socket.destroy();
  });

  it("the stream's last text goes with the response's end: one write", async () => {
    const served = await servedPastFirst();
    const writes = countWrites(served.response().socket!);
    served.out().write('data: last\n\n');
    served.release();
    let text = '';
    while (!text.endsWith('0\r\n\r\n')) {
      await sleep(2);
      text = served.packets
        .slice(1)
        .map((p) => p.text)
        .join('');
    }
    expect(text).toBe('c\r\ndata: last\n\n\r\n0\r\n\r\n');
    expect(writes.count).toBe(1);
    served.socket.destroy();
  });

  it("through the app: the gateway's streamed answer keeps the middleware's CORS headers and arrives whole", async () => {
    const gateway = await startGateway(() => ({ text: 'Hello from the upstream' }), { CORS_ORIGINS: 'https://chat.example' });
    try {
      const res = await fetch(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'https://chat.example' },
        body: JSON.stringify({ model: 'loop-model', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://chat.example');
      expect(res.headers.get('vary')).toBe('Origin'); // cors's, though it adds it after the route
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(res.headers.get('x-rebound-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      const text = await res.text();
      const content = [...text.matchAll(/"content":"([^"]*)"/g)].map((m) => m[1]).join('');
      expect(content).toBe('Hello from the upstream');
      expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    } finally {
      await gateway.close();
    }
  });
});
