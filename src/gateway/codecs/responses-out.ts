// The gateway core's answer (Chat Completions) as the Responses API answers (docs/gateway-responses.md):
// - a whole `chat.completion` becomes one `response` object: a `message` item with the text, then a
//   `function_call` item per call (call_id the call's id), or a `custom_tool_call` with the text of the
//   `input` parameter for a freeform tool; usage as input/output/total tokens;
// - a stream becomes the Responses events, each with its `sequence_number`: `response.created`,
//   `response.in_progress`, per item `response.output_item.added`, the text's `content_part.added` /
//   `output_text.delta` / `output_text.done` / `content_part.done`, a call's
//   `function_call_arguments.delta` / `.done` (or `custom_tool_call_input.delta` / `.done`), then
//   `response.output_item.done`, and `response.completed` with the whole response and
//   `rebound: {attempts, verdict}` (the verdict on the stream's last event);
// - an error: the OpenAI shape the gateway already answers (`{error: {message, type, param, code}}`).
import { isPlainObject, jsonText } from 'rebound-gate/internal';
import type { StreamChannel } from '../stream.ts';
import { firstChoice } from './json-object.ts';
import { freeformText } from './responses-in.ts';
import { type ChatEventHandlers, eventChannel, jsonString, sseEvent } from './sse-text.ts';
import { stringOf } from '../string-of.ts';

type Json = Record<string, unknown>;

const hex = () => crypto.randomUUID().replaceAll('-', '');

/**
 * The id of a response's output item: its kind's prefix, then 32 hex digits, the response's random part
 * (its first 28) and its place in the output (4, more past 65,535 items). One random draw a response, not
 * one an item: `crypto.randomUUID` was ~12 µs of a held call's way out, on the cold caches it runs on
 * (docs/benchmarks.md § The streaming paths at the physical limit, sixth session). The ids stay unique:
 * within a response by the index, across responses by the random part (106 random bits), as OpenAI's own
 * ids relate an item to its response (a shared part). As long as before: a text item's id is in every
 * text delta's event.
 */
function itemId(prefix: 'msg' | 'fc' | 'ctc', random: string, index: number): string {
  return `${prefix}_${random.slice(0, 28)}${index.toString(16).padStart(4, '0')}`;
}

/** The request's fields a response echoes. */
export interface ResponseEcho {
  model: string;
  /** Freeform tools by name: their calls are custom_tool_call items. */
  freeform: Set<string>;
  instructions?: string | null;
  tools?: unknown[] | null;
  tool_choice?: unknown;
  parallel_tool_calls?: boolean | null;
}

/** A token count as the usage reports it: a finite number, else 0. */
function tokens(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

function usageOf(u: unknown): Json {
  const usage = isPlainObject(u) ? u : {};
  const input = tokens(usage.prompt_tokens);
  const output = tokens(usage.completion_tokens);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

function responseShell(id: string, echo: ResponseEcho, status: string): Json {
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    error: null,
    incomplete_details: null,
    instructions: echo.instructions ?? null,
    model: echo.model,
    output: [],
    parallel_tool_calls: echo.parallel_tool_calls ?? true,
    tool_choice: echo.tool_choice ?? 'auto',
    tools: echo.tools ?? [],
    usage: null,
  };
}

/** One call as its output item: a function_call, or a custom_tool_call for a freeform tool. */
function callItem(tc: Json, echo: ResponseEcho, status: string, id: (prefix: 'fc' | 'ctc') => string): Json {
  const fn = isPlainObject(tc.function) ? tc.function : {};
  const name = stringOf(fn.name);
  const args = stringOf(fn.arguments);
  const callId = stringOf(tc.id);
  if (echo.freeform.has(name)) return { id: id('ctc'), type: 'custom_tool_call', status, call_id: callId, name, input: freeformText(args) };
  return { id: id('fc'), type: 'function_call', status, call_id: callId, name, arguments: args };
}

const messageItem = (text: string, status: string, id: string): Json => ({
  id,
  type: 'message',
  status,
  role: 'assistant',
  content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
});

/** A whole chat.completion as a `response`. */
export function completionToResponse(completion: Json, echo: ResponseEcho): Json {
  const choice = firstChoice(completion) ?? {};
  const message = isPlainObject(choice.message) ? choice.message : {};
  // The items a native upstream sent that the core does not read (reasoning, hosted tool calls), unchanged, first.
  const output: Json[] = Array.isArray(message.rebound_items) ? message.rebound_items.filter(isPlainObject) : [];
  const random = hex();
  if (typeof message.content === 'string' && message.content !== '')
    output.push(messageItem(message.content, 'completed', itemId('msg', random, output.length)));
  for (const tc of Array.isArray(message.tool_calls) ? message.tool_calls.filter(isPlainObject) : []) {
    output.push(callItem(tc, echo, 'completed', (prefix) => itemId(prefix, random, output.length)));
  }
  const length = choice.finish_reason === 'length';
  return {
    ...responseShell(`resp_${random}`, echo, length ? 'incomplete' : 'completed'),
    ...(length ? { incomplete_details: { reason: 'max_output_tokens' } } : {}),
    output,
    usage: usageOf(completion.usage),
  };
}

/**
 * A message item's text deltas: emit's text for `response.output_text.delta` (`{type, sequence_number,
 * item_id, output_index, content_index: 0, delta, logprobs: []}`) for each of `deltas[from..to)` but
 * the empty ones, one after another, numbered from `seq` on; the text around the sequence number and
 * the delta made once for the item, only the delta serialised per event (most events of a stream, a
 * run of them one string: sse-text.test.ts).
 */
export function outputTextDeltas(id: string, index: number): (seq: number, deltas: readonly string[], from: number, to: number) => string {
  const middle = `,"item_id":${JSON.stringify(id)},"output_index":${index},"content_index":0,"delta":`;
  return (seq, deltas, from, to) => {
    let out = '';
    for (let i = from; i < to; i++) {
      const delta = deltas[i]!;
      if (delta !== '') {
        out += `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":${seq++}${middle}${jsonString(delta)},"logprobs":[]}\n\n`;
      }
    }
    return out;
  };
}

/**
 * The channel the core writes its Chat Completions stream to, writing the Responses events to `out`
 * instead: the text as one message item, each call as its own item in the order they come, the
 * usage and verdict held for `response.completed`.
 */
export function responsesChannel(out: StreamChannel, echo: ResponseEcho): StreamChannel {
  return eventChannel(out, new ResponsesEvents(out, echo));
}

/** The open message item: its index, its id, the text so far and its deltas' writer. */
interface OpenText {
  index: number;
  id: string;
  text: string;
  deltas: (seq: number, deltas: readonly string[], from: number, to: number) => string;
}

/**
 * Each event of the core's stream (read from its text or handed over as it holds it) as the Responses
 * events. A class, not closures made per request: a request's stream makes one object, where a closure
 * each cost ~3 µs of each Responses request's first byte under tsx, which ran npm start until af719b1
 * and named each (docs/benchmarks.md § The streaming paths at the physical limit). The
 * events the gateway makes itself (the start, the text item's, a call's) are written as JSON text, each
 * string serialised once: what jsonText writes for the same objects (sse-text.test.ts).
 */
class ResponsesEvents implements ChatEventHandlers {
  /** The response's random part: its id's, and its items' (itemId). */
  private readonly random = hex();
  private readonly id = `resp_${this.random}`;
  /**
   * The response's JSON text around its output and around its usage (responseShell's keys in its order,
   * from `instructions` to `usage`): what the request echoes, the tools among it, serialised once for the
   * three events that carry the response.
   */
  private readonly echoHead: string;
  private readonly echoTail: string;
  private seq = 0;
  private started = false;
  private readonly output: Json[] = [];
  /** The JSON text of the items that have it written already, by their index in `output`. */
  private readonly written = new Map<number, string>();
  private text: OpenText | null = null;
  private usage: unknown = null;
  private rebound: unknown;
  private length = false;

  private readonly out: StreamChannel;
  private readonly echo: ResponseEcho;

  constructor(out: StreamChannel, echo: ResponseEcho) {
    this.out = out;
    this.echo = echo;
    this.echoHead = `,"instructions":${jsonText(echo.instructions ?? null)},"model":${jsonText(echo.model)},"output":`;
    this.echoTail = `,"parallel_tool_calls":${jsonText(echo.parallel_tool_calls ?? true)},"tool_choice":${jsonText(echo.tool_choice ?? 'auto')},"tools":${jsonText(echo.tools ?? [])},"usage":`;
  }

  /** jsonText of responseShell(id, echo, status) with this incomplete_details, output and usage, given as their JSON text. */
  private response(status: string, incomplete: string, output: string, usage: string): string {
    const createdAt = Math.floor(Date.now() / 1000);
    return `{"id":"${this.id}","object":"response","created_at":${createdAt},"status":"${status}","error":null,"incomplete_details":${incomplete}${this.echoHead}${output}${this.echoTail}${usage}}`;
  }

  private emit(type: string, fields: Json): void {
    this.out.write(sseEvent(type, { type, sequence_number: this.seq++, ...fields }));
  }

  /** emit's text for an event whose fields after the sequence number are given as JSON text (`fields`: without braces). */
  private emitText(type: EventType, fields: string): void {
    this.out.write(this.eventText(type, fields));
  }

  /** emitText's text, numbered, not written: a call's four events go out in one write. */
  private eventText(type: EventType, fields: string): string {
    return `event: ${type}\ndata: {"type":"${type}","sequence_number":${this.seq++},${fields}}\n\n`;
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    // The same response in both, its JSON written once.
    const shell = `"response":${this.response('in_progress', 'null', '[]', 'null')}`;
    this.emitText('response.created', shell);
    this.emitText('response.in_progress', shell);
  }

  /** The open message item's end: its text done, its part done, the item done, in one write. */
  private closeText(): void {
    const open = this.text;
    if (!open) return;
    const { index, id, text: whole } = open;
    this.text = null;
    // The whole text serialised once, for the three events that carry it and response.completed.
    const wholeJson = JSON.stringify(whole);
    const part = `{"type":"output_text","text":${wholeJson},"annotations":[],"logprobs":[]}`;
    const at = `"item_id":"${id}","output_index":${index},"content_index":0`;
    // messageItem(whole, 'completed', id) as JSON.
    const item = `{"id":"${id}","type":"message","status":"completed","role":"assistant","content":[${part}]}`;
    this.output[index] = messageItem(whole, 'completed', id);
    this.written.set(index, item);
    const done = this.eventText('response.output_text.done', `${at},"text":${wholeJson},"logprobs":[]`);
    const partDone = this.eventText('response.content_part.done', `${at},"part":${part}`);
    this.out.write(done + partDone + this.eventText('response.output_item.done', `"output_index":${index},"item":${item}`));
  }

  /** Text for the client, `texts[from..to)`: deltas of the open message item (added first if none is open), in one write. */
  private addTexts(texts: readonly string[], from: number, to: number): void {
    while (from < to && texts[from] === '') from++;
    if (from === to) return;
    let open = this.text;
    if (!open) {
      const index = this.output.length;
      const id = itemId('msg', this.random, index);
      open = this.text = { index, id, text: '', deltas: outputTextDeltas(id, index) };
      // The item in progress, with no content yet; its place in `output` is taken by the whole item when it closes.
      this.output.push(NO_ITEM);
      const idJson = `"${id}"`;
      this.emitText(
        'response.output_item.added',
        `"output_index":${index},"item":{"id":${idJson},"type":"message","status":"in_progress","role":"assistant","content":[]}`,
      );
      this.emitText(
        'response.content_part.added',
        `"item_id":${idJson},"output_index":${index},"content_index":0,"part":{"type":"output_text","text":"","annotations":[],"logprobs":[]}`,
      );
    }
    const run = open.deltas(this.seq, texts, from, to);
    for (let i = from; i < to; i++) {
      const content = texts[i]!;
      if (content === '') continue;
      open.text += content;
      this.seq++;
    }
    this.out.write(run);
  }

  /**
   * One call, complete and gated, as its item: added, its whole arguments (or input) in one delta, done;
   * the four events in one write (the stream joins a tick's writes, and the call is sent at once).
   */
  private addCall(tc: Json): void {
    this.closeText();
    const fn = isPlainObject(tc.function) ? tc.function : {};
    const name = stringOf(fn.name);
    const args = stringOf(fn.arguments);
    const custom = this.echo.freeform.has(name);
    const index = this.output.length;
    // callItem(tc, echo, status, id) as JSON: each string serialised once (the id is ours: hex, nothing to escape).
    const id = itemId(custom ? 'ctc' : 'fc', this.random, index);
    const body = custom ? freeformText(args) : args;
    const nameJson = jsonString(name);
    const bodyJson = jsonString(body);
    const type = custom ? 'custom_tool_call' : 'function_call';
    const field = custom ? 'input' : 'arguments';
    const head = `{"id":"${id}","type":"${type}","status":`;
    const tail = `,"call_id":${jsonString(stringOf(tc.id))},"name":${nameJson},"${field}":`;
    const item = `${head}"completed"${tail}${bodyJson}}`;
    this.output.push(NO_ITEM);
    this.written.set(index, item);
    const at = `"item_id":"${id}","output_index":${index}`;
    const added = this.eventText('response.output_item.added', `"output_index":${index},"item":${head}"in_progress"${tail}""}`);
    const whole = custom
      ? this.eventText('response.custom_tool_call_input.delta', `${at},"delta":${bodyJson}`) +
        this.eventText('response.custom_tool_call_input.done', `${at},"input":${bodyJson}`)
      : this.eventText('response.function_call_arguments.delta', `${at},"delta":${bodyJson}`) +
        this.eventText('response.function_call_arguments.done', `${at},"name":${nameJson},"arguments":${bodyJson}`);
    this.out.write(added + whole + this.eventText('response.output_item.done', `"output_index":${index},"item":${item}`));
  }

  // Text chunks like the learned one: nothing in them but their texts.
  texts(_like: Json, texts: readonly string[], from: number, to: number): void {
    this.start();
    this.addTexts(texts, from, to);
  }

  done(): void {
    this.start();
    this.closeText();
    const items = `[${this.output.map((item, i) => this.written.get(i) ?? jsonText(item)).join(',')}]`;
    const usage = jsonText(usageOf(this.usage));
    const rebound = this.rebound ? `,"rebound":${jsonText(this.rebound)}` : '';
    const response = this.length
      ? this.response('incomplete', '{"reason":"max_output_tokens"}', items, usage)
      : this.response('completed', 'null', items, usage);
    this.emitText(this.length ? 'response.incomplete' : 'response.completed', `"response":${response}${rebound}`);
  }

  chunk(chunk: Json): void {
    this.start();
    if (chunk.error !== undefined && chunk.error !== null) {
      const error = isPlainObject(chunk.error) ? chunk.error : { message: stringOf(chunk.error) };
      this.emit('error', {
        code: typeof error.code === 'string' ? error.code : 'upstream_error',
        message: stringOf(error.message, 'The upstream failed.'),
        param: null,
      });
      return;
    }
    if (chunk.usage) this.usage = chunk.usage;
    if (chunk.rebound) this.rebound = chunk.rebound;
    const choice = firstChoice(chunk);
    if (!choice) return;
    const delta = isPlainObject(choice.delta) ? choice.delta : NO_DELTA;
    if (isPlainObject(delta.rebound_item)) {
      this.closeText();
      const item = delta.rebound_item;
      const index = this.output.push(item) - 1;
      this.emit('response.output_item.added', { output_index: index, item });
      this.emit('response.output_item.done', { output_index: index, item });
    }
    if (typeof delta.content === 'string') this.addTexts([delta.content], 0, 1);
    // The core sends each call whole, once gated: one item, its arguments in one delta.
    if (Array.isArray(delta.tool_calls)) for (const tc of delta.tool_calls) if (isPlainObject(tc)) this.addCall(tc);
    if (choice.finish_reason === 'length') this.length = true;
  }
}

/** The events the codec writes as text (eventText): names with nothing JSON escapes, written into the data as they are. */
type EventType =
  | 'response.created'
  | 'response.in_progress'
  | 'response.output_item.added'
  | 'response.content_part.added'
  | 'response.output_text.done'
  | 'response.content_part.done'
  | 'response.output_item.done'
  | 'response.function_call_arguments.delta'
  | 'response.function_call_arguments.done'
  | 'response.custom_tool_call_input.delta'
  | 'response.custom_tool_call_input.done'
  | 'response.completed'
  | 'response.incomplete';

/** The place in `output` of an item whose JSON text is written (ResponsesEvents `written`): never serialised. */
const NO_ITEM: Json = Object.freeze({});

/** What a chunk without a delta object reads as. */
const NO_DELTA: Json = Object.freeze({});
