// RESPONSES_UPSTREAM=responses: POST /v1/responses forwarded to OPENAI_BASE_URL/responses as the client
// sent it (previous_response_id, reasoning, hosted tools and all, with the model mapped), with the
// gateway's upstream key. The core reads the answer as Chat Completions: output_text as content,
// function_call items as tool_calls (call_id as the id, argument deltas as they come), a custom_tool_call
// as a call whose one string parameter `input` holds its text (responses-in.ts), the status as
// finish_reason, usage as prompt/completion tokens; every other item (reasoning, web_search_call, …)
// rides through whole as `rebound_item`, which responses-out.ts writes back unchanged. A re-ask is the
// client's body with the core's retry messages after its input, as items (the blocked calls, then a
// function_call_output / custom_tool_call_output with the gate's message for each).
import { isPlainObject } from 'rebound-gate/internal';
import type { ChatEndpoint } from '../../model/chat-post.ts';
import type { SseMessage } from '../../model/sse-decode.ts';
import { CallEnd } from '../held-stream.ts';
import type { UpstreamResult } from '../upstream.ts';
import { callNative, type ChunkIdentity, chatChunk, type NativeTranslation, textChunk } from './native-stream.ts';
import { INTEGER, STRING } from './event-shape.ts';
import { textShape } from './native-lane.ts';
import { jsonObject } from './json-object.ts';
import { FREEFORM_PARAM, freeformText } from './responses-in.ts';
import { stringOf } from '../string-of.ts';

type Json = Record<string, unknown>;

/**
 * The core's upstream call for one Responses request: `original` is the client's body, `asked` how many
 * messages the core's first chat body had, `freeform` the request's custom tools by name.
 */
export function responsesCall(endpoint: ChatEndpoint, original: Json, asked: number, freeform: Set<string>) {
  return (chat: Json, request: { signal: AbortSignal; headers?: Record<string, string> }): Promise<UpstreamResult> => {
    const added = (Array.isArray(chat.messages) ? chat.messages : []).slice(asked).filter(isPlainObject);
    const input = typeof original.input === 'string' ? [{ type: 'message', role: 'user', content: original.input }] : (original.input as unknown[]);
    const body = added.length ? { ...original, model: chat.model, input: [...input, ...toItems(added, freeform)] } : { ...original, model: chat.model };
    return callNative(endpoint, '/responses', body, request, responsesTranslation);
  };
}

/** The core's retry messages as input items. */
function toItems(messages: Json[], freeform: Set<string>): Json[] {
  const names = new Map<string, string>();
  return messages.flatMap((m): Json[] => {
    if (m.role === 'assistant') {
      const text = typeof m.content === 'string' && m.content.trim() !== '' ? [{ type: 'message', role: 'assistant', content: m.content }] : [];
      const calls = (Array.isArray(m.tool_calls) ? m.tool_calls.filter(isPlainObject) : []).map((tc): Json => {
        const fn = isPlainObject(tc.function) ? tc.function : {};
        const name = stringOf(fn.name);
        names.set(stringOf(tc.id), name);
        if (freeform.has(name)) return { type: 'custom_tool_call', call_id: stringOf(tc.id), name, input: freeformText(fn.arguments) };
        return { type: 'function_call', call_id: stringOf(tc.id), name, arguments: stringOf(fn.arguments) };
      });
      return [...text, ...calls];
    }
    if (m.role === 'tool') {
      const callId = stringOf(m.tool_call_id);
      const type = freeform.has(names.get(callId) ?? '') ? 'custom_tool_call_output' : 'function_call_output';
      return [{ type, call_id: callId, output: stringOf(m.content) }];
    }
    return [];
  });
}

/** A token count as the usage reports it: a finite number, else 0. */
function tokens(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

function usageOf(u: unknown): Json {
  const usage = isPlainObject(u) ? u : {};
  const input = tokens(usage.input_tokens);
  const output = tokens(usage.output_tokens);
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
}

/** A call item as the core's tool call (a custom one through its `input` parameter). */
function toolCallOf(item: Json): Json {
  const args = item.type === 'custom_tool_call' ? JSON.stringify({ [FREEFORM_PARAM]: stringOf(item.input) }) : stringOf(item.arguments);
  return { id: stringOf(item.call_id), type: 'function', function: { name: stringOf(item.name), arguments: args } };
}

const isCallItem = (item: Json) => item.type === 'function_call' || item.type === 'custom_tool_call';

/**
 * A text delta as the Responses API streams it (sequence number, item id, output and content index, the
 * text), and with OpenAI's obfuscation padding after it: the sequence number and the padding differ from
 * event to event, the item and indexes are fixed in a run of them. Two key orders: the one the API wrote
 * until late 2025 (and that compatible servers still write), and the API's since (captured from gpt-5.2
 * in January 2026): `type` first, the other keys sorted, so `sequence_number` last. Reading only the first,
 * the gateway parsed each of today's deltas in full: 2.4× the bare proxy's CPU per token on today's
 * stream (docs/benchmarks.md § The streaming paths at the physical limit, eighth session).
 */
const TEXT_DELTA_FIELDS = [
  '{"type":"response.output_text.delta","sequence_number":',
  INTEGER,
  ',"item_id":',
  STRING,
  ',"output_index":',
  INTEGER,
  ',"content_index":',
  INTEGER,
  ',"delta":',
  STRING,
  ',"logprobs":[]',
] as const;
const SORTED_TEXT_DELTA_HEAD = [
  '{"type":"response.output_text.delta","content_index":',
  INTEGER,
  ',"delta":',
  STRING,
  ',"item_id":',
  STRING,
  ',"logprobs":[]',
] as const;
const SORTED_TEXT_DELTA_TAIL = [',"output_index":', INTEGER, ',"sequence_number":', INTEGER, '}'] as const;
const TEXT_DELTAS = [
  textShape({ pieces: [...TEXT_DELTA_FIELDS, '}'], text: 4, free: [0] }),
  textShape({ pieces: [...TEXT_DELTA_FIELDS, ',"obfuscation":', STRING, '}'], text: 4, free: [0, 5] }),
  textShape({ pieces: [...SORTED_TEXT_DELTA_HEAD, ...SORTED_TEXT_DELTA_TAIL], text: 1, free: [4] }),
  textShape({ pieces: [...SORTED_TEXT_DELTA_HEAD, ',"obfuscation":', STRING, ...SORTED_TEXT_DELTA_TAIL], text: 1, free: [3, 5] }),
];

/** The event types the translation reads (`event`'s cases); every other makes no chunk. */
const READ_TYPES = new Set([
  'response.created',
  'response.output_item.added',
  'response.output_text.delta',
  'response.function_call_arguments.delta',
  'response.custom_tool_call_input.delta',
  'response.output_item.done',
  'response.completed',
  'response.incomplete',
  'response.failed',
  'error',
]);
const TYPE_HEAD = '{"type":"';

/**
 * Whether an event's data certainly makes no chunk without parsing it: an object whose first key is
 * its one "type", of a type the translation does not read (`function_call_arguments.done`, which holds
 * the whole arguments again, `output_text.done`, the whole text), or not JSON at all, which makes none
 * either. Certain because inside a JSON string every quote is escaped: an unescaped `"type"` anywhere
 * after the first is a key (or a value) and the data is parsed, as an event holding typed objects is
 * (`content_part.done`'s part, `in_progress`'s tools); a key spelled with an escape needs `\u`, and
 * then too. docs/benchmarks.md § The streaming paths at the physical limit.
 */
function unread(data: string): boolean {
  if (!data.startsWith(TYPE_HEAD)) return false;
  const end = data.indexOf('"', TYPE_HEAD.length);
  if (end === -1) return false;
  const type = data.slice(TYPE_HEAD.length, end);
  return !type.includes('\\') && !READ_TYPES.has(type) && data.indexOf('"type"', end) === -1 && !data.includes('\\u');
}

/**
 * The head of a `response.output_item.done` as the API wrote it until late 2025, up to its item: the
 * output_index (group 1). Its keys in the API's order, no whitespace, integers as JSON writes them.
 */
const ITEM_DONE_HEAD = /^\{"type":"response\.output_item\.done","sequence_number":(?:0|[1-9]\d{0,14}),"output_index":(0|[1-9]\d{0,14}),"item":\{/;
/** The head of one as the API writes it since (`type`, then the keys sorted): the item first, its index after it. */
const SORTED_ITEM_DONE_HEAD = '{"type":"response.output_item.done","item":{';
/** … and its end: the item's, the output_index (group 1), the sequence number, the event's (sticky, at the last `},"output_index":`). */
const SORTED_ITEM_DONE_TAIL = /\},"output_index":(0|[1-9]\d{0,14}),"sequence_number":(?:0|[1-9]\d{0,14})\}$/y;

/**
 * The output_index of a `response.output_item.done` read by its head or its tail alone (-1: not one, or
 * not certain): the end of a function_call item, which is all the translation reads of it (the call's
 * arguments came as deltas), goes to HeldStream without parsing the item, which repeats the whole
 * arguments (tens of KB for a file an agent writes) on the held call's way out (~14 µs for the bench's
 * 60-character call on cold caches: docs/benchmarks.md § The streaming paths at the physical limit, sixth
 * session). Certain that the index is the event's:
 * - in the older order, no other `"output_index"` follows the head (inside a JSON string every quote is
 *   escaped, so one would be a key) and no `\u` escape could spell one;
 * - in today's, it is the event's last key but `sequence_number`, at the event's end: a key of the event
 *   itself (the last `}` closes it), and the last of its name, the one JSON.parse keeps.
 * What neither settles is read as the head says: an event that repeats its own `type` key after it (no
 * API does) ends the call all the same, as the item's done would.
 */
function itemDoneIndex(data: string): number {
  if (data.startsWith(SORTED_ITEM_DONE_HEAD)) {
    const at = data.lastIndexOf('},"output_index":');
    if (at === -1) return -1;
    SORTED_ITEM_DONE_TAIL.lastIndex = at;
    const tail = SORTED_ITEM_DONE_TAIL.exec(data);
    return tail ? Number(tail[1]) : -1;
  }
  const head = ITEM_DONE_HEAD.exec(data);
  if (!head || data.indexOf('"output_index"', head[0].length) !== -1 || data.includes('\\u')) return -1;
  return Number(head[1]);
}

/** The finish_reason of a response that made `calls` calls. */
function finishOf(response: Json, calls: number): string {
  return response.status === 'incomplete' ? 'length' : calls > 0 ? 'tool_calls' : 'stop';
}

/**
 * The Responses answer, whole or streamed, as the core reads Chat Completions. Its functions are the
 * object's methods, not closures each request makes (docs/benchmarks.md § The streaming paths at the
 * physical limit).
 */
function responsesTranslation(): NativeTranslation {
  const who: ChunkIdentity = { id: '', created: Math.floor(Date.now() / 1000), model: '' };
  let calls = 0;
  /** The call items by output_index: their index among the calls, and a custom call's input so far. */
  const open = new Map<number, { call: number; custom: boolean; input: string }>();
  return {
    whole(json) {
      if (json.object !== 'response' || !Array.isArray(json.output)) return null;
      const output = json.output.filter(isPlainObject);
      const text = output
        .filter((i) => i.type === 'message')
        .flatMap((i) => (Array.isArray(i.content) ? i.content.filter(isPlainObject) : []))
        .flatMap((p) => (p.type === 'output_text' && typeof p.text === 'string' ? [p.text] : []))
        .join('');
      const toolCalls = output.filter(isCallItem).map(toolCallOf);
      const other = output.filter((i) => i.type !== 'message' && !isCallItem(i));
      const message: Json = {
        role: 'assistant',
        content: text === '' ? null : text,
        ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        ...(other.length ? { rebound_items: other } : {}),
      };
      calls = toolCalls.length;
      return {
        id: stringOf(json.id),
        object: 'chat.completion',
        created: Number(json.created_at ?? Math.floor(Date.now() / 1000)),
        model: stringOf(json.model),
        choices: [{ index: 0, message, finish_reason: finishOf(json, calls), logprobs: null }],
        usage: usageOf(json.usage),
      };
    },
    textEvents: TEXT_DELTAS,
    // A text delta, read without JSON.parse when it comes as the API writes it.
    text(_holes, text) {
      return textChunk(who, text);
    },
    event(message: SseMessage) {
      // A function_call item's end, read by its head (itemDoneIndex): the call is complete, it goes out now.
      const done = open.get(itemDoneIndex(message.data));
      if (done && !done.custom) return [new CallEnd(done.call)];
      if (unread(message.data)) return [];
      const e = jsonObject(message.data);
      if (!e) return [];
      const item = isPlainObject(e.item) ? e.item : {};
      const index = Number(e.output_index);
      switch (e.type) {
        case 'response.created': {
          const r = isPlainObject(e.response) ? e.response : {};
          who.id = stringOf(r.id);
          who.model = stringOf(r.model);
          return [chatChunk(who, { role: 'assistant', content: '' })];
        }
        case 'response.output_item.added': {
          if (!isCallItem(item)) return [];
          const call = calls++;
          const custom = item.type === 'custom_tool_call';
          open.set(index, { call, custom, input: '' });
          const start = { index: call, id: stringOf(item.call_id), type: 'function', function: { name: stringOf(item.name), arguments: '' } };
          const args = !custom && typeof item.arguments === 'string' ? item.arguments : '';
          return [chatChunk(who, { tool_calls: [{ ...start, function: { ...start.function, arguments: args } }] })];
        }
        case 'response.output_text.delta':
          return [chatChunk(who, { content: stringOf(e.delta) })];
        case 'response.function_call_arguments.delta': {
          const c = open.get(index);
          return c ? [chatChunk(who, { tool_calls: [{ index: c.call, function: { arguments: stringOf(e.delta) } }] })] : [];
        }
        case 'response.custom_tool_call_input.delta': {
          const c = open.get(index);
          if (c) c.input += stringOf(e.delta);
          return [];
        }
        case 'response.output_item.done': {
          // A call item's end: the call is complete (no delta follows), it goes out now, not at response.completed.
          const c = open.get(index);
          if (c?.custom) {
            const input = typeof item.input === 'string' ? item.input : c.input;
            return [
              chatChunk(who, { tool_calls: [{ index: c.call, function: { arguments: JSON.stringify({ [FREEFORM_PARAM]: input }) } }] }),
              new CallEnd(c.call),
            ];
          }
          if (c) return [new CallEnd(c.call)];
          if (item.type === 'message') return [];
          return [chatChunk(who, { rebound_item: item })];
        }
        case 'response.completed':
        case 'response.incomplete': {
          const r = isPlainObject(e.response) ? e.response : {};
          return [chatChunk(who, {}, finishOf(r, calls), usageOf(r.usage)), null];
        }
        case 'response.failed': {
          const r = isPlainObject(e.response) ? e.response : {};
          return [{ error: isPlainObject(r.error) ? r.error : { message: 'The upstream failed the response.' } }];
        }
        case 'error':
          return [{ error: { message: stringOf(e.message, 'The upstream failed.'), code: e.code ?? null } }];
        default:
          return [];
      }
    },
  };
}
