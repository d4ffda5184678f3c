// A turn's reader (turns/service.ts) framed as the response: Rebound's SSE events, or the frames and
// headers of another format (ui-stream/: the AI SDK's UI message stream), through the one SSE writer.
// Each event waits for the client to take the one before (the writer's backpressure), so the reader's
// cursor moves only as fast as its socket drains. A client that leaves before `done`, or that the
// writer closed for taking nothing (READER_STALL_MS), is told to the reader (ON_DISCONNECT=abort stops
// the turn when it was the last).
import type { TurnReader } from '../turns/service.ts';
import { sseResponse, type SseOptions, type SseSink } from './sse.ts';

/** How a stream writes the turn's events: Rebound's SSE events when absent, else its own frames and headers (ui-stream/). */
export type StreamFormat = Pick<SseOptions, 'frame' | 'headers'>;

export interface TurnStreamOptions {
  keepaliveMs: number;
  stallMs: number;
  /** The request's signal: the client leaving ends this reader, never the turn (unless ON_DISCONNECT=abort). */
  requestSignal: AbortSignal;
  format?: StreamFormat;
  /** Where the stream is written (AppDeps.sseSink: Node's response itself); absent, a web ReadableStream. */
  sink?: SseSink;
}

export function turnStream(reader: TurnReader, { keepaliveMs, stallMs, requestSignal, format = {}, sink }: TurnStreamOptions): Response {
  return sseResponse(
    async (send, signal) => {
      let ended = false;
      for await (const { seq, event } of reader.events(signal)) {
        await send(event, seq);
        if (event.event === 'done') ended = true;
      }
      if (!ended && signal.aborted) reader.left();
    },
    { keepaliveMs, stallMs, requestSignal, ...format },
    sink,
  );
}
