// What the streaming client has been sent, across the gateway's attempts, and the chunks that send
// it. Every chunk the gateway writes itself wears the first upstream chunk's id, created and model,
// so that a retry's answer continues the same completion; tool calls are numbered by the response
// (0, 1, … across attempts), whatever index the upstream gave them. A protocol codec's channel takes
// the chunks as objects (`read`): the core hands over what it holds rather than text to parse again.
import type { SseMessage } from '../model/sse-decode.ts';
import { sameCall } from 'rebound-gate/host';
import { jsonText } from 'rebound-gate/internal';
import { wireCall, type GatedCall } from './gated-call.ts';

type Chunk = Record<string, unknown>;

/** The fields that identify the completion: kept from the first chunk, stamped on every chunk written. */
const BASE_FIELDS = ['id', 'object', 'created', 'model', 'system_fingerprint', 'service_tier'] as const;

export class Delivery {
  private base: Chunk | null = null;
  /** The calls the client has received, in order; a call's position is its `index`. */
  readonly calls: GatedCall[] = [];

  /**
   * `write` takes the SSE text; `read`, when given (a codec's channel: src/gateway/stream.ts
   * StreamChannel.chunk), takes each chunk the gateway writes itself and each passed-on chunk whose
   * parse the core has, as an object, instead of their text.
   */
  private readonly write: (text: string) => void;
  private readonly read: ((chunk: Chunk) => void) | undefined;
  /** A codec's channel that takes a run of `like` chunks as that chunk and their texts, no copy made (StreamChannel.texts). */
  private readonly readTexts: ((like: Chunk, texts: readonly string[], from: number, to: number) => void) | undefined;

  constructor(
    write: (text: string) => void,
    read?: (chunk: Chunk) => void,
    readTexts?: (like: Chunk, texts: readonly string[], from: number, to: number) => void,
  ) {
    this.write = write;
    this.read = read;
    this.readTexts = readTexts;
  }

  /** The first chunk of the response names it. */
  adopt(chunk: Chunk): void {
    if (this.base) return;
    const base: Chunk = { object: 'chat.completion.chunk' };
    for (const k of BASE_FIELDS) if (chunk[k] !== undefined) base[k] = chunk[k];
    this.base = base;
  }

  /** A chunk re-stamped as part of the response (a retry's chunks carry the upstream's new id). */
  stamp(chunk: Chunk): Chunk {
    return { ...chunk, ...this.baseOrDefault() };
  }

  /** Whether the channel takes chunks as objects (a codec's: `read`), so a chunk read without its parse is handed over as `like`. */
  get reads(): boolean {
    return this.read !== undefined;
  }

  /** An upstream event passed on byte for byte. */
  raw(message: SseMessage): void {
    this.write(`${message.event ? `event: ${message.event}\n` : ''}data: ${message.data}\n\n`);
  }

  /** Upstream events passed on byte for byte, as their SSE text (a run the decoder's lane read: sse-decode.ts SseRun). */
  sse(text: string): void {
    this.write(text);
  }

  /**
   * For a codec's channel (`reads`): upstream chunks passed on as they came, read without their parse:
   * `like` (the parse of a chunk they repeat, HeldStream's content template) with each of
   * `texts[from..to)` as its text, in one call for a run of them.
   */
  like(like: Chunk, texts: readonly string[], from = 0, to = texts.length): void {
    if (this.readTexts) {
      this.readTexts(like, texts, from, to);
      return;
    }
    const choice = (like.choices as Chunk[])[0]!;
    for (let i = from; i < to; i++) this.read!({ ...like, choices: [{ ...choice, delta: { ...(choice.delta as Chunk), content: texts[i] } }] });
  }

  /** Written by jsonText: an upstream chunk's own fields may nest past what JSON.stringify can write (docs/configuration.md § Limits). */
  chunk(chunk: Chunk): void {
    if (this.read) this.read(chunk);
    else this.write(`data: ${jsonText(chunk)}\n\n`);
  }

  text(content: string): void {
    if (content === '') return;
    this.chunk({ ...this.baseOrDefault(), choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }] });
  }

  /** Whether a call like this one (same name and arguments) already went out: a retry that repeats it is not sent twice. */
  has(call: GatedCall): boolean {
    const wire = wireCall(call);
    return this.calls.some((c) => sameCall(wireCall(c), wire));
  }

  /** Sends one complete call as a single tool_calls delta: id, name and the whole arguments text. */
  call(call: GatedCall): void {
    const wire = wireCall(call);
    const index = this.calls.push(call) - 1;
    this.chunk({
      ...this.baseOrDefault(),
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index, id: wire.id, type: 'function', function: { name: wire.name, arguments: wire.arguments } }] },
          logprobs: null,
          finish_reason: null,
        },
      ],
    });
  }

  /** The last choice chunk: the upstream's own finish choice (its logprobs, stop_reason, …) with the response's finish_reason. */
  finish(choice: Chunk | null, finishReason: string, extra: Chunk): void {
    this.chunk({ ...this.baseOrDefault(), choices: [{ ...(choice ?? { index: 0, logprobs: null }), delta: {}, finish_reason: finishReason }], ...extra });
  }

  usage(usage: Chunk): void {
    this.chunk({ ...this.baseOrDefault(), choices: [], usage });
  }

  done(): void {
    this.write('data: [DONE]\n\n');
  }

  private baseOrDefault(): Chunk {
    this.base ??= { id: `chatcmpl-rebound-${crypto.randomUUID()}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000) };
    return this.base;
  }
}
