// The OpenAI-compatible adapter: any server that speaks chat completions with streaming (OpenAI,
// OpenRouter, Groq, Ollama, vLLM). Normalises chunks into ModelEvents and errors into ModelError.
import OpenAI from 'openai';
import { ToolCallAssembler } from './assemble.ts';
import { sseBatches, type SseMessage } from './sse-decode.ts';
import { ModelError, type ModelClient, type ModelEvent, type ModelRequest } from './types.ts';
import type { Usage } from '../loop/events.ts';

export interface OpenAIModelOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  /** How long to wait for the upstream's response headers (ms); the stream itself is bounded by the turn's time budget. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class OpenAIModel implements ModelClient {
  readonly demo = false;
  readonly model: string;
  private client: OpenAI;

  constructor(options: OpenAIModelOptions) {
    this.model = options.model;
    this.client = new OpenAI({
      apiKey: options.apiKey,
      baseURL: options.baseURL,
      timeout: options.timeoutMs ?? 60_000,
      // Retries are ours (src/model/retry.ts): they must stop once anything reached the client.
      maxRetries: 0,
      fetch: options.fetch,
    });
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    let response: Response;
    try {
      // The SDK builds and sends the request and turns HTTP errors into APIError; the body is
      // decoded here (see sse-decode.ts for why).
      response = await this.client.chat.completions
        .create(
          {
            model: this.model,
            messages: request.messages as OpenAI.Chat.ChatCompletionMessageParam[],
            stream: true,
            stream_options: { include_usage: true },
            ...(request.tools.length
              ? {
                  tools: request.tools.map((t) => ({
                    type: 'function' as const,
                    function: { name: t.name, description: t.description, parameters: t.parameters as Record<string, unknown> },
                  })),
                  tool_choice: request.toolChoice,
                }
              : {}),
          },
          { signal: request.signal },
        )
        .asResponse();
    } catch (err) {
      throw toModelError(err);
    }
    if (!response.body) throw new ModelError('the model answered without a body', true);

    const calls = new ToolCallAssembler();
    let finishReason: string | null = null;
    let usage: Usage | null = null;
    try {
      for await (const batch of sseBatches(response.body)) {
        // Deltas that arrived in one network read are forwarded as one.
        let text = '';
        for (const message of batch) {
          if (message.data.startsWith('[DONE]')) break;
          const chunk = parseChunk(message);
          if (chunk.usage) usage = { promptTokens: chunk.usage.prompt_tokens ?? 0, completionTokens: chunk.usage.completion_tokens ?? 0 };
          // n > 1 is never requested; a provider that sends other choices anyway is ignored past the first.
          const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
          if (!choice) continue;
          const delta = choice.delta ?? {};
          if (typeof delta.content === 'string') text += delta.content;
          for (const tc of delta.tool_calls ?? []) calls.push(tc);
          if (choice.finish_reason) finishReason = choice.finish_reason;
        }
        if (text) yield { type: 'text', text };
      }
    } catch (err) {
      throw toModelError(err);
    }
    if (request.signal.aborted) throw request.signal.reason ?? new Error('aborted');
    yield { type: 'finish', toolCalls: calls.result(), finishReason, usage };
  }
}

type Chunk = Partial<OpenAI.Chat.ChatCompletionChunk> & { error?: { message?: string; code?: unknown } };

function parseChunk(message: SseMessage): Chunk {
  let chunk: Chunk;
  try {
    chunk = JSON.parse(message.data) as Chunk;
  } catch {
    throw new ModelError(`the model sent a garbled chunk: ${message.data.slice(0, 80)}`, true);
  }
  // Providers report failures mid-stream as a data payload with `error` (or an `error` event).
  if (chunk?.error || message.event === 'error') {
    const detail = chunk?.error?.message ?? message.data.slice(0, 200);
    throw new ModelError(`the model stream failed: ${detail}`, true);
  }
  return chunk;
}

export function toModelError(err: unknown): ModelError | Error {
  if (err instanceof ModelError) return err;
  if (err instanceof OpenAI.APIUserAbortError) return err;
  if (err instanceof OpenAI.APIConnectionTimeoutError) return new ModelError('the model did not answer in time', true);
  if (err instanceof OpenAI.APIConnectionError) return new ModelError(`could not reach the model: ${err.message}`, true);
  if (err instanceof OpenAI.APIError) {
    const status = err.status;
    const retryable = status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
    return new ModelError(`the model returned ${status ?? 'an error'}: ${err.message}`, retryable, status);
  }
  if (err instanceof Error && err.name === 'AbortError') return err;
  return new ModelError(err instanceof Error ? err.message : String(err), true);
}
