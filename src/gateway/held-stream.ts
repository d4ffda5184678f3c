// The held-call streaming transformer: one upstream attempt's SSE events in, the client's events out.
// Text deltas pass through as they arrive, as the upstream's own bytes whenever nothing in the chunk
// changes. Tool-call deltas are held: a call is complete when the upstream moves on to the next call
// (OpenAI and every provider recorded send calls one after another) or finishes; it is then gated,
// and a call that passes (as it is, or repaired) goes out at once as one complete tool_calls delta.
// The last call is complete with the finish chunk (or [DONE]), not only when the body ends.
// A blocked call stays here for the retry policy. The finish and usage chunks are held too: the
// orchestrator (stream.ts) writes them once no retry follows.
//
// From the point where the text may be a call written into the reply (rebound-gate's TextHold, shared
// with the loop and the AI SDK adapter) the text is held until the answer ends; calls found in it
// become real tool calls.
// On a retry (not the first attempt) the text is held to the end and shown only when the retry
// answers without a call: the client already has the first answer's text.
import { isPlainObject, TextHold, type ToolSpec } from 'rebound-gate';
import { ToolCallAssembler, type ToolCallDelta } from '../model/assemble.ts';
import type { SseMessage } from '../model/sse-decode.ts';
import type { Delivery } from './delivery.ts';
import { accepted, gateProposed, textCalls, type GatedCall } from './gated-call.ts';

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

interface OpenCall {
  key: string;
  /** The first id seen for the call (a delta without index and with another id starts another call). */
  id: string | undefined;
  /** One assembler per call: it handles the providers' quirks (names repeated in every chunk, repeats under a new id). */
  assembler: ToolCallAssembler;
}

export class HeldStream {
  private readonly hold: TextHold | null;
  private readonly calls: GatedCall[] = [];
  private text = '';
  private open: OpenCall | null = null;
  private readonly closed = new Set<string>();
  private finishReason: string | null = null;
  private finishChoice: Chunk | null = null;
  private usage: unknown = null;
  private lateDeltas = 0;
  failed = false;

  constructor(private readonly options: AttemptOptions) {
    this.hold = options.first && options.extractTextCalls ? new TextHold() : null;
  }

  push(message: SseMessage): void {
    if (this.failed) return;
    const d = this.options.delivery;
    if (message.data.trim() === '[DONE]') {
      if (this.open) this.close(this.open);
      return;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(message.data);
    } catch {
      chunk = undefined;
    }
    // Something that is not a chunk is passed on as it came: the client decides what it makes of it.
    if (!isPlainObject(chunk)) {
      d.raw(message);
      return;
    }
    if ((chunk.error !== undefined && chunk.error !== null) || message.event === 'error') {
      this.failed = true;
      d.raw(message);
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
      this.text += content;
      const shown = !this.options.first ? '' : this.hold ? this.hold.push(content) : content;
      if (shown !== content) {
        changed = true;
        content = shown;
      }
    }
    if (choice.finish_reason !== undefined && choice.finish_reason !== null) {
      this.finishReason = String(choice.finish_reason);
      this.finishChoice = choice;
      changed = true;
    }
    if (!changed) d.raw(message);
    else this.rewrite(chunk, choice, delta, content);
    for (const tc of toolDeltas) if (isPlainObject(tc)) this.toolDelta(tc as ToolCallDelta);
    // The answer is finished, so is its last call: it goes out now, not when the body ends.
    if (this.finishReason !== null && this.open) this.close(this.open);
  }

  /** The answer ended (or broke off): the open call is complete, the text is settled. */
  end(): AttemptResult {
    if (this.open) this.close(this.open);
    const d = this.options.delivery;
    let visibleText = this.text;
    const found =
      this.calls.length === 0 && this.options.extractTextCalls && !this.failed ? textCalls(this.text, this.options.toolset, { last: this.options.last }) : null;
    if (found) {
      visibleText = found.visibleText;
      if (this.hold) d.text(this.hold.release(found.visibleText));
      for (const g of found.calls) this.take(g);
    } else if (this.hold) {
      d.text(this.hold.release());
    } else if (!this.options.first && this.calls.length === 0) {
      d.text(this.text);
    }
    return {
      calls: this.calls,
      text: this.text,
      visibleText,
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
    if (typeof tc.index === 'number') return `i${tc.index}`;
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
    this.calls.push(g);
    const d = this.options.delivery;
    if (accepted(g) && !(!this.options.first && d.has(g))) d.call(g);
  }
}
