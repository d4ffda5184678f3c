// A text/event-stream response that writes TurnEvents with their ids (the turn log's seq), sends
// `: keepalive` comments from the first byte to the last, and turns a client disconnect into an abort
// signal for this reader.
import type { TurnEvent } from '../vocabulary.ts';

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
} as const;

export interface SseOptions {
  keepaliveMs: number;
  /** The request's own signal: some runtimes report a disconnect here rather than by cancelling the body. */
  requestSignal?: AbortSignal;
  headers?: Record<string, string>;
  /** Writes one event as SSE text (default: `event:`, `id:` and `data:` lines); the UI message stream (ui-stream/) has its own. */
  frame?: Frame;
}

export type Frame = (event: TurnEvent, seq: number) => string;

const reboundFrame: Frame = (event, seq) => `event: ${event.event}\nid: ${seq}\ndata: ${JSON.stringify(event.data)}\n\n`;

/**
 * Runs `fn` once the current macrotask and its microtasks are done: setImmediate where the runtime has
 * it (Node, Bun), else setTimeout 0 (at least 1 ms on some runtimes, which is what setImmediate saves).
 */
const nextTurn: (fn: () => void) => void = typeof setImmediate === 'function' ? (fn) => void setImmediate(fn) : (fn) => void setTimeout(fn, 0);

/**
 * Each keepalive comes after a random 75–100% of `keepaliveMs`, so a stream never waits longer than
 * that. A fixed interval would lock the streams opened or served in one busy moment into one phase for
 * good (timers that fire in one batch are re-armed from the same clock reading): with 2,000 streams
 * open, every keepalive fell due in the same few milliseconds and GET /health waited behind 2,000
 * socket writes (bench:stream). The jitter spreads them over a quarter of the interval again.
 */
const KEEPALIVE_JITTER = 0.25;

/** Writes one event; `seq` is its id in the turn's log (counted from 1 by this stream when absent). */
export type Send = (event: TurnEvent, seq?: number) => void;

export function sseResponse(run: (send: Send, signal: AbortSignal) => Promise<void>, options: SseOptions): Response {
  const abort = new AbortController();
  const encoder = new TextEncoder();
  let seq = 0;
  let closed = false;
  let keepalive: ReturnType<typeof setTimeout> | undefined;
  let flushNow = () => {};

  const onRequestAbort = () => abort.abort(new Error('client disconnected'));
  options.requestSignal?.addEventListener('abort', onRequestAbort, { once: true });

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // Writes made in the same tick are coalesced into one chunk: a model streaming fast yields
      // many deltas per network read, and one socket write per delta would dominate the CPU. The
      // chunk goes out as soon as the tick is over (nextTurn), not a timer's millisecond later.
      let pending: string[] = [];
      let scheduled = false;
      const flush = () => {
        scheduled = false;
        if (closed || pending.length === 0) return;
        const text = pending.join('');
        pending = [];
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          closed = true; // the consumer is gone
        }
      };
      const write = (text: string) => {
        if (closed) return;
        pending.push(text);
        if (!scheduled) {
          scheduled = true;
          nextTurn(flush);
        }
      };
      flushNow = flush;
      const frame = options.frame ?? reboundFrame;
      const send: Send = (event, id) => {
        seq = id ?? seq + 1;
        const text = frame(event, seq);
        if (text) write(text); // an event a frame writer drops (nothing to show) costs no write
      };
      // A first comment flushes the headers at once, so EventSource reports the connection open.
      write(': open\n\n');
      const armKeepalive = () => {
        keepalive = setTimeout(
          () => {
            if (closed) return;
            write(': keepalive\n\n');
            armKeepalive();
          },
          options.keepaliveMs * (1 - KEEPALIVE_JITTER * Math.random()),
        );
      };
      armKeepalive();
      void run(send, abort.signal).finally(() => {
        clearTimeout(keepalive);
        options.requestSignal?.removeEventListener('abort', onRequestAbort);
        flushNow();
        if (!closed) {
          closed = true;
          try {
            controller.close();
          } catch {
            /* already errored by a cancel */
          }
        }
      });
    },
    cancel() {
      closed = true;
      clearTimeout(keepalive);
      abort.abort(new Error('client disconnected'));
    },
  });

  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...options.headers } });
}
