// The gateway core's answer (Chat Completions) as Anthropic's Messages API answers (docs/gateway-messages.md):
// - a whole `chat.completion` becomes one `message` (text block, then one `tool_use` block per call,
//   same ids, the arguments as the `input` object), finish_reason as stop_reason, usage as input/output tokens;
// - a stream becomes Anthropic's events, as they come out of the core: `message_start`, per block
//   `content_block_start` / `_delta` (`text_delta`, `input_json_delta` with the call's whole, gated
//   arguments) / `_stop`, then `message_delta` (stop_reason, usage, and `rebound: {attempts, verdict}`,
//   the verdict on the stream's last data event before `message_stop`) and `message_stop`;
// - an error in Anthropic's shape `{type: "error", error: {type, message}}`.
import { isPlainObject, jsonText } from 'rebound-gate/internal';
import type { StreamChannel } from '../stream.ts';
import { anthropicError } from './anthropic-error.ts';
import { firstChoice, jsonObject } from './json-object.ts';
import { eventChannel, jsonString, sseEvent } from './sse-text.ts';
import { stringOf } from '../string-of.ts';

type Json = Record<string, unknown>;

const STOP: Record<string, string> = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', function_call: 'tool_use', content_filter: 'refusal' };

/** Anthropic's stop_reason for a chat finish_reason. */
export function stopReason(finish: unknown): string {
  return (typeof finish === 'string' && STOP[finish]) || 'end_turn';
}

/** A call's arguments as the `input` object (arguments that are no JSON object, a call still blocked as written: `{}`). */
const inputOf = (args: unknown): Json => jsonObject(args) ?? {};

function usageOf(u: unknown): { input_tokens: number; output_tokens: number } {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const usage = isPlainObject(u) ? u : {};
  return { input_tokens: n(usage.prompt_tokens), output_tokens: n(usage.completion_tokens) };
}

const messageId = (chatId: unknown) =>
  `msg_${typeof chatId === 'string' && chatId ? chatId.replace(/^chatcmpl-/, '') : crypto.randomUUID().replaceAll('-', '')}`;

/** A whole chat.completion as a Messages `message`; `model` is the name the client asked for. */
export function completionToMessage(completion: Json, model: string): Json {
  const choice = firstChoice(completion) ?? {};
  const message = isPlainObject(choice.message) ? choice.message : {};
  // The blocks a native upstream sent that the core does not read (thinking, server tools), unchanged, first.
  const content: Json[] = Array.isArray(message.rebound_blocks) ? message.rebound_blocks.filter(isPlainObject) : [];
  if (typeof message.content === 'string' && message.content !== '') content.push({ type: 'text', text: message.content });
  for (const tc of Array.isArray(message.tool_calls) ? message.tool_calls.filter(isPlainObject) : []) {
    const fn = isPlainObject(tc.function) ? tc.function : {};
    content.push({ type: 'tool_use', id: stringOf(tc.id), name: stringOf(fn.name), input: inputOf(fn.arguments) });
  }
  return {
    id: messageId(completion.id),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason(choice.finish_reason),
    stop_sequence: null,
    usage: usageOf(completion.usage),
  };
}

/**
 * A block a native upstream sent whole (messages-out's passthrough), as Anthropic streams it: thinking
 * with its thinking_delta and signature_delta, a server tool's input as one input_json_delta, any other
 * block whole in its start.
 */
function writeBlock(out: StreamChannel, index: number, block: Json): void {
  const delta = (d: Json) => out.write(sseEvent('content_block_delta', { type: 'content_block_delta', index, delta: d }));
  if (block.type === 'thinking') {
    out.write(sseEvent('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
    delta({ type: 'thinking_delta', thinking: stringOf(block.thinking) });
    if (typeof block.signature === 'string') delta({ type: 'signature_delta', signature: block.signature });
  } else if (block.type === 'server_tool_use' || block.type === 'mcp_tool_use') {
    out.write(sseEvent('content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } }));
    delta({ type: 'input_json_delta', partial_json: jsonText(block.input ?? {}) });
  } else out.write(sseEvent('content_block_start', { type: 'content_block_start', index, content_block: block }));
  out.write(sseEvent('content_block_stop', { type: 'content_block_stop', index }));
}

/**
 * A text block's deltas: sseEvent's text for `{type: 'content_block_delta', index, delta: {type:
 * 'text_delta', text}}` for each of `texts[from..to)` but the empty ones, one after another; the text
 * before the text made once for the block, only the text serialised per delta (most events of a
 * stream, a run of them one string: sse-text.test.ts).
 */
export function textDeltas(index: number): (texts: readonly string[], from: number, to: number) => string {
  const head = `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":`;
  return (texts, from, to) => {
    let out = '';
    for (let i = from; i < to; i++) {
      const text = texts[i]!;
      if (text !== '') out += `${head}${jsonString(text)}}}\n\n`;
    }
    return out;
  };
}

/**
 * The channel the core writes its Chat Completions stream to, writing Anthropic's events to `out`
 * instead: text and calls as blocks in the order they come, the finish and usage held for
 * `message_delta`, `[DONE]` as `message_stop`.
 */
export function messagesChannel(out: StreamChannel, model: string): StreamChannel {
  let started = false;
  /** The open text block: its index and its deltas' writer. */
  let open: { index: number; deltas: (texts: readonly string[], from: number, to: number) => string } | null = null;
  let blocks = 0;
  let stop = 'end_turn';
  let usage = { input_tokens: 0, output_tokens: 0 };
  let rebound: unknown;
  const start = (chunk: Json) => {
    if (started) return;
    started = true;
    const message = { id: messageId(chunk.id), type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage };
    out.write(sseEvent('message_start', { type: 'message_start', message }));
  };
  const close = () => {
    if (!open) return;
    out.write(sseEvent('content_block_stop', { type: 'content_block_stop', index: open.index }));
    open = null;
  };
  /** Text for the client, `texts[from..to)`: deltas of the open text block (opened first if none is), in one write. */
  const writeTexts = (texts: readonly string[], from: number, to: number) => {
    while (from < to && texts[from] === '') from++;
    if (from === to) return;
    if (!open) {
      const index = blocks++;
      open = { index, deltas: textDeltas(index) };
      out.write(sseEvent('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
    }
    out.write(open.deltas(texts, from, to));
  };
  // Each event of the core's stream, read from its text or handed over as it holds it.
  return eventChannel(out, {
    done() {
      start({});
      close();
      out.write(
        sseEvent('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage, ...(rebound ? { rebound } : {}) }),
      );
      out.write(sseEvent('message_stop', { type: 'message_stop' }));
    },
    // Text chunks like the learned one: nothing in them but their texts (the message started by it if none was).
    texts(like, texts, from, to) {
      start(like);
      writeTexts(texts, from, to);
    },
    chunk(chunk) {
      if (chunk.error !== undefined && chunk.error !== null) {
        // The upstream reported an error mid-stream: Anthropic's error event, and the stream ends there.
        const error = isPlainObject(chunk.error) ? chunk.error : { message: stringOf(chunk.error) };
        out.write(sseEvent('error', anthropicError(500, { error })));
        return;
      }
      start(chunk);
      if (chunk.usage) usage = usageOf(chunk.usage);
      if (chunk.rebound) rebound = chunk.rebound;
      const choice = firstChoice(chunk);
      if (!choice) return;
      const delta = isPlainObject(choice.delta) ? choice.delta : NO_DELTA;
      if (isPlainObject(delta.rebound_block)) {
        close();
        writeBlock(out, blocks++, delta.rebound_block);
      }
      if (typeof delta.content === 'string') writeTexts([delta.content], 0, 1);
      // The core sends each call whole, once gated: one block, its arguments in one delta.
      if (Array.isArray(delta.tool_calls)) {
        for (const tc of delta.tool_calls) {
          if (!isPlainObject(tc)) continue;
          close();
          const fn = isPlainObject(tc.function) ? tc.function : NO_DELTA;
          const index = blocks++;
          const block = { type: 'tool_use', id: stringOf(tc.id), name: stringOf(fn.name), input: {} };
          out.write(sseEvent('content_block_start', { type: 'content_block_start', index, content_block: block }));
          const json = jsonText(inputOf(fn.arguments));
          out.write(sseEvent('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json } }));
          out.write(sseEvent('content_block_stop', { type: 'content_block_stop', index }));
        }
      }
      if (choice.finish_reason) stop = stopReason(choice.finish_reason);
    },
  });
}

/** What a chunk without a delta object (or a call without a function object) reads as. */
const NO_DELTA: Json = Object.freeze({});
