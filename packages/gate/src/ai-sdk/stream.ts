// The AI SDK middleware's doStream, the way Rebound's gateway streams (src/gateway/held-stream.ts and
// stream.ts there), with the same HeldAnswer deciding what is shown when: text goes out as it arrives,
// except from the point where it may be a call written into the reply (TextHold), held until the
// answer ends; a tool call's input deltas are held until the call is complete, then it is gated and,
// passing (as written or repaired, same id), goes out at once; a blocked call waits. The finish is held
// too. When the answer ends: calls written into its text (if it sent none) become tool calls; if a call
// is blocked and a retry is left, the model is asked again for the blocked calls (the text so far and
// those calls, each with the gate's message), and the retry's stream is read the same way, except that
// its text is held to the end and shown only when it answers without a call (the first answer's text
// is already out), and a call that repeats one already sent is dropped. With no retry left, the blocked
// calls go out as the model wrote them: never worse than no middleware. Then one finish: the last
// answer's, with every attempt's usage.
import { HeldAnswer } from '../held-answer.ts';
import { reaskStream } from '../reask-loop.ts';
import type { CompiledTools } from '../tools.ts';
import {
  addUsage,
  applied,
  type CallOptions,
  finishReason,
  type GatedToolCall,
  isBlocked,
  judge,
  type Model,
  reask,
  sentBefore,
  type StreamPart,
  type ToolCallContent,
  textCalls,
  type Usage,
} from './calls.ts';

type Finish = Extract<StreamPart, { type: 'finish' }>;
type TextEnd = Extract<StreamPart, { type: 'text-end' }>;

export interface GatedStreamOptions {
  first: ReadableStream<StreamPart>;
  params: CallOptions;
  tools: CompiledTools;
  retries: number;
  model: Model;
}

/** Shared by the stream and its reading: the attempt's reader (cancelled with the stream), and whether the stream was cancelled. */
interface Reading {
  reader: ReadableStreamDefaultReader<StreamPart> | undefined;
  cancelled: boolean;
}

/** The parts the AI SDK receives: the first answer's stream, its retries, one finish. */
export function gatedStream(options: GatedStreamOptions): ReadableStream<StreamPart> {
  const reading: Reading = { reader: undefined, cancelled: false };
  const parts = attempts(options, reading);
  return new ReadableStream<StreamPart>({
    async pull(controller) {
      const next = await parts.next();
      if (reading.cancelled) return;
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel(reason) {
      // The read under way ends at once (a stalled upstream included); no re-ask follows.
      reading.cancelled = true;
      await reading.reader?.cancel(reason).catch(() => undefined);
      await parts.return(undefined);
    },
  });
}

/** What goes out if no retry follows: the last answer's blocked calls, as the model wrote them, and its finish. */
interface Standing {
  blocked: GatedToolCall[];
  finish: Finish | undefined;
  /** The last answer sent calls of its own (not only written into its text). */
  sentCalls: boolean;
}

async function* attempts({ first, params, tools, retries, model }: GatedStreamOptions, reading: Reading): AsyncGenerator<StreamPart> {
  const sent: GatedToolCall[] = [];
  let ask = params;
  let usage: Usage | undefined;
  let standing: Standing | undefined;
  // The one re-ask loop (rebound-gate/host): each attempt's stream read here, a re-ask for its blocked calls.
  yield* reaskStream<ReadableStream<StreamPart>, CallOptions, StreamPart>({
    retries,
    first,
    ask: async (next) => {
      const answer = await model.doStream(next);
      return reading.cancelled ? null : answer.stream;
    },
    async *read(stream, { first: isFirst, last }) {
      const held = new Attempt({ tools, params: ask, first: isFirst, last, sent });
      try {
        yield* read(stream, held, reading);
      } catch (err) {
        // The first answer broke: the AI SDK sees it break, as without the middleware.
        if (!standing) throw err;
        held.failed = true;
      }
      // A re-ask that broke or reported an error: the answer stands as the model gave it before.
      if (standing && held.failed) return { blocked: 0, reask: null };
      const result = held.end();
      yield* result.parts;
      if (result.finish) usage = addUsage(usage, result.finish.usage);
      const blocked = result.calls.filter(isBlocked);
      standing = { blocked, finish: result.finish, sentCalls: result.calls.some((g) => !g.embedded) };
      if (held.failed || reading.cancelled) return { blocked: blocked.length, reask: null };
      return { blocked: blocked.length, reask: () => (ask = reask(ask, result.visibleText, blocked)) };
    },
  });
  if (standing) yield* close(standing, sent, usage);
}

/** The end of the stream: the standing blocked calls go out unchanged, then one finish with every attempt's usage. */
function* close(standing: Standing, sent: GatedToolCall[], usage: Usage | undefined): Generator<StreamPart> {
  for (const g of standing.blocked) yield* deliver(g, g.call, sent);
  const { finish } = standing;
  if (finish) yield { ...finish, usage: usage ?? finish.usage, finishReason: finishReason(finish.finishReason, sent, standing.sentCalls) };
}

/** One attempt's stream through `held`, part by part; the reader is released (cancelled when left early). */
async function* read(stream: ReadableStream<StreamPart>, held: Attempt, reading: Reading): AsyncGenerator<StreamPart> {
  const reader = stream.getReader();
  reading.reader = reader;
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      yield* held.push(next.value);
    }
    done = true;
  } finally {
    reading.reader = undefined;
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** A call going out whole: its input as one delta, then the call. */
function* deliver(g: GatedToolCall, call: ToolCallContent, sent: GatedToolCall[]): Generator<StreamPart> {
  sent.push(g);
  yield { type: 'tool-input-start', id: call.toolCallId, toolName: call.toolName };
  yield { type: 'tool-input-delta', id: call.toolCallId, delta: call.input };
  yield { type: 'tool-input-end', id: call.toolCallId };
  yield call;
}

interface AttemptOptions {
  tools: CompiledTools;
  params: CallOptions;
  /** The first attempt: its text goes out as it arrives (held only where it may be a call). */
  first: boolean;
  /** No retry follows: calls in the text that would not all pass stay in the text. */
  last: boolean;
  /** The calls that went out so far, across attempts. */
  sent: GatedToolCall[];
}

interface AttemptEnd {
  /** What goes out at the end: the rest of the text, the calls taken out of it, the text blocks' ends. */
  parts: StreamPart[];
  /** Every call of the attempt, gated, in order. */
  calls: GatedToolCall[];
  /** The answer's text without the calls taken out of it. */
  visibleText: string;
  finish: Finish | undefined;
}

class Attempt {
  private readonly answer: HeldAnswer<GatedToolCall>;
  /** Text passes as it comes, untouched: the first attempt of a request that allows no call. */
  private readonly passText: boolean;
  /** Text blocks: the start of each, held until something of it is shown; the ends, held to the end. */
  private readonly starts = new Map<string, StreamPart>();
  private readonly started = new Set<string>();
  private readonly ends: TextEnd[] = [];
  private lastTextId: string | undefined;
  /** Calls whose input deltas are held. */
  private readonly inputs = new Set<string>();
  private finish: Finish | undefined;
  /** The stream reported an error, or broke: no retry, and a retry's failure leaves the answer before it standing. */
  failed = false;

  private readonly o: AttemptOptions;
  constructor(o: AttemptOptions) {
    this.o = o;
    const { tools, params, first, last, sent } = o;
    const extract = params.toolChoice?.type !== 'none';
    this.passText = first && !extract;
    this.answer = new HeldAnswer<GatedToolCall>({
      first,
      last,
      extract,
      accepted: (g) => !isBlocked(g),
      sent: (g) => sentBefore(sent, g),
      textCalls: (text, options) => textCalls(tools, text, params, options),
    });
  }

  push(part: StreamPart): StreamPart[] {
    const { first } = this.o;
    switch (part.type) {
      case 'stream-start':
      case 'response-metadata':
        // A retry continues the first answer: its own start and metadata are not the response's.
        return first ? [part] : [];
      case 'text-start':
        if (this.passText) return [part];
        this.starts.set(part.id, part);
        this.lastTextId = part.id;
        return [];
      case 'text-delta': {
        const shown = this.answer.pushText(part.delta);
        if (this.passText) return [part];
        this.lastTextId = part.id;
        return shown === '' ? [] : [...this.open(part.id), { ...part, delta: shown }];
      }
      case 'text-end':
        if (this.passText) return [part];
        this.ends.push(part);
        return [];
      case 'tool-input-start':
        if (part.providerExecuted) return [part];
        this.inputs.add(part.id);
        return [];
      case 'tool-input-delta':
      case 'tool-input-end':
        return this.inputs.has(part.id) ? [] : [part];
      case 'tool-call':
        if (part.providerExecuted) return [part];
        return this.take(judge(this.o.tools, part));
      case 'finish':
        this.finish = part;
        return [];
      case 'error':
        // A retry's error is the middleware's own request failing: not passed on (the answer before it stands).
        this.failed = true;
        return first ? [part] : [];
      default:
        return [part];
    }
  }

  /** The answer ended (or broke off): the text is settled, calls written into it are taken out. */
  end(): AttemptEnd {
    const settled = this.answer.end(this.failed);
    const parts = this.show(settled.show);
    for (const g of settled.found) parts.push(...this.take(g));
    for (const end of this.ends) if (this.started.has(end.id)) parts.push(end);
    for (const id of this.started) if (!this.ends.some((e) => e.id === id)) parts.push({ type: 'text-end', id });
    return { parts, calls: this.answer.calls, visibleText: settled.visibleText, finish: this.finish };
  }

  /** A gated call: one that passes goes out now (unless a retry repeats one already sent); a blocked one waits. */
  private take(g: GatedToolCall): StreamPart[] {
    return this.answer.take(g) ? [...deliver(g, applied(g), this.o.sent)] : [];
  }

  /** Text shown in the attempt's last text block (one is opened if none was). */
  private show(text: string): StreamPart[] {
    if (text === '') return [];
    const id = this.lastTextId ?? `rebound-text-${crypto.randomUUID().slice(0, 8)}`;
    this.lastTextId = id;
    return [...this.open(id), { type: 'text-delta', id, delta: text }];
  }

  /** The block's start, the first time something of it is shown. */
  private open(id: string): StreamPart[] {
    if (this.started.has(id)) return [];
    this.started.add(id);
    return [this.starts.get(id) ?? { type: 'text-start', id }];
  }
}
