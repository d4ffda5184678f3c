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

/** Writes one event; `seq` is its id in the turn's log (counted from 1 by this stream when absent). */
export type Send = (event: TurnEvent, seq?: number) => void;

export function sseResponse(run: (send: Send, signal: AbortSignal) => Promise<void>, options: SseOptions): Response {
  const abort = new AbortController();
  const encoder = new TextEncoder();
  let seq = 0;
  let closed = false;
  let keepalive: ReturnType<typeof setInterval> | undefined;
  let flushNow = () => {};

  const onRequestAbort = () => abort.abort(new Error('client disconnected'));
  options.requestSignal?.addEventListener('abort', onRequestAbort, { once: true });

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // Writes made in the same tick are coalesced into one chunk: a model streaming fast yields
      // many deltas per network read, and one socket write per delta would dominate the CPU.
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
          setTimeout(flush, 0);
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
      keepalive = setInterval(() => write(': keepalive\n\n'), options.keepaliveMs);
      void run(send, abort.signal).finally(() => {
        clearInterval(keepalive);
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
      clearInterval(keepalive);
      abort.abort(new Error('client disconnected'));
    },
  });

  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...options.headers } });
}
