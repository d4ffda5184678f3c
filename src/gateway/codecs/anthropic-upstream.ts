// MESSAGES_UPSTREAM=anthropic: POST /v1/messages forwarded to ANTHROPIC_BASE_URL as the client sent it
// (its thinking config, server tools, cache_control and all, with the model mapped), with
// ANTHROPIC_API_KEY as x-api-key and the client's anthropic-version and anthropic-beta. The core reads
// the answer as Chat Completions: text as content, tool_use blocks as tool_calls (same ids, input_json
// deltas as argument deltas), stop_reason as finish_reason, usage as prompt/completion tokens; every
// other block (thinking, redacted_thinking, server_tool_use, web_search_tool_result, …) rides through
// whole as `rebound_block`, which messages-out.ts writes back unchanged. A re-ask is the client's body
// with the core's retry messages after it, as Anthropic blocks (the blocked tool_use blocks, then a user
// turn of tool_result blocks with the gate's message, is_error).
import { isPlainObject, jsonText } from 'rebound-gate/internal';
import type { ChatEndpoint } from '../../model/chat-post.ts';
import type { SseMessage } from '../../model/sse-decode.ts';
import { CallEnd } from '../held-stream.ts';
import type { UpstreamResult } from '../upstream.ts';
import { INTEGER, STRING } from './event-shape.ts';
import { jsonObject } from './json-object.ts';
import { textShape } from './native-lane.ts';
import { callNative, type ChunkIdentity, chatChunk, type NativeTranslation, textChunk } from './native-stream.ts';
import { stringOf } from '../string-of.ts';

type Json = Record<string, unknown>;

export interface AnthropicUpstream {
  baseURL: string;
  apiKey: string;
  timeoutMs: number;
  /** The client's anthropic-version and anthropic-beta, passed on. */
  headers: Record<string, string>;
  /** The transport (the app's upstreamFetch); absent, the runtime's fetch. */
  fetch?: typeof fetch;
}

const FINISH: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
  pause_turn: 'stop',
};
const finishOf = (stop: unknown) => (typeof stop === 'string' && FINISH[stop]) || 'stop';

/**
 * The core's upstream call for one Messages request: `original` is the client's body, `asked` how many
 * messages the core's first chat body had (what comes after them in a re-ask is the core's own).
 */
export function anthropicCall(upstream: AnthropicUpstream, original: Json, asked: number) {
  const endpoint: ChatEndpoint = {
    baseURL: upstream.baseURL,
    apiKey: undefined,
    timeoutMs: upstream.timeoutMs,
    ...(upstream.fetch ? { fetch: upstream.fetch } : {}),
  };
  return (chat: Json, request: { signal: AbortSignal; headers?: Record<string, string> }): Promise<UpstreamResult> => {
    const added = (Array.isArray(chat.messages) ? chat.messages : []).slice(asked).filter(isPlainObject);
    const messages = [...(original.messages as unknown[]), ...toAnthropic(added)];
    const body = { ...original, model: chat.model, messages };
    const headers = {
      ...request.headers,
      ...upstream.headers,
      'x-api-key': upstream.apiKey,
      'anthropic-version': upstream.headers['anthropic-version'] ?? '2023-06-01',
    };
    return callNative(endpoint, '/v1/messages', body, { signal: request.signal, headers }, anthropicTranslation);
  };
}

/** The core's retry messages (an assistant turn with tool_calls, tool results) as Anthropic messages. */
function toAnthropic(messages: Json[]): Json[] {
  const out: Json[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') {
      const text = typeof m.content === 'string' && m.content.trim() !== '' ? [{ type: 'text', text: m.content }] : [];
      const calls = (Array.isArray(m.tool_calls) ? m.tool_calls.filter(isPlainObject) : []).map((tc) => {
        const fn = isPlainObject(tc.function) ? tc.function : {};
        return { type: 'tool_use', id: stringOf(tc.id), name: stringOf(fn.name), input: objectOf(fn.arguments) };
      });
      out.push({ role: 'assistant', content: [...text, ...calls] });
    } else if (m.role === 'tool') {
      const result = { type: 'tool_result', tool_use_id: stringOf(m.tool_call_id), content: stringOf(m.content), is_error: true };
      const last = out.at(-1);
      if (last?.role === 'user' && Array.isArray(last.content)) last.content.push(result);
      else out.push({ role: 'user', content: [result] });
    }
  }
  return out;
}

/** A call's arguments as Anthropic's `input` object (`{}` when they hold none). */
const objectOf = (args: unknown): Json => jsonObject(args) ?? {};

function usageOf(input: unknown, output: unknown): Json {
  return { prompt_tokens: finite(input), completion_tokens: finite(output), total_tokens: finite(input) + finite(output) };
}

/** A finite number as it is, anything else as 0. */
function finite(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** message_stop's data as Anthropic writes it: the answer's end, known without a parse. */
const MESSAGE_STOP = '{"type":"message_stop"}';

/** A text block's delta as Anthropic streams it: the block's index (fixed in a run of them), the text. */
const TEXT_DELTA = textShape({
  pieces: ['{"type":"content_block_delta","index":', INTEGER, ',"delta":{"type":"text_delta","text":', STRING, '}}'],
  text: 1,
  free: [],
});

/**
 * Anthropic's answer, whole or streamed, as the core reads Chat Completions. Its functions are the
 * object's methods, not closures each request makes (docs/benchmarks.md § The streaming paths at the
 * physical limit).
 */
function anthropicTranslation(): NativeTranslation {
  const who: ChunkIdentity = { id: '', created: Math.floor(Date.now() / 1000), model: '' };
  let inputTokens: unknown = 0;
  let calls = 0;
  /** The open blocks by index: a tool_use's call index, or another block being put together whole. */
  const blocks = new Map<number, { kind: 'text' } | { kind: 'call'; call: number } | { kind: 'other'; block: Json; json: string }>();
  return {
    whole(json) {
      if (json.type !== 'message' || !Array.isArray(json.content)) return null;
      const content = json.content.filter(isPlainObject);
      const text = content.flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])).join('');
      const toolCalls = content
        .filter((b) => b.type === 'tool_use')
        .map((b) => ({ id: stringOf(b.id), type: 'function', function: { name: stringOf(b.name), arguments: jsonText(b.input ?? {}) } }));
      const other = content.filter((b) => b.type !== 'text' && b.type !== 'tool_use');
      const usage = isPlainObject(json.usage) ? json.usage : {};
      const message: Json = {
        role: 'assistant',
        content: text === '' ? null : text,
        ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        ...(other.length ? { rebound_blocks: other } : {}),
      };
      return {
        id: stringOf(json.id),
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: stringOf(json.model),
        choices: [{ index: 0, message, finish_reason: finishOf(json.stop_reason), logprobs: null }],
        usage: usageOf(usage.input_tokens, usage.output_tokens),
      };
    },
    textEvents: [TEXT_DELTA],
    // A text block's delta, read without JSON.parse when it comes as Anthropic writes it: text when its block is.
    text(holes, text) {
      return blocks.get(Number(holes[1]))?.kind === 'text' ? textChunk(who, text) : undefined;
    },
    event(message: SseMessage) {
      if (message.data === MESSAGE_STOP) return [null];
      const e = jsonObject(message.data);
      if (!e) return [];
      switch (e.type) {
        case 'message_start': {
          const m = isPlainObject(e.message) ? e.message : {};
          who.id = stringOf(m.id);
          who.model = stringOf(m.model);
          inputTokens = isPlainObject(m.usage) ? m.usage.input_tokens : 0;
          return [chatChunk(who, { role: 'assistant', content: '' })];
        }
        case 'content_block_start': {
          const index = Number(e.index);
          const block = isPlainObject(e.content_block) ? e.content_block : {};
          if (block.type === 'text') {
            blocks.set(index, { kind: 'text' });
            return typeof block.text === 'string' && block.text ? [chatChunk(who, { content: block.text })] : [];
          }
          if (block.type === 'tool_use') {
            const call = calls++;
            blocks.set(index, { kind: 'call', call });
            return [
              chatChunk(who, {
                tool_calls: [{ index: call, id: stringOf(block.id), type: 'function', function: { name: stringOf(block.name), arguments: '' } }],
              }),
            ];
          }
          blocks.set(index, { kind: 'other', block: { ...block }, json: '' });
          return [];
        }
        case 'content_block_delta': {
          const open = blocks.get(Number(e.index));
          const d = isPlainObject(e.delta) ? e.delta : {};
          if (open?.kind === 'text' && d.type === 'text_delta') return [chatChunk(who, { content: stringOf(d.text) })];
          if (open?.kind === 'call' && d.type === 'input_json_delta')
            return [chatChunk(who, { tool_calls: [{ index: open.call, function: { arguments: stringOf(d.partial_json) } }] })];
          if (open?.kind === 'other') {
            // Put the block together whole: thinking and its signature, a server tool's input.
            if (d.type === 'thinking_delta') open.block.thinking = stringOf(open.block.thinking) + stringOf(d.thinking);
            else if (d.type === 'signature_delta') open.block.signature = stringOf(d.signature);
            else if (d.type === 'input_json_delta') open.json += stringOf(d.partial_json);
            else if (d.type === 'citations_delta') open.block.citations = [...(Array.isArray(open.block.citations) ? open.block.citations : []), d.citation];
          }
          return [];
        }
        case 'content_block_stop': {
          const index = Number(e.index);
          const open = blocks.get(index);
          blocks.delete(index);
          // A tool_use block's end: its call is complete (no delta follows), it goes out now, not at message_delta.
          if (open?.kind === 'call') return [new CallEnd(open.call)];
          if (open?.kind !== 'other') return [];
          if (open.json) open.block.input = objectOf(open.json);
          return [chatChunk(who, { rebound_block: open.block })];
        }
        case 'message_delta': {
          const d = isPlainObject(e.delta) ? e.delta : {};
          const usage = isPlainObject(e.usage) ? e.usage : {};
          return [chatChunk(who, {}, finishOf(d.stop_reason), usageOf(usage.input_tokens ?? inputTokens, usage.output_tokens))];
        }
        case 'message_stop':
          return [null];
        case 'error':
          return [{ error: isPlainObject(e.error) ? e.error : { message: 'The upstream failed.' } }];
        default:
          // ping, and events this gateway does not know: nothing for the core.
          return [];
      }
    },
  };
}
