// One streamed completion. Text deltas go to the client as they come, except from the point where the
// text may be a call written into the reply, which is held (TextHold) until the completion ends; the
// calls come back, sent as tool_calls or extracted from the text, with the whole text. A failed
// upstream call is retried only while nothing has been streamed (streamWithRetry).
import { extractTextCalls, TextHold } from 'rebound-gate/host';
import { streamWithRetry } from '../model/retry.ts';
import type { AssembledToolCall, ModelClient, ModelRequest } from '../model/types.ts';
import type { ChatEnd, TurnTrace } from '../telemetry/index.ts';
import type { Emit, Usage } from '../vocabulary.ts';

export interface Completion {
  text: string;
  /** The text without the calls written into it: what the assistant message keeps. */
  visibleText: string;
  toolCalls: AssembledToolCall[];
  /** True when the calls were extracted from the text rather than sent as tool_calls. */
  embedded: boolean;
}

export interface CompletionOptions {
  retries: number;
  emit: Emit;
  /** Called with the usage the upstream reports, once per attempt that reports it. */
  addUsage: (usage: Usage | null) => void;
  /** The turn's trace, when tracing is on: the completion is its `chat {model}` span. */
  trace?: TurnTrace;
}

/** A completion cut short by its signal (a stop or a budget), with the text the client was already sent. */
export class CompletionAborted extends Error {
  readonly shownText: string;
  constructor(shownText: string, options: { cause: unknown }) {
    super('the completion was aborted', options);
    this.shownText = shownText;
    this.name = 'CompletionAborted';
  }
}

/** Throws CompletionAborted when the request's signal aborts it, and the model's errors (ModelError) once the retries are spent. */
export async function streamCompletion(model: ModelClient, asked: ModelRequest, { retries, emit, addUsage, trace }: CompletionOptions): Promise<Completion> {
  const chat = trace?.chat({ model: model.model, provider: model.demo ? 'rebound.demo' : 'openai', baseURL: model.baseURL, messages: asked.messages });
  const request = chat ? { ...asked, headers: chat.headers } : asked;
  const { tools, toolChoice, signal } = request;
  const hold = new TextHold();
  let toolCalls: AssembledToolCall[] = [];
  let finish: ChatEnd = {};
  try {
    for await (const event of streamWithRetry(model, request, { retries, onRetry: chat?.retry })) {
      if (event.type === 'text') {
        const shown = hold.push(event.text);
        if (shown) emit({ event: 'text_delta', data: { text: shown } });
      } else {
        toolCalls = event.toolCalls;
        addUsage(event.usage);
        finish = { finishReason: event.finishReason, usage: event.usage, responseModel: event.model };
      }
    }
  } catch (err) {
    chat?.end({ ...finish, error: err });
    if (signal.aborted) throw new CompletionAborted(hold.shown, { cause: err });
    throw err;
  }
  if (signal.aborted) {
    chat?.end({ ...finish, error: signal.reason ?? new Error('aborted') });
    throw new CompletionAborted(hold.shown, { cause: signal.reason });
  }
  const text = hold.full;
  chat?.end({ ...finish, text, toolCalls });
  // A call written into the text counts only where calls are allowed (not in the forced summary).
  if (toolCalls.length === 0 && toolChoice === 'auto' && tools.length > 0) {
    const extracted = extractTextCalls(text, tools);
    if (extracted.calls.length > 0) {
      const rest = hold.release(extracted.visibleText);
      if (rest) emit({ event: 'text_delta', data: { text: rest } });
      const calls = extracted.calls.map((c, i) => ({ id: `text_call_${Date.now().toString(36)}_${i}`, name: c.name, arguments: JSON.stringify(c.arguments) }));
      return { text, visibleText: extracted.visibleText, toolCalls: calls, embedded: true };
    }
  }
  const rest = hold.release();
  if (rest) emit({ event: 'text_delta', data: { text: rest } });
  return { text, visibleText: text, toolCalls, embedded: false };
}
