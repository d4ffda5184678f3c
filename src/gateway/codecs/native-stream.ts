// What the native upstreams (anthropic-upstream.ts, responses-upstream.ts) share: an upstream's SSE body
// turned into the Chat Completions chunks the gateway core reads, event by event, pulled (the upstream
// is read only as fast as the core reads, and cancelled with it), and a JSON body turned into a
// chat.completion; the call, its errors as the chat upstream's (upstream.ts). The core takes the
// chunks as objects (UpstreamResult `chunks`), not as SSE text to split and parse again; the answer's
// body is the same chunks as text, for a reader that wants bytes. The runs of text deltas are read by
// the decoder's lane (native-lane.ts), without a message or a parse for each (docs/benchmarks.md § The
// streaming paths at the physical limit).
import { jsonText } from 'rebound-gate/internal';
import { postJson, type ChatEndpoint } from '../../model/chat-post.ts';
import { SseDecoder, type SseMessage, sseBatches } from '../../model/sse-decode.ts';
import { readBounded } from '../../model/chat-post.ts';
import { CallEnd, TextRun } from '../held-stream.ts';
import { type ChatChunk, MAX_COMPLETION_BYTES, upstreamResult, type UpstreamResult } from '../upstream.ts';
import { type LearnedEvent, NativeTextLane, type TextShape } from './native-lane.ts';

type Json = Record<string, unknown>;

/**
 * How a native answer becomes the core's: each SSE event to chat chunks (null: [DONE]; CallEnd: the
 * provider's word that a call is complete, held-stream.ts), a whole body to a chat.completion.
 */
export interface NativeTranslation {
  /** The shapes its text deltas come in, as the provider writes them (event-shape.ts): the decoder's lane learns them (native-lane.ts). */
  textEvents: readonly TextShape[];
  /**
   * Most events: a text delta read in one of those shapes (`holes`: its holes' values, `text` its text)
   * as its chunk, with no JSON.parse and no array made for it; undefined: not text for the answer now
   * (`event` reads it).
   */
  text(holes: RegExpExecArray, text: string): Json | undefined;
  event(message: SseMessage): Array<Json | null | CallEnd>;
  /** A whole answer; null: not one this translation reads (passed on as it came). */
  whole(json: Json): Json | null;
}

/** The call of a native upstream: POST `path` with `body`, the answer as the core reads it (chat-shaped). */
export async function callNative(
  endpoint: ChatEndpoint,
  path: string,
  body: Json,
  request: { signal: AbortSignal; headers?: Record<string, string> },
  translation: () => NativeTranslation,
): Promise<UpstreamResult> {
  const result = await upstreamResult(endpoint, await postJson(endpoint, path, body, request));
  if (!result.ok) return result;
  const { response } = result;
  const t = translation();
  if (/event-stream/i.test(response.headers.get('content-type') ?? '') && response.body) {
    const chunks = chatChunks(response.body, t);
    return { ok: true, response: new Response(chunkText(chunks), { status: 200, headers: { 'content-type': 'text/event-stream' } }), chunks };
  }
  const { text, whole } = await readBounded(response, MAX_COMPLETION_BYTES);
  let json: unknown;
  try {
    json = whole ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const chat = typeof json === 'object' && json !== null && !Array.isArray(json) ? t.whole(json as Json) : null;
  const out = chat ? jsonText(chat) : text;
  return { ok: true, response: new Response(out, { status: response.status, headers: { 'content-type': 'application/json' } }) };
}

/**
 * The upstream's events as chat chunks (null: [DONE]), one batch per upstream read that made any, cut
 * after a call's end (CallEnd): the call goes out before the rest of the read is translated, a
 * Responses finish the whole response, parsed. A run of text deltas the decoder's lane read
 * (native-lane.ts) is read as its texts, when the translation takes the run's learned event as text
 * (then it takes each of them: they differ from it only in their text and counters); else event by
 * event, as the decoder would have made them.
 */
async function* chatChunks(body: ReadableStream<Uint8Array>, t: NativeTranslation): AsyncGenerator<ChatChunk[]> {
  const lane = new NativeTextLane(t.textEvents);
  for await (const batch of sseBatches(body, new SseDecoder({}, lane))) {
    let out: ChatChunk[] = [];
    for (const message of batch) {
      const run = message.run;
      if (run === undefined) {
        translate(t, lane, message, out);
        if (out.at(-1) instanceof CallEnd) {
          yield out;
          out = [];
        }
        continue;
      }
      const { holes } = message.like as LearnedEvent;
      const { texts } = run;
      const first = t.text(holes, texts[0]!);
      if (first === undefined) {
        for (const event of NativeTextLane.events(message)) translate(t, lane, event, out);
        continue;
      }
      // The run's chunk and its texts: HeldStream reads each text as that chunk with it (TextRun).
      out.push(texts.length === 1 ? first : new TextRun(first, texts));
    }
    if (out.length) yield out;
  }
}

/** One event the decoder made: a text delta's chunk, or what `event` makes of it. */
function translate(t: NativeTranslation, lane: NativeTextLane, message: SseMessage, out: ChatChunk[]): void {
  const text = lane.textOf(message);
  const chunk = text && t.text(text.holes, text.text);
  if (chunk) out.push(chunk);
  else for (const c of t.event(message)) out.push(c);
}

const encoder = new TextEncoder();

/** The same chunks as SSE text (a CallEnd is none), pulled only when read (highWaterMark 0: nothing is taken from `chunks` unasked). */
function chunkText(chunks: AsyncGenerator<ChatChunk[]>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // A batch of CallEnds alone has no text: the next one is read, as a pull must enqueue or close.
        for (;;) {
          const next = await chunks.next();
          if (next.done) {
            controller.close();
            return;
          }
          let text = '';
          for (const chunk of next.value) {
            if (chunk === null) text += 'data: [DONE]\n\n';
            else if (chunk instanceof TextRun) for (const content of chunk.texts) text += `data: ${jsonText(chunk.chunkOf(content))}\n\n`;
            else if (!(chunk instanceof CallEnd)) text += `data: ${jsonText(chunk)}\n\n`;
          }
          if (text !== '') {
            controller.enqueue(encoder.encode(text));
            return;
          }
        }
      },
      async cancel() {
        await chunks.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Who a stream's chunks say they are: the same id, created and model on each, as the chat API sends them. */
export interface ChunkIdentity {
  id: string;
  created: number;
  model: string;
}

/** chatChunk(who, { content }) without a delta made apart and spread (a text delta: most chunks of an answer). */
export function textChunk(who: ChunkIdentity, content: string): Json {
  return {
    id: who.id,
    object: 'chat.completion.chunk',
    created: who.created,
    model: who.model,
    choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }],
  };
}

/** A chat chunk of the answer `who`: one choice with this delta (and finish_reason), or the usage with no choice. */
export function chatChunk(who: ChunkIdentity, delta: Json | null, finish: string | null = null, usage?: Json): Json {
  return {
    id: who.id,
    object: 'chat.completion.chunk',
    created: who.created,
    model: who.model,
    choices: delta ? [{ index: 0, delta, logprobs: null, finish_reason: finish }] : [],
    ...(usage ? { usage } : {}),
  };
}
