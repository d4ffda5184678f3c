// What the loop needs from a model: one streamed completion at a time, normalised. The OpenAI
// adapter and the demo model both implement it, so the loop cannot tell them apart.
import type { ToolSpec } from 'rebound-gate';
import type { ChatMessage, Usage } from '../vocabulary.ts';

export interface ModelRequest {
  messages: ChatMessage[];
  tools: ToolSpec[];
  toolChoice: 'auto' | 'none';
  signal: AbortSignal;
  /**
   * Where the turn begins in `messages`: the index of the user's message. What follows is the turn's own
   * work (the model's replies, tool results, the loop's nudges). Set by the loop; an adapter that sends
   * the messages upstream ignores it, the demo model reads its turn from there.
   */
  turnStart?: number;
  /** Extra request headers for the upstream: the trace context (traceparent) of the model call's span. */
  headers?: Record<string, string>;
}

export interface AssembledToolCall {
  id: string;
  name: string;
  /** Raw arguments text as streamed, concatenated: at most MAX_ARGUMENTS_CHARS (the gate's limit). */
  arguments: string;
  /** Past that limit: the whole length streamed, of which `arguments` is the start (the gate blocks the call unread). */
  argumentsChars?: number;
}

export type ModelEvent =
  | { type: 'text'; text: string }
  /** `model`: the model that answered, as the upstream's chunks name it (absent when they do not). */
  | { type: 'finish'; toolCalls: AssembledToolCall[]; finishReason: string | null; usage: Usage | null; model?: string };

/** The demo model's name (demo.ts), as turn_start, /health and the activity rows report it. */
export const DEMO_MODEL_NAME = 'rebound-demo';

export interface ModelClient {
  /** The model's name as reported in turn_start and activity rows. */
  readonly model: string;
  /** True for the built-in demo model: every surface labels it. */
  readonly demo: boolean;
  /** The upstream's base URL (absent for the demo model): where traces say the model call went. */
  readonly baseURL?: string;
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}

/**
 * Thrown by a model client; `retryable` says whether trying again may help (429, 5xx, timeouts, garbled
 * chunks), `status` is the upstream's HTTP status when it answered one, `cause` what was thrown underneath.
 */
export class ModelError extends Error {
  readonly status?: number;

  readonly retryable: boolean;
  constructor(message: string, retryable: boolean, options: { status?: number; cause?: unknown } = {}) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.retryable = retryable;
    if (options.status !== undefined) this.status = options.status;
    this.name = 'ModelError';
  }
}
