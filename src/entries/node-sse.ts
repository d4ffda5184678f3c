// Node's sink for the one SSE writer (src/http/sse.ts SseStream): the stream's text written to Node's
// ServerResponse itself (@hono/node-server's `c.env.outgoing`), not through a web ReadableStream that
// @hono/node-server then reads. It saves the web stream's encode, enqueue and read of every chunk, and
// the headers' write of their own: node-server always sends a streamed Response's headers alone
// (`flushHeaders`, a syscall before the first chunk), where Node's response sends them with the first
// write. The route returns a response marked already sent (x-hono-already-sent), which node-server
// leaves alone. docs/benchmarks.md § The streaming paths at the physical limit.
//
// The SseSink contract, on Node's terms: what waits for the client is what the response holds past the
// socket's high-water mark (64 KB, Node's default; `writableNeedDrain`), and its 'drain' is the
// client's progress; 'close' before the response finished is the client leaving.
//
// What is sent goes to the socket at once. ServerResponse.write() corks the socket and uncorks it on
// process.nextTick, which runs only once the whole chain of promise callbacks after the write is done:
// the gateway's held call, written as the upstream's read that completed it is read, waited for the
// rest of that read, the next read's wait and, at the answer's end, its usage, activity and close. The
// stream already writes a tick's text in one send, so uncorking after it costs no write; only the
// stream's last text (`ending`) stays corked, to go with the end in one write
// (docs/benchmarks.md § The streaming paths at the physical limit (issue 34), H1 of the fifth session).
import { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import type { SseSink, SseSinkOwner } from '../http/sse.ts';

/**
 * With nothing written when the route hands over the response, the headers wait this long for the
 * first chunk to go with, then go alone: a client is not kept without them while the upstream thinks.
 */
export const HEADERS_WAIT_MS = 10;

/** AppDeps.sseSink on Node: the request's own HTTP/1.1 response when @hono/node-server serves it, else none (a web stream). */
export function nodeSseSink(c: Context): SseSink | undefined {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  return outgoing instanceof ServerResponse ? new NodeSseSink(outgoing, c) : undefined;
}

export class NodeSseSink implements SseSink {
  /** The status and headers, once the route has them (`response`): until then what is sent waits in `early`. */
  private headed = false;
  private early = '';
  /** Something went out after the headers (which Node sends with it). */
  private wrote = false;
  /** The stream ended before the route had the headers: the response ends once they are written. */
  private ended: { error?: unknown } | undefined;
  private headersTimer: ReturnType<typeof setTimeout> | undefined;

  private readonly res: ServerResponse;
  /** The request's context: headers its middleware set before the route (CORS) go on the response. */
  private readonly c: Context | undefined;

  constructor(res: ServerResponse, c?: Context) {
    this.res = res;
    this.c = c;
  }

  start(stream: SseSinkOwner): void {
    this.res.on('drain', () => stream.progress());
    this.res.on('close', () => {
      if (!this.res.writableFinished) stream.gone();
    });
  }

  send(text: string, ending = false): boolean {
    if (this.res.destroyed) return false;
    if (!this.headed) this.early += text;
    else {
      this.res.write(text);
      this.wrote = true;
      if (!ending) this.res.socket?.uncork();
    }
    return true;
  }

  queued(): number {
    return this.res.writableNeedDrain ? this.res.writableLength : 0;
  }

  close(error?: unknown): void {
    if (!this.headed) {
      this.ended = { error };
      return;
    }
    clearTimeout(this.headersTimer);
    if (error === undefined) this.res.end();
    else this.res.destroy(error instanceof Error ? error : new Error(String(error)));
  }

  response(status: number, headers: Record<string, string>): Response {
    this.res.writeHead(status, this.c ? withPriorHeaders(headers, this.c.res.headers) : headers);
    this.headed = true;
    // The headers go with the first write: what the stream sent already, or the next chunk.
    if (this.early !== '') {
      this.res.write(this.early);
      this.early = '';
      this.wrote = true;
    }
    if (this.ended) this.close(this.ended.error);
    else if (!this.wrote) {
      // (`headersSent` is true from writeHead on, sent or not.)
      this.headersTimer = setTimeout(() => {
        if (!this.wrote && !this.res.destroyed) this.res.flushHeaders();
      }, HEADERS_WAIT_MS);
      this.headersTimer.unref();
    }
    return this.c ? alreadySent(this.c, status) : RESPONSE_ALREADY_SENT;
  }
}

/**
 * What node-server leaves alone (a body of null and its `x-hono-already-sent` header), made the context's
 * response so that Hono hands it on untouched: a plain object, since Hono copies a real Response into its
 * own (node-server's lightweight one, which node-server would write again) when one is set on a context
 * that has one (CORS makes one) or when middleware adds a header after the route (CORS's `Vary`), unless
 * its body was used. Those later headers are not sent: the head went before they were set (CORS's
 * `Vary: Origin` is therefore set before the route too: src/http/app.ts).
 */
function alreadySent(c: Context, status: number): Response {
  const sent = { status, body: null, bodyUsed: true, headers: new Headers({ 'x-hono-already-sent': 'true' }) } as unknown as Response;
  c.res = undefined;
  c.res = sent;
  return sent;
}

/** `headers` with those the request's middleware set before the route (CORS; Hono keeps them in `c.res`), as a web Response would get them. */
function withPriorHeaders(headers: Record<string, string>, prior: Headers): Record<string, string> {
  let merged: Record<string, string> | undefined;
  for (const [name, value] of prior) {
    if (name === 'content-type') continue;
    merged ??= { ...headers };
    for (const key of Object.keys(merged)) if (key.toLowerCase() === name) delete merged[key];
    merged[name] = value;
  }
  return merged ?? headers;
}
