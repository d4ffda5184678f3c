// The held-call streaming transformer: one upstream attempt's SSE events in (or a native upstream's
// chunks as objects, codecs/native-stream.ts), the client's events out.
// Text deltas pass through as they arrive, as the upstream's own bytes whenever nothing in the chunk
// changes. Tool-call deltas are held: a call is complete when the upstream says so (a native upstream's
// end of the call's block or item, handed over as CallEnd), moves on to the next call (OpenAI and every
// provider recorded send calls one after another) or finishes; it is then gated, and a call that
// passes (as it is, or repaired) goes out at once as one complete tool_calls delta. The last call is
// complete with its end or the finish chunk (or [DONE]), not only when the body ends.
// A blocked call stays here for the retry policy. The finish and usage chunks are held too: the
// orchestrator (stream.ts) writes them once no retry follows.
//
// What is shown when, and what becomes of calls written into the text, is rebound-gate's HeldAnswer
// (shared with its AI SDK adapter): from the point where the text may be a call written into the reply
// the text is held until the answer ends, and calls found in it become real tool calls; on a retry (not
// the first attempt) the text is held to the end and shown only when the retry answers without a call:
// the client already has the first answer's text.
import type { ToolSpec } from 'rebound-gate';
import { HeldAnswer } from 'rebound-gate/host';
import { isPlainObject, pushTextRun } from 'rebound-gate/internal';
import { ToolCallAssembler, type ToolCallDelta } from '../model/assemble.ts';
import { ContentTemplate } from '../model/content-template.ts';
import { runData, type SseLane, type SseMessage, type SseRun } from '../model/sse-decode.ts';
import type { Delivery } from './delivery.ts';
import { accepted, gateProposed, textCalls, type GatedCall } from './gated-call.ts';
import { stringOf } from './string-of.ts';

export interface AttemptOptions {
  toolset: readonly ToolSpec[];
  extractTextCalls: boolean;
  /** The first attempt: its text goes out as it arrives. */
  first: boolean;
  /** No retry follows: calls in the text that would not all pass are left in the text. */
  last: boolean;
  delivery: Delivery;
}

export interface AttemptResult {
  /** Every call of the attempt, gated, in order (what went out and what was blocked). */
  calls: GatedCall[];
  /** The answer's text as the model wrote it, and without the calls extracted from it. */
  text: string;
  visibleText: string;
  finishReason: string | null;
  /** The upstream's finish choice (logprobs, provider fields), reused for the response's finish chunk. */
  finishChoice: Record<string, unknown> | null;
  usage: unknown;
  /** The upstream reported an error in the stream: it was passed on as it came, and the stream ends there. */
  failed: boolean;
  /** Deltas for a call that had already been gated and sent (a provider interleaving calls): dropped. */
  lateDeltas: number;
}

type Chunk = Record<string, unknown>;

/**
 * A run of text deltas a native upstream's lane read (codecs/native-lane.ts), in a batch of its chunks
 * (upstream.ts ChatChunks): the chunk `like` with each of `texts` as its delta's content, handed over as
 * that one chunk and the texts (`pushChunk`), no chunk made for each.
 */
export class TextRun {
  /** A chunk whose one choice's delta holds only `content` (its value is not read). */
  readonly like: Chunk;
  readonly texts: readonly string[];

  constructor(like: Chunk, texts: readonly string[]) {
    this.like = like;
    this.texts = texts;
  }

  /** The run's chunk with `content` as its text: the chunk its event stands for, made only where one is read in full. */
  chunkOf(content: string): Chunk {
    const choice = (this.like.choices as Chunk[])[0]!;
    return { ...this.like, choices: [{ ...choice, delta: { content } }] };
  }
}

/**
 * A native upstream's word that call `index` (its tool_calls index) is complete, in a batch of its
 * chunks (upstream.ts ChatChunks): Anthropic's content_block_stop of a tool_use block, the Responses
 * API's output_item.done of a call item. No delta for it follows, as when the next call starts: the
 * call is gated and goes out now, not with the finish, which may come in a later read and, from the
 * Responses API, with the whole response to parse (docs/benchmarks.md § The streaming paths at the
 * physical limit (issue 34)). It writes nothing.
 */
export class CallEnd {
  readonly index: number;
  constructor(index: number) {
    this.index = index;
  }
}

interface OpenCall {
  key: string;
  /** The first id seen for the call (a delta without index and with another id starts another call). */
  id: string | undefined;
  /** One assembler per call: it handles the providers' quirks (names repeated in every chunk, repeats under a new id). */
  assembler: ToolCallAssembler;
}

/**
 * A chunk that only adds text is passed on as it came when nothing else in it is read (`read` below): no
 * `error`, `usage` or `finish_reason` of any value but null. Only such a chunk may be the template.
 */
function passesAsItCame(chunk: Chunk): boolean {
  return chunk.error == null && chunk.usage == null && (chunk.choices as Chunk[])[0]!.finish_reason == null;
}

export class HeldStream {
  private readonly answer: HeldAnswer<GatedCall>;
  private open: OpenCall | null = null;
  private readonly closed = new Set<string>();
  private finishReason: string | null = null;
  private finishChoice: Chunk | null = null;
  private usage: unknown = null;
  private lateDeltas = 0;
  /**
   * The first attempt's text chunks that are the learned plain text chunk with another string (most of
   * a streamed answer): read without JSON.parse, by comparing the text around the string, as the SSE
   * decoder's lane (`lane`; the model's reader does the same, src/model/content-template.ts). Such a
   * chunk only adds text; when the text shown is the text it brought, it passes as it came, as the full
   * read below would pass it, and a run of them read from one upstream read as one write.
   */
  private readonly template = new ContentTemplate(passesAsItCame);
  /**
   * For a codec's channel (Delivery `reads`): the parse of the chunk the lane read one as a repeat of
   * (`likeFrom`; a matched chunk is it with another delta.content, and another value in the string the
   * template may leave open, which no codec reads). Null when it carries a field a codec reads beyond
   * the text (the native upstreams' `rebound_block` / `rebound_item`, a `rebound`): such chunks are
   * passed on as text.
   */
  private like: Chunk | null = null;
  private likeFrom: unknown = undefined;
  failed = false;

  private readonly options: AttemptOptions;

  constructor(options: AttemptOptions) {
    this.options = options;
    const { toolset, first, last, extractTextCalls, delivery } = options;
    this.answer = new HeldAnswer<GatedCall>({
      first,
      last,
      extract: extractTextCalls,
      accepted,
      sent: (g) => delivery.has(g),
      textCalls: (text, o) => textCalls(text, toolset, o),
    });
  }

  /**
   * The SSE decoder's lane for this attempt's body (sse-decode.ts SseLane): the first attempt's. A retry
   * has none: its text is held to the end and its chunks re-stamped, so each is read in full.
   */
  get lane(): SseLane | undefined {
    return this.options.first ? this.template : undefined;
  }

  /** One event of the attempt's body, as the decoder with `lane` hands it out (a message the lane read: its text, or a run of them). */
  push(message: SseMessage): void {
    if (this.failed) return;
    if (message.run !== undefined) {
      this.pushRun(message.run, message.like);
      return;
    }
    const d = this.options.delivery;
    const quick = message.event === null ? message.lane : undefined;
    if (quick !== undefined) {
      const shown = quick === '' ? quick : this.answer.pushText(quick);
      const like = d.reads ? this.likeOf(message.like) : null;
      if (shown !== quick) this.rewriteText(message.data, shown);
      else if (like) d.like(like, [quick]);
      else d.raw(message);
      return;
    }
    if (message.data.trim() === '[DONE]') {
      if (this.open) this.close(this.open);
      return;
    }
    // The lane's parse when it parsed the event to learn from it.
    let chunk: unknown = message.parsed;
    if (chunk === undefined) {
      try {
        chunk = JSON.parse(message.data);
      } catch {
        chunk = undefined;
      }
    }
    // Something that is not a chunk is passed on as it came: the client decides what it makes of it.
    if (!isPlainObject(chunk)) {
      d.raw(message);
      return;
    }
    this.read(chunk, message);
  }

  /**
   * A run of chunks the lane read from one upstream read, each adding its text: passed on as the
   * upstream's own text, the events in one write, up to an event whose text is not all shown now (it is
   * rewritten as the full read rewrites it); for a codec's channel, as the learned chunk and their
   * texts (`like`), the events up to such an event in one call.
   */
  private pushRun(run: SseRun, learned: unknown): void {
    const d = this.options.delivery;
    const like = d.reads ? this.likeOf(learned) : null;
    const { raw, texts, ends } = run;
    /** Where the events passed on but not written yet begin: in `raw`, and (`like`) in `texts`. */
    let from = 0;
    let first = 0;
    this.pushHeldTexts(texts, (i, shown) => {
      if (like) {
        if (first < i) d.like(like, texts, first, i);
        first = i + 1;
      } else {
        const start = i === 0 ? 0 : ends[i - 1]!;
        if (from < start) d.sse(raw.slice(from, start));
        from = ends[i]!;
      }
      this.rewriteText(runData(run, i), shown);
    });
    if (like) {
      if (first < texts.length) d.like(like, texts, first, texts.length);
    } else if (from < raw.length) d.sse(from === 0 ? raw : raw.slice(from));
  }

  /** A chunk the lane read whose text is held from here on: rewritten as the full read rewrites it. */
  private rewriteText(data: string, shown: string): void {
    const chunk = JSON.parse(data) as Chunk;
    const choice = (chunk.choices as Chunk[])[0]!;
    this.rewrite(chunk, choice, choice.delta as Chunk, shown);
  }

  /** The parse of the chunk the lane read a chunk as a repeat of (SseMessage `like`), for a codec's channel; null when such chunks go as text. */
  private likeOf(chunk: unknown): Chunk | null {
    if (chunk !== this.likeFrom) {
      this.likeFrom = chunk;
      const delta = isPlainObject(chunk) ? (((chunk.choices as Chunk[] | undefined)?.[0]?.delta as Chunk | undefined) ?? {}) : {};
      this.like = isPlainObject(chunk) && chunk.rebound === undefined && delta.rebound_block === undefined && delta.rebound_item === undefined ? chunk : null;
    }
    return this.like;
  }

  /**
   * A chunk a native upstream's translation hands over as an object (null: its [DONE]; CallEnd: a call's
   * end, which closes it as the next call's start would), read as `push` reads the same chunk's text;
   * one that passes unchanged goes on as this object (Delivery `chunk`).
   */
  pushChunk(chunk: Chunk | null | TextRun | CallEnd): void {
    if (this.failed) return;
    if (chunk === null) {
      if (this.open) this.close(this.open);
    } else if (chunk instanceof TextRun) this.pushTexts(chunk);
    else if (chunk instanceof CallEnd) {
      // The open call, if it is that one: one already closed (the next started) or never held has nothing left.
      if (this.open?.key === keyOfIndex(chunk.index)) this.close(this.open);
    } else this.read(chunk, null);
  }

  /**
   * A native upstream's run of text deltas (TextRun), read as `read` reads each of its chunks: for a
   * codec's channel as the run's chunk and its texts (Delivery `like`), the texts up to one not all shown
   * now in one call, that one rewritten as `read` rewrites it. A retry's, or after the finish, each is
   * read in full as its chunk.
   */
  private pushTexts(run: TextRun): void {
    const d = this.options.delivery;
    const { like, texts } = run;
    if (!this.options.first || !d.reads || this.finishReason !== null) {
      for (const text of texts) this.read(run.chunkOf(text), null);
      return;
    }
    d.adopt(like);
    let first = 0;
    this.pushHeldTexts(texts, (i, shown) => {
      if (first < i) d.like(like, texts, first, i);
      first = i + 1;
      const chunk = run.chunkOf(texts[i]!);
      const choice = (chunk.choices as Chunk[])[0]!;
      this.rewrite(chunk, choice, choice.delta as Chunk, shown);
    });
    if (first < texts.length) d.like(like, texts, first, texts.length);
  }

  /**
   * A run's texts pushed to the answer's hold: those shown whole at once as one run (pushTextRun; a last
   * one alone, as it comes), and for each one the hold does not show whole, `held(i, shown)` with what of
   * it is shown now. Both runs (a lane's, pushRun; a native upstream's, pushTexts) read their texts so.
   */
  private pushHeldTexts(texts: readonly string[], held: (i: number, shown: string) => void): void {
    for (let i = 0; i < texts.length; i++) {
      if (i + 1 < texts.length) i = pushTextRun(this.answer, texts, i, texts.length);
      if (i === texts.length) break;
      const text = texts[i]!;
      const shown = text === '' ? text : this.answer.pushText(text);
      if (shown !== text) held(i, shown);
    }
  }

  /** One chunk, read from `message` (null: handed over as an object): passed on, rewritten, its calls held. */
  private read(chunk: Chunk, message: SseMessage | null): void {
    const d = this.options.delivery;
    if ((chunk.error !== undefined && chunk.error !== null) || message?.event === 'error') {
      this.failed = true;
      this.pass(chunk, message);
      return;
    }
    d.adopt(chunk);
    if (chunk.usage !== undefined && chunk.usage !== null) this.usage = chunk.usage;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    // One choice is gated (n > 1 is refused); any other an upstream sends is dropped.
    const choice = choices.find((c): c is Chunk => isPlainObject(c) && (c.index ?? 0) === 0);
    if (!choice) return;
    const delta = isPlainObject(choice.delta) ? choice.delta : {};
    // Without tools to gate against (none declared, or tool_choice "none") calls pass as they came.
    const toolDeltas = this.options.toolset.length > 0 && Array.isArray(delta.tool_calls) ? delta.tool_calls : [];

    let changed = !this.options.first || choices.length > 1 || (chunk.usage !== undefined && chunk.usage !== null) || toolDeltas.length > 0;
    let content = delta.content;
    if (typeof content === 'string' && content !== '') {
      const shown = this.answer.pushText(content);
      if (shown !== content) {
        changed = true;
        content = shown;
      }
    }
    if (choice.finish_reason !== undefined && choice.finish_reason !== null) {
      this.finishReason = stringOf(choice.finish_reason);
      this.finishChoice = choice;
      changed = true;
    }
    if (!changed) this.pass(chunk, message);
    else this.rewrite(chunk, choice, delta, content);
    for (const tc of toolDeltas) if (isPlainObject(tc)) this.toolDelta(tc as ToolCallDelta);
    // The answer is finished, so is its last call: it goes out now, not when the body ends.
    if (this.finishReason !== null && this.open) this.close(this.open);
  }

  /** A chunk passed on unchanged: the upstream's bytes, or the object as it was handed over. */
  private pass(chunk: Chunk, message: SseMessage | null): void {
    if (message) this.options.delivery.raw(message);
    else this.options.delivery.chunk(chunk);
  }

  /** The answer ended (or broke off): the open call is complete, the text is settled. */
  end(): AttemptResult {
    if (this.open) this.close(this.open);
    const settled = this.answer.end(this.failed);
    this.options.delivery.text(settled.show);
    for (const g of settled.found) this.take(g);
    return {
      calls: this.answer.calls,
      text: this.answer.text,
      visibleText: settled.visibleText,
      finishReason: this.finishReason,
      finishChoice: this.finishChoice,
      usage: this.usage,
      failed: this.failed,
      lateDeltas: this.lateDeltas,
    };
  }

  /** The chunk without its tool-call deltas, held usage and finish, with the text that can be shown now. */
  private rewrite(chunk: Chunk, choice: Chunk, delta: Chunk, content: unknown): void {
    const { tool_calls: _calls, ...rest } = delta;
    const out: Chunk = { ...rest };
    if (typeof delta.content === 'string') out.content = content;
    if (!this.options.first) delete out.role;
    const carries =
      Object.entries(out).some(([, v]) => v !== null && v !== undefined && v !== '') || (choice.logprobs !== null && choice.logprobs !== undefined);
    if (!carries) return;
    const { usage: _usage, ...fields } = chunk;
    const next: Chunk = { ...fields, choices: [{ ...choice, delta: out, finish_reason: null }] };
    this.options.delivery.chunk(this.options.first ? next : this.options.delivery.stamp(next));
  }

  private toolDelta(tc: ToolCallDelta): void {
    const key = this.keyOf(tc);
    if (this.closed.has(key)) {
      this.lateDeltas++;
      return;
    }
    if (this.open && this.open.key !== key) this.close(this.open);
    if (!this.open) this.open = { key, id: undefined, assembler: new ToolCallAssembler() };
    if (typeof tc.id === 'string' && tc.id && this.open.id === undefined) this.open.id = tc.id;
    this.open.assembler.push(tc);
  }

  /** Which call a delta belongs to: its index; without one, its id; without either, the open call. */
  private keyOf(tc: ToolCallDelta): string {
    if (typeof tc.index === 'number') return keyOfIndex(tc.index);
    const id = typeof tc.id === 'string' && tc.id ? tc.id : undefined;
    if (id && (!this.open || (this.open.id !== undefined && this.open.id !== id))) return `id:${id}`;
    return this.open?.key ?? 'i0';
  }

  private close(open: OpenCall): void {
    this.open = null;
    this.closed.add(open.key);
    for (const call of open.assembler.result()) this.take(gateProposed(call, this.options.toolset));
  }

  /** A gated call: one that passes goes out now (unless a retry repeats one already sent); a blocked one waits. */
  private take(g: GatedCall): void {
    if (this.answer.take(g)) this.options.delivery.call(g);
  }
}

/** The key of a call delta with an index (HeldStream's keyOf). */
function keyOfIndex(index: number): string {
  return `i${index}`;
}
