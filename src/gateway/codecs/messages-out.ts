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
import { type ChatEventHandlers, eventChannel, jsonString, sseEvent } from './sse-text.ts';
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
  const usage = isPlainObject(u) ? u : {};
  return { input_tokens: finite(usage.prompt_tokens), output_tokens: finite(usage.completion_tokens) };
}

/** A finite number as it is, anything else as 0. */
const finite = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The message's id: the chat id's (past its `chatcmpl-`), or a random one. */
function messageId(chatId: unknown): string {
  if (typeof chatId !== 'string' || !chatId) return `msg_${crypto.randomUUID().replaceAll('-', '')}`;
  return `msg_${chatId.startsWith('chatcmpl-') ? chatId.slice(9) : chatId}`;
}

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
  return eventChannel(out, new MessagesEvents(out, model));
}

/**
 * Each event of the core's stream, read from its text or handed over as it holds it, as Anthropic's. A
 * class, not closures made per request, and the events
 * the gateway makes itself (the message's start, a block's start and stop, a call's events, the end)
 * written as JSON text with each string serialised once: what sseEvent writes for the same objects
 * (messages-out.test.ts; docs/benchmarks.md § The streaming paths at the physical limit).
 */
class MessagesEvents implements ChatEventHandlers {
  private started = false;
  /** The open text block: its index and its deltas' writer. */
  private open: { index: number; deltas: (texts: readonly string[], from: number, to: number) => string } | null = null;
  private blocks = 0;
  private stop = 'end_turn';
  private usage = { input_tokens: 0, output_tokens: 0 };
  private rebound: unknown;

  private readonly out: StreamChannel;
  private readonly model: string;
  constructor(out: StreamChannel, model: string) {
    this.out = out;
    this.model = model;
  }

  done(): void {
    this.start({});
    this.close();
    const rebound = this.rebound ? `,"rebound":${jsonText(this.rebound)}` : '';
    this.out.write(
      `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":${jsonString(this.stop)},"stop_sequence":null},"usage":${usageJson(this.usage)}${rebound}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`,
    );
  }

  /** Text chunks like the learned one: nothing in them but their texts (the message started by it if none was). */
  texts(like: Json, texts: readonly string[], from: number, to: number): void {
    this.start(like);
    this.writeTexts(texts, from, to);
  }

  chunk(chunk: Json): void {
    if (chunk.error !== undefined && chunk.error !== null) {
      // The upstream reported an error mid-stream: Anthropic's error event, and the stream ends there.
      const error = isPlainObject(chunk.error) ? chunk.error : { message: stringOf(chunk.error) };
      this.out.write(sseEvent('error', anthropicError(500, { error })));
      return;
    }
    this.start(chunk);
    if (chunk.usage) this.usage = usageOf(chunk.usage);
    if (chunk.rebound) this.rebound = chunk.rebound;
    const choice = firstChoice(chunk);
    if (!choice) return;
    const delta = isPlainObject(choice.delta) ? choice.delta : NO_DELTA;
    if (isPlainObject(delta.rebound_block)) {
      this.close();
      writeBlock(this.out, this.blocks++, delta.rebound_block);
    }
    if (typeof delta.content === 'string') this.writeTexts([delta.content], 0, 1);
    // The core sends each call whole, once gated: one block, its arguments in one delta, its events in one write.
    if (Array.isArray(delta.tool_calls)) {
      for (const tc of delta.tool_calls) {
        if (!isPlainObject(tc)) continue;
        this.close();
        const fn = isPlainObject(tc.function) ? tc.function : NO_DELTA;
        const index = this.blocks++;
        const block = `{"type":"tool_use","id":${jsonString(stringOf(tc.id))},"name":${jsonString(stringOf(fn.name))},"input":{}}`;
        const json = JSON.stringify(jsonText(inputOf(fn.arguments)));
        this.out.write(
          `event: content_block_start\ndata: {"type":"content_block_start","index":${index},"content_block":${block}}\n\n` +
            `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"input_json_delta","partial_json":${json}}}\n\n` +
            blockStop(index),
        );
      }
    }
    if (choice.finish_reason) this.stop = stopReason(choice.finish_reason);
  }

  /** message_start, once, before anything else: its id the first chunk's (the usage is the message_delta's to carry). */
  private start(chunk: Json): void {
    if (this.started) return;
    this.started = true;
    const message = `{"id":${jsonString(messageId(chunk.id))},"type":"message","role":"assistant","model":${jsonString(this.model)},"content":[],"stop_reason":null,"stop_sequence":null,"usage":${usageJson(this.usage)}}`;
    this.out.write(`event: message_start\ndata: {"type":"message_start","message":${message}}\n\n`);
  }

  private close(): void {
    if (!this.open) return;
    this.out.write(blockStop(this.open.index));
    this.open = null;
  }

  /** Text for the client, `texts[from..to)`: deltas of the open text block (opened first if none is), in one write. */
  private writeTexts(texts: readonly string[], from: number, to: number): void {
    while (from < to && texts[from] === '') from++;
    if (from === to) return;
    if (!this.open) {
      const index = this.blocks++;
      this.open = { index, deltas: textDeltas(index) };
      this.out.write(`event: content_block_start\ndata: {"type":"content_block_start","index":${index},"content_block":{"type":"text","text":""}}\n\n`);
    }
    this.out.write(this.open.deltas(texts, from, to));
  }
}

/** sseEvent's text for `{type: 'content_block_stop', index}`. */
function blockStop(index: number): string {
  return `event: content_block_stop\ndata: {"type":"content_block_stop","index":${index}}\n\n`;
}

/** jsonText of a usage usageOf made (finite numbers: their JSON is their string). */
function usageJson(usage: { input_tokens: number; output_tokens: number }): string {
  return `{"input_tokens":${usage.input_tokens},"output_tokens":${usage.output_tokens}}`;
}

/** What a chunk without a delta object (or a call without a function object) reads as. */
const NO_DELTA: Json = Object.freeze({});
