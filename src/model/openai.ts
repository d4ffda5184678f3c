// The OpenAI-compatible adapter: any server that speaks chat completions with streaming (OpenAI,
// OpenRouter, Groq, Ollama, vLLM). Normalises chunks into ModelEvents and errors into ModelError.
import { ToolCallAssembler } from './assemble.ts';
import { postChatJson, readBounded, type ChatEndpoint } from './chat-post.ts';
import { ContentTemplate } from './content-template.ts';
import { SseDecoder, sseBatches, type SseMessage } from './sse-decode.ts';
import { ModelError, type ModelClient, type ModelEvent, type ModelRequest } from './types.ts';
import type { ToolSpec } from 'rebound-gate';
import { jsonText } from 'rebound-gate/internal';
import type { Usage } from '../vocabulary.ts';

export interface OpenAIModelOptions {
  apiKey: string;
  /** Default: OpenAI's own API. */
  baseURL?: string;
  model: string;
  /** How long to wait for the upstream's response headers (ms); the stream itself is bounded by the turn's time budget. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** How much of an error response is read to quote its message. */
const ERROR_BODY_BYTES = 64 * 1024;

export class OpenAIModel implements ModelClient {
  readonly demo = false;
  readonly model: string;
  readonly baseURL: string;
  private endpoint: ChatEndpoint;

  constructor(options: OpenAIModelOptions) {
    this.model = options.model;
    // No retries here: they are ours (src/model/retry.ts), and must stop once anything reached the client.
    this.baseURL = options.baseURL || OPENAI_BASE_URL;
    this.endpoint = { apiKey: options.apiKey, baseURL: this.baseURL, timeoutMs: options.timeoutMs ?? 60_000, fetch: options.fetch };
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    const response = await this.send(request);
    if (!response.body) throw new ModelError('the model answered without a body', true);

    const calls = new ToolCallAssembler();
    const template = new ContentTemplate();
    // The template is the decoder's lane: it reads the chunks it matches straight from each read, runs
    // of them as one message, and learns from the others as they are made (content-template.ts).
    const decoder = new SseDecoder({}, template);
    let finishReason: string | null = null;
    let usage: Usage | null = null;
    let answeredBy: string | undefined;
    let sawChunk = false;
    let sawDone = false;
    try {
      for await (const batch of sseBatches(response.body, decoder)) {
        // Deltas that arrived in one network read are forwarded as one.
        let text = '';
        for (const message of batch) {
          // After [DONE] the body is read to its end (so the connection can be reused) and ignored.
          if (sawDone) break;
          // Chunks that only add text, read by the template (the learned chunk with another string): their text.
          if (message.lane !== undefined) {
            sawChunk = true;
            text += message.lane;
            continue;
          }
          if (message.data.startsWith('[DONE]')) {
            sawDone = true;
            break;
          }
          const chunk = parseChunk(message);
          if (!chunk) continue;
          sawChunk = true;
          if (chunk.usage) usage = validUsage(chunk.usage);
          if (answeredBy === undefined && typeof chunk.model === 'string' && chunk.model) answeredBy = chunk.model.slice(0, 200);
          // n > 1 is never requested; a provider that sends other choices anyway is ignored past the first.
          const choice = chunk.choices?.find((c) => isObject(c) && (c.index ?? 0) === 0);
          if (!choice) continue;
          const delta = isObject(choice.delta) ? choice.delta : {};
          if (typeof delta.content === 'string') text += delta.content;
          if (Array.isArray(delta.tool_calls)) for (const tc of delta.tool_calls) calls.push(tc);
          if (typeof choice.finish_reason === 'string' && choice.finish_reason) finishReason = choice.finish_reason;
        }
        if (text) yield { type: 'text', text };
      }
    } catch (err) {
      throw toModelError(err, request.signal);
    }
    if (request.signal.aborted) throw request.signal.reason ?? new Error('aborted');
    // A 200 with no chunk and no [DONE] (garbage, an HTML page, a non-streaming JSON answer) is not
    // an empty completion: it is an upstream failure, retried while nothing was streamed. (A
    // finish_reason comes in a chunk, so "no chunk" covers it; a stream with chunks and a finish
    // reason but no [DONE], as some providers send, is a completion.)
    if (!sawChunk && !sawDone) throw new ModelError(describeNonStream(response.headers.get('content-type'), decoder.head), true);
    yield { type: 'finish', toolCalls: calls.result(), finishReason, usage, ...(answeredBy ? { model: answeredBy } : {}) };
  }

  /** The response to read, or a ModelError for an upstream that failed before its body (the caller's abort is thrown as it is). */
  private async send(request: ModelRequest): Promise<Response> {
    // The tools are most of the body (~5 KB) and the same on every request: their JSON is reused (toolsJson).
    const head = JSON.stringify({ model: this.model, messages: request.messages, stream: true, stream_options: { include_usage: true } });
    const json = request.tools.length ? `${head.slice(0, -1)},"tools":${toolsJson(request.tools)},"tool_choice":${JSON.stringify(request.toolChoice)}}` : head;
    const posted = await postChatJson(this.endpoint, { json, stream: true, headers: request.headers }, request.signal);
    if (posted.kind === 'timeout') throw new ModelError('the model did not answer in time', true);
    if (posted.kind === 'unreachable') throw new ModelError(`could not reach the model: ${posted.message}`, true, { cause: posted.cause });
    const { response } = posted;
    if (response.ok) return response;
    const status = response.status;
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    throw new ModelError(`the model returned ${status}: ${errorDetail(await errorHead(response))}`, retryable, { status });
  }
}

/**
 * Each tool's JSON as the request sends it, kept with its schema object: a tool list is rebuilt every
 * turn but its schemas are the tools' own objects, which change only when the tools do (an MCP
 * server's tools are new objects whenever it is opened). A schema is not expected to change in place.
 */
const toolJsonCache = new WeakMap<object, { name: string; description: string | undefined; json: string }>();

/** The request's `tools` array as JSON: `[{"type":"function","function":{name, description, parameters}}, …]`. */
export function toolsJson(tools: readonly ToolSpec[]): string {
  let out = '[';
  tools.forEach((t, i) => {
    const cached = toolJsonCache.get(t.parameters);
    let json = cached?.name === t.name && cached.description === t.description ? cached.json : undefined;
    if (json === undefined) {
      json = JSON.stringify({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } });
      if (typeof t.parameters === 'object' && t.parameters !== null) toolJsonCache.set(t.parameters, { name: t.name, description: t.description, json });
    }
    out += (i ? ',' : '') + json;
  });
  return `${out}]`;
}

/** Token counts are kept only when both are non-negative safe integers: anything else would poison the turn row. */
export function validUsage(raw: unknown): Usage | null {
  if (!isObject(raw)) return null;
  const { prompt_tokens: prompt, completion_tokens: completion } = raw as Record<string, unknown>;
  return isCount(prompt) && isCount(completion) ? { promptTokens: prompt, completionTokens: completion } : null;
}

function isObject(value: unknown): value is object {
  return value !== null && typeof value === 'object';
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function describeNonStream(contentType: string | null, head: string): string {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() || 'none';
  const began = head.trim() ? `it began: ${preview(head, 120)}` : 'the body was empty';
  if (type === 'application/json' || type.endsWith('+json')) {
    return `the model answered with a non-streaming JSON body (content-type ${type}) instead of an event stream; ${began}`;
  }
  return `the model's response held no completion: no chunk, no finish reason and no [DONE] (content-type ${type}); ${began}`;
}

/** The start of what the upstream sent, fit for a message: control characters and lone surrogates escaped. */
function preview(text: string, chars: number): string {
  const cut = text.length > chars ? `${text.slice(0, chars)}…` : text;
  return JSON.stringify(cut).slice(1, -1).replaceAll('\\"', '"');
}

/** What is read of a chunk, as the upstream may send it: every field is checked before use. */
interface Chunk {
  model?: unknown;
  choices?: Array<{ index?: number; delta?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown }>;
  usage?: unknown;
  error?: { message?: string; code?: unknown };
}

/** A chunk, or null for a payload that carries none (an empty `data:`, a JSON object that is not a chunk). */
function parseChunk(message: SseMessage): Chunk | null {
  if (message.data === '') return null;
  // The template's parse when it parsed the chunk to learn from it (content-template.ts `offer`).
  let chunk: unknown = message.parsed;
  if (chunk === undefined) {
    try {
      chunk = JSON.parse(message.data);
    } catch {
      throw new ModelError(`the model sent a garbled chunk: ${preview(message.data, 80)}`, true);
    }
  }
  if (!isObject(chunk) || Array.isArray(chunk)) {
    throw new ModelError(`the model sent a chunk that is not a JSON object: ${preview(message.data, 80)}`, true);
  }
  const c = chunk as Chunk;
  // Providers report failures mid-stream as a data payload with `error` (or an `error` event).
  if (c.error || message.event === 'error') {
    // A message that is no string is quoted from the text: it may nest past what String() can write.
    const detail = typeof c.error?.message === 'string' ? c.error.message : message.data.slice(0, 200);
    throw new ModelError(`the model stream failed: ${detail}`, true);
  }
  return Array.isArray(c.choices) || isObject(c.usage) ? c : null;
}

/** The first bytes of an error body, enough to quote (a body that breaks while read is quoted as nothing). */
async function errorHead(response: Response): Promise<string> {
  return (await readBounded(response, ERROR_BODY_BYTES).catch(() => ({ text: '' }))).text;
}

/** The message of an error response: OpenAI's `{error: {message}}`, or the body as it came. */
function errorDetail(body: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const error = isObject(parsed) ? (parsed as { error?: unknown }).error : undefined;
  const message = isObject(error) ? (error as { message?: unknown }).message : undefined;
  if (typeof message === 'string' && message) return preview(message, 300);
  // jsonText: the upstream's error may nest past what JSON.stringify can write (docs/configuration.md § Limits).
  if (error !== undefined && error !== null) return preview(jsonText(error), 300);
  return body.trim() ? preview(body.trim(), 300) : 'no body';
}

/** An error while reading the body: the caller's abort as it is, anything else a retryable ModelError. */
function toModelError(err: unknown, signal: AbortSignal): Error {
  if (err instanceof ModelError) return err;
  if (signal.aborted || (err instanceof Error && err.name === 'AbortError')) return err as Error;
  return new ModelError(err instanceof Error ? err.message : String(err), true, { cause: err });
}
