// A turn's reader (turns/service.ts) framed as the response: Rebound's SSE events, or the frames and
// headers of another format (ui-stream/: the AI SDK's UI message stream), through the one SSE writer.
// A client that leaves before `done` is told to the reader (ON_DISCONNECT=abort stops the turn).
import type { TurnReader } from '../turns/service.ts';
import { sseResponse, type SseOptions } from './sse.ts';

/** How a stream writes the turn's events: Rebound's SSE events when absent, else its own frames and headers (ui-stream/). */
export type StreamFormat = Pick<SseOptions, 'frame' | 'headers'>;

export interface TurnStreamOptions {
  keepaliveMs: number;
  /** The request's signal: the client leaving ends this reader, never the turn (unless ON_DISCONNECT=abort). */
  requestSignal: AbortSignal;
  format?: StreamFormat;
}

export function turnStream(reader: TurnReader, { keepaliveMs, requestSignal, format = {} }: TurnStreamOptions): Response {
  return sseResponse(
    async (send, signal) => {
      let ended = false;
      for await (const { seq, event } of reader.events(signal)) {
        send(event, seq);
        if (event.event === 'done') ended = true;
      }
      if (!ended && signal.aborted) reader.left();
    },
    { keepaliveMs, requestSignal, ...format },
  );
}
