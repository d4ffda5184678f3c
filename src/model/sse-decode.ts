// Splits a server-sent-events byte stream into events, one batch per network read. The openai SDK's
// splitter (iterSSEChunks in openai 6.30.1, the adapter's transport before chat-post.ts) copies the
// rest of its buffer for every event it finds (`data = data.slice(i)`), which is quadratic in the
// events per read; a naive `buffer += read; buffer.indexOf('\n')` is quadratic in the length of
// a line, so an upstream that never sends a newline stalls the event loop and grows memory without
// bound. This decoder looks at every character once (it remembers what it has scanned), keeps an
// unfinished line as the pieces it arrived in, and refuses a line or an event past a hard cap: the
// stream then fails as a retryable ModelError that names the limit. Batches let the caller merge
// the deltas that arrived together. A lane (SseLane: the model's content template) may read the runs
// of events it recognises whole, straight from a read, in the decoder's place: one message a run, with
// the run's text and its events' own text (SseRun) for a reader that passes them on unchanged.
import { MAX_COMPLETION_BYTES } from './answer-size.ts';
import { ModelError } from './types.ts';

export interface SseMessage {
  event: string | null;
  data: string;
  /**
   * Set by a lane (SseLane) on the message for events it read, a run (`read`) or one it was offered:
   * their text, when adding it is all they do.
   */
  lane?: string;
  /** Set on the message that stands for a lane's run (`read`): the run's events one by one, as they came. */
  run?: SseRun;
  /**
   * Set with `lane` (or `run`) by a lane that reads events as repeats of one it parsed (the content
   * template): that parse, as it stood when the lane read them (it may learn another later in the same
   * read). A native upstream's lane sets what it read the event as (src/gateway/codecs/native-lane.ts).
   */
  like?: unknown;
  /** Set by a lane that parsed the event's data to learn from it (JSON.parse): that parse, so that its owner need not parse it again. */
  parsed?: unknown;
}

/**
 * The events of a lane's run (SseLane `read`), for a reader that passes them on as they came (the
 * gateway, src/gateway/held-stream.ts) rather than only reading their text (the model's, openai.ts).
 * The content template's events are each one `data: ` line and a blank line, "\n" line breaks: what the
 * decoder would have handed out as {event: null, data}, and what writing that message back as SSE gives
 * (`runData`). A native upstream's lane frames its own (an `event:` line first: src/gateway/codecs/native-lane.ts).
 */
export interface SseRun {
  /** The events' exact text, one after another. */
  raw: string;
  /** Each event's text (the message's `lane` is these joined). */
  texts: string[];
  /** Where each event ends in `raw` (the next one starts there). */
  ends: number[];
}

/** Event `i` of a run: its data (the text after `data: `, without the line break and blank line). */
export function runData(run: SseRun, i: number): string {
  return run.raw.slice((i === 0 ? 0 : run.ends[i - 1]!) + DATA_FIELD.length, run.ends[i]! - EVENT_END.length);
}

/** How a run's events are framed (SseRun). */
export const DATA_FIELD = 'data: ';
export const EVENT_END = '\n\n';

/**
 * A reader of whole events that the decoder hands each event start to, before splitting it into lines
 * and a message (the model's text chunks, which are most of a stream: content-template.ts). It reads
 * only events it can tell are exactly what the decoder would have made of them, and sees every other
 * event the decoder makes, in stream order, as it makes it.
 */
export interface SseLane {
  /**
   * From `pos` in `text`, at an event's start: reads the run of whole events there that it takes (none
   * past `maxDataChars` of data) and returns the index after them, `pos` when it takes none.
   */
  take(text: string, pos: number, maxDataChars: number): number;
  /**
   * The message that stands in the batch, in their place, for the events `take` just read: their text
   * (`lane`; a lane whose reader takes `run.texts` one by one may leave it out) and the events themselves (`run`).
   */
  read(): SseMessage;
  /**
   * An event the decoder made, before any later one is taken: the lane may read it (its `lane`) or learn
   * from it. False: it takes nothing more in this read (and is offered nothing more in it).
   */
  offer(message: SseMessage): boolean;
}

export interface SseLimits {
  /** Longest line (without its line break), in characters (UTF-16 code units, = bytes for ASCII). */
  maxLineChars: number;
  /** Longest data of one event (its data lines joined with "\n"), in characters. */
  maxEventChars: number;
  /** Most bytes of one stream, the whole answer (MAX_COMPLETION_BYTES, as much as a whole answer is read). */
  maxStreamBytes: number;
}

/** The default caps: 1 MB each. A chat-completions chunk is a few hundred bytes; a megabyte on one line is not a stream. */
export const DEFAULT_SSE_LIMITS: SseLimits = { maxLineChars: 1 << 20, maxEventChars: 1 << 20, maxStreamBytes: MAX_COMPLETION_BYTES };

/** How much of the stream's beginning the decoder keeps, so that an error can quote it. */
const HEAD_CHARS = 200;

/**
 * A stateful SSE decoder (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
 * feed it the body's reads with `push`, then call `end` once. Lines end with "\n", "\r\n" or "\r".
 * Departures from the spec a completion needs: `id:` and `retry:` are ignored, and a last event
 * without its blank line still counts (a provider that closes right after its final chunk).
 */
export class SseDecoder {
  private readonly limits: SseLimits;
  private readonly text = new TextDecoder();
  /** The unfinished line: the text after the last line break, in the pieces it arrived in. */
  private partial: string[] = [];
  /** Total length of `partial`, checked against the line cap on every read. */
  private partialChars = 0;
  /** The last read ended with "\r": a "\n" at the start of the next read completes that line break. */
  private afterCR = false;
  /** The `event:` field of the event being read; null for the default ("message"). */
  private eventName: string | null = null;
  /** The data lines of the event being read. */
  private dataLines: string[] = [];
  /** Length of the event's data once joined: the lines plus the "\n" between them. */
  private dataChars = 0;
  /** The first characters of the stream, whatever they are: what an error about the stream quotes. */
  private headText = '';
  /** Bytes read so far, checked against the stream cap on every read. */
  private bytes = 0;

  /** Data a lane may take in one event: its line (`data: ` and the data) and its data within the caps. */
  private readonly laneDataChars: number;
  /** The lane takes and is offered events in this read (until an offer says otherwise). */
  private laneOpen = false;

  private readonly lane?: SseLane;
  constructor(limits: Partial<SseLimits> = {}, lane?: SseLane) {
    this.lane = lane;
    this.limits = { ...DEFAULT_SSE_LIMITS, ...limits };
    this.laneDataChars = Math.min(this.limits.maxLineChars - 'data: '.length, this.limits.maxEventChars);
  }

  /** The beginning of the stream as decoded text (at most 200 characters). */
  get head(): string {
    return this.headText;
  }

  /** Decodes one read; returns the events it completed. Throws a retryable ModelError past a cap. */
  push(bytes: Uint8Array): SseMessage[] {
    this.bytes += bytes.byteLength;
    if (this.bytes > this.limits.maxStreamBytes) throw streamTooLong(this.limits);
    return this.scan(this.text.decode(bytes, { stream: true }));
  }

  /** The end of the stream: completes the last line and the last event. */
  end(): SseMessage[] {
    const out = this.scan(this.text.decode());
    if (this.partialChars > 0) this.line(this.takePartial(''), out);
    this.dispatch(out);
    return out;
  }

  private scan(chunk: string): SseMessage[] {
    const out: SseMessage[] = [];
    if (chunk.length === 0) return out;
    if (this.headText.length < HEAD_CHARS) this.headText += chunk.slice(0, HEAD_CHARS - this.headText.length);
    let pos = 0;
    if (this.afterCR) {
      this.afterCR = false;
      if (chunk.charCodeAt(0) === 10) pos = 1;
    }
    // The next "\n" and "\r" at or after `pos`, each searched for again only once passed: every
    // character is looked at a bounded number of times.
    let lf = chunk.indexOf('\n', pos);
    let cr = chunk.indexOf('\r', pos);
    const { lane } = this;
    this.laneOpen = lane !== undefined;
    for (;;) {
      // At an event's start (no line, field or data of one pending), the lane reads the events it can whole.
      if (lane && this.laneOpen && this.partialChars === 0 && this.dataLines.length === 0 && this.eventName === null) {
        const after = lane.take(chunk, pos, this.laneDataChars);
        if (after !== pos) {
          out.push(lane.read());
          pos = after;
        }
      }
      if (lf !== -1 && lf < pos) lf = chunk.indexOf('\n', pos);
      if (cr !== -1 && cr < pos) cr = chunk.indexOf('\r', pos);
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (end === -1) break;
      if (this.partialChars + (end - pos) > this.limits.maxLineChars) throw lineTooLong(this.limits);
      const line = this.takePartial(chunk.slice(pos, end));
      if (end === cr) {
        if (end + 1 === chunk.length) this.afterCR = true;
        pos = chunk.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
      } else {
        pos = end + 1;
      }
      this.line(line, out);
    }
    if (pos < chunk.length) {
      this.partialChars += chunk.length - pos;
      if (this.partialChars > this.limits.maxLineChars) throw lineTooLong(this.limits);
      this.partial.push(chunk.slice(pos));
    }
    return out;
  }

  /** The unfinished line completed by `tail`; the line buffer is empty afterwards. */
  private takePartial(tail: string): string {
    if (this.partialChars === 0) return tail;
    this.partial.push(tail);
    const line = this.partial.join('');
    this.partial = [];
    this.partialChars = 0;
    return line;
  }

  private line(line: string, out: SseMessage[]): void {
    if (line === '') {
      this.dispatch(out);
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ":" a comment (keepalives)
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const valueStart = colon === -1 ? line.length : line.charCodeAt(colon + 1) === 32 ? colon + 2 : colon + 1;
    if (field === 'data') {
      const value = line.slice(valueStart);
      this.dataChars += (this.dataLines.length > 0 ? 1 : 0) + value.length;
      if (this.dataChars > this.limits.maxEventChars) throw eventTooLong(this.limits);
      this.dataLines.push(value);
    } else if (field === 'event') {
      this.eventName = line.slice(valueStart);
    } // id:, retry: and unknown fields carry nothing a completion needs
  }

  private dispatch(out: SseMessage[]): void {
    // As the spec: an event with no data line is not dispatched; `data:` alone is an empty payload.
    if (this.dataLines.length > 0) {
      const message = { event: this.eventName, data: this.dataLines.length === 1 ? this.dataLines[0]! : this.dataLines.join('\n') };
      out.push(message);
      if (this.laneOpen && !this.lane!.offer(message)) this.laneOpen = false;
    }
    this.eventName = null;
    this.dataLines = [];
    this.dataChars = 0;
  }
}

/** A stream past one of the decoder's caps (SseLimits): the upstream sent more than any answer holds. */
export class SseLimitError extends ModelError {
  constructor(message: string) {
    super(message, true);
    this.name = 'SseLimitError';
  }
}

function streamTooLong(limits: SseLimits): ModelError {
  return new SseLimitError(
    `the model's stream is longer than ${formatChars(limits.maxStreamBytes).replace('characters', 'bytes')} (the stream limit, MAX_COMPLETION_BYTES); the stream was stopped`,
  );
}

function lineTooLong(limits: SseLimits): ModelError {
  return new SseLimitError(
    `the model sent an SSE line longer than ${formatChars(limits.maxLineChars)} without a line break (the line limit); the stream was stopped`,
  );
}

function eventTooLong(limits: SseLimits): ModelError {
  return new SseLimitError(
    `the model sent an SSE event whose data is longer than ${formatChars(limits.maxEventChars)} (the event limit); the stream was stopped`,
  );
}

function formatChars(n: number): string {
  return n % (1 << 20) === 0 ? `${n / (1 << 20)} MB (${n.toLocaleString('en-US')} characters)` : `${n.toLocaleString('en-US')} characters`;
}

/** The events of a response body, one batch per read that completed any. Cancels the body when the caller stops early or a cap is hit. */
export async function* sseBatches(body: ReadableStream<Uint8Array>, decoder: SseDecoder = new SseDecoder()): AsyncIterable<SseMessage[]> {
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const batch = done ? decoder.end() : decoder.push(value);
      if (batch.length) yield batch;
      if (done) {
        finished = true;
        return;
      }
    }
  } finally {
    // An upstream still sending (an endless line, a consumer that stopped) must not be read on.
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
