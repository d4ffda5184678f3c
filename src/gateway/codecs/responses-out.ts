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
import { eventChannel, jsonString, sseEvent } from './sse-text.ts';
import { stringOf } from '../string-of.ts';

type Json = Record<string, unknown>;

const hex = () => crypto.randomUUID().replaceAll('-', '');

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

function usageOf(u: unknown): Json {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const usage = isPlainObject(u) ? u : {};
  const input = n(usage.prompt_tokens);
  const output = n(usage.completion_tokens);
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
function callItem(tc: Json, echo: ResponseEcho, status: string): Json {
  const fn = isPlainObject(tc.function) ? tc.function : {};
  const name = stringOf(fn.name);
  const args = stringOf(fn.arguments);
  const callId = stringOf(tc.id);
  if (echo.freeform.has(name)) return { id: `ctc_${hex()}`, type: 'custom_tool_call', status, call_id: callId, name, input: freeformText(args) };
  return { id: `fc_${hex()}`, type: 'function_call', status, call_id: callId, name, arguments: args };
}

const messageItem = (text: string, status: string, id = `msg_${hex()}`): Json => ({
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
  if (typeof message.content === 'string' && message.content !== '') output.push(messageItem(message.content, 'completed'));
  for (const tc of Array.isArray(message.tool_calls) ? message.tool_calls.filter(isPlainObject) : []) output.push(callItem(tc, echo, 'completed'));
  const length = choice.finish_reason === 'length';
  return {
    ...responseShell(`resp_${hex()}`, echo, length ? 'incomplete' : 'completed'),
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
export function outputTextDeltas(itemId: string, index: number): (seq: number, deltas: readonly string[], from: number, to: number) => string {
  const middle = `,"item_id":${JSON.stringify(itemId)},"output_index":${index},"content_index":0,"delta":`;
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
 * jsonText of `response` with the JSON text of some of its keys given (`written`: the output items,
 * the request's tools echoed), so that what is written already is not serialised again: the message
 * item (the whole answer's text), the tools (in each of response.created, response.in_progress and
 * response.completed; sse-text.test.ts).
 */
export function responseJson(response: Json, written: Record<string, string>): string {
  let out = '';
  for (const key of Object.keys(response)) {
    const text = Object.hasOwn(written, key) ? written[key] : jsonText(response[key]);
    // As JSON.stringify, a key whose value has no JSON (undefined) is left out.
    if (text !== undefined) out += `${out === '' ? '' : ','}${JSON.stringify(key)}:${text}`;
  }
  return `{${out}}`;
}

/**
 * The channel the core writes its Chat Completions stream to, writing the Responses events to `out`
 * instead: the text as one message item, each call as its own item in the order they come, the
 * usage and verdict held for `response.completed`.
 */
export function responsesChannel(out: StreamChannel, echo: ResponseEcho): StreamChannel {
  const id = `resp_${hex()}`;
  /** The request's tools, echoed in the response of three events: serialised once. */
  const tools = jsonText(echo.tools ?? []);
  let seq = 0;
  let started = false;
  const output: Json[] = [];
  /** The JSON text of the items that have it written already, by their index in `output`. */
  const written = new Map<number, string>();
  /** The open message item: its index, its id, the text so far and its deltas' writer. */
  let text: { index: number; id: string; text: string; deltas: (seq: number, deltas: readonly string[], from: number, to: number) => string } | null = null;
  let usage: unknown = null;
  let rebound: unknown;
  let length = false;
  const emit = (type: string, fields: Json) => out.write(sseEvent(type, { type, sequence_number: seq++, ...fields }));
  /** emit's text for an event whose fields after the sequence number are given as JSON text (`fields`: without braces). */
  const emitText = (type: string, fields: string) =>
    out.write(`event: ${type}\ndata: {"type":${JSON.stringify(type)},"sequence_number":${seq++},${fields}}\n\n`);
  const start = () => {
    if (started) return;
    started = true;
    // The same response in both, its JSON written once.
    const shell = `"response":${responseJson(responseShell(id, echo, 'in_progress'), { tools })}`;
    emitText('response.created', shell);
    emitText('response.in_progress', shell);
  };
  const closeText = () => {
    if (!text) return;
    const { index, id: itemId, text: whole } = text;
    text = null;
    // The whole text serialised once, for the three events that carry it and response.completed.
    const wholeJson = JSON.stringify(whole);
    const part = `{"type":"output_text","text":${wholeJson},"annotations":[],"logprobs":[]}`;
    const at = `"item_id":${JSON.stringify(itemId)},"output_index":${index},"content_index":0`;
    emitText('response.output_text.done', `${at},"text":${wholeJson},"logprobs":[]`);
    emitText('response.content_part.done', `${at},"part":${part}`);
    // messageItem(whole, 'completed', itemId) as JSON.
    const item = `{"id":${JSON.stringify(itemId)},"type":"message","status":"completed","role":"assistant","content":[${part}]}`;
    output[index] = messageItem(whole, 'completed', itemId);
    written.set(index, item);
    emitText('response.output_item.done', `"output_index":${index},"item":${item}`);
  };
  /** Text for the client, `texts[from..to)`: deltas of the open message item (added first if none is open), in one write. */
  const addTexts = (texts: readonly string[], from: number, to: number) => {
    while (from < to && texts[from] === '') from++;
    if (from === to) return;
    if (!text) {
      const index = output.length;
      const itemId = `msg_${hex()}`;
      text = { index, id: itemId, text: '', deltas: outputTextDeltas(itemId, index) };
      const item = { ...messageItem('', 'in_progress', itemId), content: [] };
      output.push(item);
      emit('response.output_item.added', { output_index: index, item });
      emit('response.content_part.added', {
        item_id: itemId,
        output_index: index,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      });
    }
    const run = text.deltas(seq, texts, from, to);
    for (let i = from; i < to; i++) {
      const content = texts[i]!;
      if (content === '') continue;
      text.text += content;
      seq++;
    }
    out.write(run);
  };
  // Each event of the core's stream, read from its text or handed over as it holds it.
  return eventChannel(out, {
    // Text chunks like the learned one: nothing in them but their texts.
    texts(_like, texts, from, to) {
      start();
      addTexts(texts, from, to);
    },
    done() {
      start();
      closeText();
      const response = responseShell(id, echo, length ? 'incomplete' : 'completed');
      if (length) response.incomplete_details = { reason: 'max_output_tokens' };
      response.usage = usageOf(usage);
      const items = `[${output.map((item, i) => written.get(i) ?? jsonText(item)).join(',')}]`;
      const type = length ? 'response.incomplete' : 'response.completed';
      emitText(type, `"response":${responseJson(response, { output: items, tools })}${rebound ? `,"rebound":${jsonText(rebound)}` : ''}`);
    },
    chunk(chunk) {
      start();
      if (chunk.error !== undefined && chunk.error !== null) {
        const error = isPlainObject(chunk.error) ? chunk.error : { message: stringOf(chunk.error) };
        emit('error', {
          code: typeof error.code === 'string' ? error.code : 'upstream_error',
          message: stringOf(error.message, 'The upstream failed.'),
          param: null,
        });
        return;
      }
      if (chunk.usage) usage = chunk.usage;
      if (chunk.rebound) rebound = chunk.rebound;
      const choice = firstChoice(chunk);
      if (!choice) return;
      const delta = isPlainObject(choice.delta) ? choice.delta : NO_DELTA;
      if (isPlainObject(delta.rebound_item)) {
        closeText();
        const item = delta.rebound_item;
        const index = output.push(item) - 1;
        emit('response.output_item.added', { output_index: index, item });
        emit('response.output_item.done', { output_index: index, item });
      }
      if (typeof delta.content === 'string') addTexts([delta.content], 0, 1);
      // The core sends each call whole, once gated: one item, its arguments in one delta.
      if (Array.isArray(delta.tool_calls)) {
        for (const tc of delta.tool_calls) {
          if (!isPlainObject(tc)) continue;
          closeText();
          const done = callItem(tc, echo, 'completed');
          const index = output.length;
          const custom = done.type === 'custom_tool_call';
          const body = custom ? stringOf(done.input) : stringOf(done.arguments);
          output.push(done);
          emit('response.output_item.added', {
            output_index: index,
            item: { ...done, status: 'in_progress', ...(custom ? { input: '' } : { arguments: '' }) },
          });
          if (custom) {
            emit('response.custom_tool_call_input.delta', { item_id: done.id, output_index: index, delta: body });
            emit('response.custom_tool_call_input.done', { item_id: done.id, output_index: index, input: body });
          } else {
            emit('response.function_call_arguments.delta', { item_id: done.id, output_index: index, delta: body });
            emit('response.function_call_arguments.done', { item_id: done.id, output_index: index, name: done.name, arguments: body });
          }
          emit('response.output_item.done', { output_index: index, item: done });
        }
      }
      if (choice.finish_reason === 'length') length = true;
    },
  });
}

/** What a chunk without a delta object reads as. */
const NO_DELTA: Json = Object.freeze({});
