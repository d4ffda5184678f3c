// POST /v1/responses read as the gateway core reads a request: the Responses body checked (model,
// input, tools, tool_choice) and translated into the Chat Completions body the core gates against and
// the chat upstream is sent (RESPONSES_UPSTREAM=chat): `instructions` as the system message, message
// items as messages (developer as system), `function_call` items as the assistant's tool_calls (their
// call_id as the id), `function_call_output` as tool messages; function tools as function tools; a
// custom (freeform) tool, such as Codex's apply_patch, as a function with one string parameter `input`
// (its call goes back out as a `custom_tool_call` with that input, the text its grammar describes).
// Left out, since a chat upstream can neither run nor read them: hosted tools (web_search, file_search,
// …) and reasoning items. Stored state (previous_response_id, conversation) is a 400 here: only a native
// upstream has it. docs/gateway-responses.md.
import * as z from 'zod';
import { isPlainObject } from 'rebound-gate/internal';
import { GatewayError } from '../errors.ts';
import { every, nullishOr, plain } from '../request.ts';
import { jsonObject } from './json-object.ts';
import { stringOf } from '../string-of.ts';

/** The most members the gateway reads of these arrays (as GATEWAY_COUNTS for Chat Completions). */
export const RESPONSES_COUNTS = { input: 10_000, tools: 1_000, 'input.*.content': 1_000 } as const;

const Item = z.looseObject({ type: z.string().nullish() });
const Tool = z.looseObject({ type: z.string({ error: 'every tool needs a type ("function", "custom", …)' }), name: z.string().nullish() });

export const ResponsesBody = z.looseObject({
  model: z.string({ error: 'model is required: the name of the model to ask' }).min(1, 'model must not be empty'),
  input: z.union([z.string(), z.array(Item)], { error: 'input is required: a string, or an array of input items' }),
  instructions: z.string().nullish(),
  tools: z.array(Tool, { error: 'tools must be an array of {"type": "function", name, parameters}' }).nullish(),
  tool_choice: z.unknown().optional(),
  stream: z.boolean({ error: 'stream must be true or false' }).nullish(),
  previous_response_id: z.string().nullish(),
  conversation: z.unknown().optional(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  parallel_tool_calls: z.boolean().nullish(),
});
export type ResponsesBody = z.infer<typeof ResponsesBody>;

type Json = Record<string, unknown>;

/**
 * Whether a parsed body certainly passes ResponsesBody, so that it is used as it is (src/http/body.ts
 * `fits`, as fitsChatBody and fitsMessagesBody): zod's parse copies every object it checks (the body,
 * each input item, each tool), a cost that grows with the conversation (docs/benchmarks.md § The
 * streaming paths at the physical limit). What this passes, zod passes with the same data; a tool's keys must come in the order zod
 * writes them (`type`, then `name`), since the stream echoes the tools as they are: the stream is byte
 * for byte what it was. The body's own keys and its items' keep the client's order (forwarded so to a
 * native upstream). What it is not sure of (a wrong type anywhere, a `__proto__` key, which zod drops)
 * goes to zod, whose errors the client gets (responses-in.test.ts).
 */
export function fitsResponsesBody(body: Json): body is ResponsesBody & Json {
  return (
    plain(body) &&
    typeof body.model === 'string' &&
    body.model.length > 0 &&
    (typeof body.input === 'string' || (Array.isArray(body.input) && every(body.input, fitsItem))) &&
    nullishOr(body.instructions, isString) &&
    nullishOr(body.tools, (v) => Array.isArray(v) && every(v, fitsTool)) &&
    nullishOr(body.stream, isBoolean) &&
    nullishOr(body.previous_response_id, isString) &&
    nullishOr(body.max_output_tokens, (v) => Number.isSafeInteger(v) && (v as number) > 0) &&
    nullishOr(body.temperature, Number.isFinite) &&
    nullishOr(body.top_p, Number.isFinite) &&
    nullishOr(body.parallel_tool_calls, isBoolean)
  );
}

function isString(v: unknown): boolean {
  return typeof v === 'string';
}

function isBoolean(v: unknown): boolean {
  return typeof v === 'boolean';
}

function fitsItem(v: unknown): boolean {
  return plain(v) && nullishOr(v.type, isString);
}

/** A tool as zod writes it: `type` its first key, `name` (if any) its second. */
function fitsTool(v: unknown): boolean {
  if (!plain(v) || typeof v.type !== 'string' || !nullishOr(v.name, isString)) return false;
  const keys = Object.keys(v);
  return keys[0] === 'type' && (!Object.hasOwn(v, 'name') || keys[1] === 'name');
}

/** The one parameter a freeform tool's text travels in through a chat upstream. */
export const FREEFORM_PARAM = 'input';

/** The freeform text of a call made through its one string parameter (the arguments as written when they are not that). */
export function freeformText(args: unknown): string {
  const v = jsonObject(args);
  return v && typeof v[FREEFORM_PARAM] === 'string' ? v[FREEFORM_PARAM] : stringOf(args);
}

/** The request's freeform (custom) tools by name: their calls go back out as custom_tool_call items. */
export function freeformTools(body: ResponsesBody): Set<string> {
  return new Set((body.tools ?? []).flatMap((t) => (t.type === 'custom' && typeof t.name === 'string' ? [t.name] : [])));
}

/**
 * The Chat Completions body for the core and a chat upstream; throws a 400 for stored state and for
 * items a chat upstream cannot hold. `native`: the upstream is sent the client's own body
 * (RESPONSES_UPSTREAM=responses), this one only names the tools to gate: nothing is refused.
 */
export function responsesToChat(body: ResponsesBody, { native = false } = {}): Json {
  if ((!native && body.previous_response_id) || (body.conversation !== undefined && body.conversation !== null)) {
    const param = body.previous_response_id ? 'previous_response_id' : 'conversation';
    throw new GatewayError(
      400,
      'unsupported_parameter',
      `${param} continues a conversation the upstream stores, and this gateway translates to a Chat Completions upstream, which stores none (RESPONSES_UPSTREAM=chat). Send the whole conversation in "input" (with "store": false), or run the gateway with RESPONSES_UPSTREAM=responses against an upstream that serves /responses.`,
      param,
    );
  }
  const messages: Json[] = [];
  if (body.instructions) messages.push({ role: 'system', content: body.instructions });
  const items = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : body.input;
  for (const [i, item] of items.entries()) {
    try {
      addItem(messages, item, `input[${i}]`);
    } catch (err) {
      if (!native) throw err;
    }
  }
  const tools = (body.tools ?? []).flatMap((t, i): Json[] => {
    if (t.type === 'function') {
      if (!t.name) throw new GatewayError(400, 'invalid_request', `tools[${i}] is a function tool without a name.`, `tools[${i}].name`);
      return [
        {
          type: 'function',
          function: {
            name: t.name,
            ...(typeof t.description === 'string' ? { description: t.description } : {}),
            parameters: isPlainObject(t.parameters) ? t.parameters : { type: 'object', properties: {} },
          },
        },
      ];
    }
    if (t.type === 'custom' && t.name) {
      const description = [typeof t.description === 'string' ? t.description : '', freeformHint(t.format)].filter(Boolean).join('\n\n');
      const parameters = {
        type: 'object',
        properties: { [FREEFORM_PARAM]: { type: 'string', description: "The tool's whole input, as its format describes." } },
        required: [FREEFORM_PARAM],
        additionalProperties: false,
      };
      return [{ type: 'function', function: { name: t.name, description, parameters } }];
    }
    // Hosted tools (web_search, file_search, code_interpreter, …), namespaces: a chat upstream runs none.
    return [];
  });
  const chat: Json = { model: body.model, messages };
  if (tools.length) {
    chat.tools = tools;
    const choice = chatToolChoice(body.tool_choice);
    if (choice !== undefined) chat.tool_choice = choice;
    if (typeof body.parallel_tool_calls === 'boolean') chat.parallel_tool_calls = body.parallel_tool_calls;
  }
  if (body.stream) chat.stream = true;
  const format = responseFormat(body.text);
  if (format) chat.response_format = format;
  if (body.max_output_tokens) chat.max_tokens = body.max_output_tokens;
  if (typeof body.temperature === 'number') chat.temperature = body.temperature;
  if (typeof body.top_p === 'number') chat.top_p = body.top_p;
  return chat;
}

/** Structured output (`text.format`) as Chat Completions' response_format: a JSON schema, or any JSON object. */
function responseFormat(text: unknown): Json | undefined {
  const format = isPlainObject(text) && isPlainObject(text.format) ? text.format : undefined;
  if (format?.type === 'json_object') return { type: 'json_object' };
  if (format?.type !== 'json_schema') return undefined;
  const { type: _type, ...schema } = format;
  return { type: 'json_schema', json_schema: schema };
}

/** What a chat model is told of a freeform tool's grammar (the upstream cannot constrain it). */
function freeformHint(format: unknown): string {
  if (!isPlainObject(format) || format.type !== 'grammar' || typeof format.definition !== 'string') return '';
  return `Its input follows this ${stringOf(format.syntax)} grammar:\n${format.definition}`;
}

function chatToolChoice(choice: unknown): unknown {
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  if (isPlainObject(choice) && (choice.type === 'function' || choice.type === 'custom') && typeof choice.name === 'string') {
    return { type: 'function', function: { name: choice.name } };
  }
  return undefined;
}

/** One input item onto the chat conversation: consecutive calls join the assistant message before them. */
function addItem(messages: Json[], item: Json, where: string): void {
  const type = item.type ?? 'message';
  switch (type) {
    case 'message': {
      const role = item.role === 'developer' ? 'system' : stringOf(item.role, 'user');
      const parts = contentParts(item.content, where);
      if (role === 'assistant') {
        const text = parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
        messages.push({ role: 'assistant', content: text === '' ? null : text });
      } else messages.push({ role, content: parts.every((p) => p.type === 'text') ? parts.map((p) => (p.type === 'text' ? p.text : '')).join('') : parts });
      return;
    }
    case 'function_call':
    case 'custom_tool_call': {
      const args = type === 'function_call' ? stringOf(item.arguments) : JSON.stringify({ [FREEFORM_PARAM]: stringOf(item.input) });
      const assistant = lastAssistant(messages);
      const calls = Array.isArray(assistant.tool_calls) ? assistant.tool_calls : [];
      assistant.tool_calls = [...calls, { id: stringOf(item.call_id), type: 'function', function: { name: stringOf(item.name), arguments: args } }];
      return;
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const output =
        typeof item.output === 'string'
          ? item.output
          : contentParts(item.output, where)
              .map((p) => (p.type === 'text' ? p.text : ''))
              .join('');
      messages.push({ role: 'tool', tool_call_id: stringOf(item.call_id), content: output });
      return;
    }
    case 'reasoning':
    case 'item_reference':
      // A chat model can read neither: its reasoning is not kept between turns.
      return;
    default:
      throw new GatewayError(
        400,
        'unsupported_parameter',
        `${where} is a ${JSON.stringify(type)} item, which a Chat Completions upstream cannot hold (RESPONSES_UPSTREAM=chat). Leave it out, or run the gateway with RESPONSES_UPSTREAM=responses.`,
        where,
      );
  }
}

/** The assistant message the conversation ends with, added when it ends otherwise (a function, not a closure per item). */
function lastAssistant(messages: Json[]): Json {
  const last = messages.at(-1);
  if (last?.role === 'assistant') return last;
  const fresh: Json = { role: 'assistant', content: null };
  messages.push(fresh);
  return fresh;
}

type Part = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

function contentParts(content: unknown, where: string): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter(isPlainObject).flatMap((p, j): Part[] => {
    if ((p.type === 'input_text' || p.type === 'output_text' || p.type === 'text') && typeof p.text === 'string') return [{ type: 'text', text: p.text }];
    if (p.type === 'input_image') {
      if (typeof p.image_url === 'string') return [{ type: 'image_url', image_url: { url: p.image_url } }];
      throw new GatewayError(
        400,
        'unsupported_parameter',
        `${where}.content[${j}] names an uploaded file: through a chat upstream send the image as image_url.`,
        `${where}.content[${j}]`,
      );
    }
    return [];
  });
}
