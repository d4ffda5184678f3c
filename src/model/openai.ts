// The OpenAI-compatible adapter: any server that speaks chat completions with streaming (OpenAI,
// OpenRouter, Groq, Ollama, vLLM). Normalises chunks into ModelEvents and errors into ModelError.
import OpenAI from 'openai';
import { ToolCallAssembler } from './assemble.ts';
import { ModelError, type ModelClient, type ModelEvent, type ModelRequest } from './types.ts';
import type { Usage } from '../loop/events.ts';

export interface OpenAIModelOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  /** Per-request timeout for the upstream connection (ms). */
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
    let stream;
    try {
      stream = await this.client.chat.completions.create(
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
      );
    } catch (err) {
      throw toModelError(err);
    }

    const calls = new ToolCallAssembler();
    let finishReason: string | null = null;
    let usage: Usage | null = null;
    try {
      for await (const chunk of stream) {
        if (chunk.usage) usage = { promptTokens: chunk.usage.prompt_tokens ?? 0, completionTokens: chunk.usage.completion_tokens ?? 0 };
        // n > 1 is never requested; a provider that sends other choices anyway is ignored past the first.
        const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
        if (!choice) continue;
        const delta = choice.delta ?? {};
        if (typeof delta.content === 'string' && delta.content) yield { type: 'text', text: delta.content };
        for (const tc of delta.tool_calls ?? []) calls.push(tc);
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
    } catch (err) {
      throw toModelError(err);
    }
    yield { type: 'finish', toolCalls: calls.result(), finishReason, usage };
  }
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
  // A garbled chunk surfaces as a JSON SyntaxError from the SDK's stream parser.
  if (err instanceof SyntaxError) return new ModelError(`the model sent a garbled chunk: ${err.message}`, true);
  if (err instanceof Error && err.name === 'AbortError') return err;
  return new ModelError(err instanceof Error ? err.message : String(err), true);
}
