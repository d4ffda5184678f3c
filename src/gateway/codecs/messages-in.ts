// POST /v1/messages read as the gateway core reads a request: Anthropic's Messages body checked
// (model, max_tokens, messages, tools, tool_choice) and translated into the Chat Completions body the
// core gates against (toGatewayRequest) and the chat upstream is sent (MESSAGES_UPSTREAM=chat):
// `system` as the first message, text and image blocks as content parts, `tool_use` blocks as the
// assistant's tool_calls (same ids), `tool_result` blocks as tool messages, custom tools as function
// tools (input_schema as parameters), tool_choice auto / any / tool / none as auto / required / the
// function / none, stop_sequences as stop. What a chat upstream cannot hold is left out: thinking
// blocks (a chat model neither reads nor signs them), server tools and their result blocks (the
// upstream would have to run them). docs/gateway-messages.md.
import * as z from 'zod';
import { isPlainObject, jsonText } from 'rebound-gate/internal';
import { GatewayError } from '../errors.ts';
import { every, nullishOr, plain } from '../request.ts';
import { quote } from '../../quote.ts';
import { stringOf } from '../string-of.ts';

/** The most members the gateway reads of these arrays (as GATEWAY_COUNTS for Chat Completions). */
export const MESSAGES_COUNTS = { messages: 10_000, tools: 1_000, 'messages.*.content': 1_000, system: 1_000 } as const;

const Block = z.looseObject({ type: z.string({ error: 'every content block needs a type' }) });
const Content = z.union([z.string(), z.array(Block)], { error: 'content must be a string or an array of content blocks' });

const Tool = z.looseObject({
  name: z.string({ error: 'every tool needs a name' }).min(1, 'a tool name must not be empty'),
  type: z.string().nullish(),
  description: z.string().nullish(),
  input_schema: z.record(z.string(), z.unknown()).nullish(),
});

const ToolChoice = z.looseObject({
  type: z.enum(['auto', 'any', 'tool', 'none'], { error: 'tool_choice.type must be "auto", "any", "tool" or "none"' }),
  name: z.string().nullish(),
  disable_parallel_tool_use: z.boolean().nullish(),
});

export const MessagesBody = z.looseObject({
  model: z.string({ error: 'model is required: the name of the model to ask' }).min(1, 'model must not be empty'),
  max_tokens: z.number({ error: 'max_tokens is required: the most tokens the answer may have' }).int().positive(),
  messages: z
    .array(
      z.looseObject({ role: z.enum(['user', 'assistant', 'system'], { error: 'every message role is "user", "assistant" or "system"' }), content: Content }),
      {
        error: 'messages is required: the conversation as an array of {role, content}',
      },
    )
    .min(1, 'messages must not be empty'),
  system: z.union([z.string(), z.array(Block)]).nullish(),
  tools: z.array(Tool, { error: 'tools must be an array of {name, description, input_schema}' }).nullish(),
  tool_choice: ToolChoice.nullish(),
  stream: z.boolean({ error: 'stream must be true or false' }).nullish(),
  stop_sequences: z.array(z.string()).nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
});
export type MessagesBody = z.infer<typeof MessagesBody>;

type Json = Record<string, unknown>;

/**
 * Whether a parsed body certainly passes MessagesBody, so that it is used as it is (src/http/body.ts
 * `fits`): zod's parse copies every object it checks, ~13 µs of a Messages request's first byte in
 * process (docs/benchmarks.md § The streaming paths at the physical limit). What this passes, zod passes
 * with the same data but for the order of keys (the client's is kept, and forwarded so to a native
 * upstream); what it is not sure of (a wrong type anywhere, a `__proto__` key, which zod drops) goes to
 * zod, whose errors the client gets (messages-in.test.ts).
 */
export function fitsMessagesBody(body: Json): body is MessagesBody & Json {
  return (
    plain(body) &&
    typeof body.model === 'string' &&
    body.model.length > 0 &&
    Number.isSafeInteger(body.max_tokens) &&
    (body.max_tokens as number) > 0 &&
    Array.isArray(body.messages) &&
    body.messages.length > 0 &&
    every(body.messages, fitsMessage) &&
    nullishOr(body.system, fitsContent) &&
    nullishOr(body.tools, (v) => Array.isArray(v) && every(v, fitsTool)) &&
    nullishOr(body.tool_choice, fitsToolChoice) &&
    nullishOr(body.stream, isBoolean) &&
    nullishOr(body.stop_sequences, (v) => Array.isArray(v) && every(v, isString)) &&
    nullishOr(body.temperature, Number.isFinite) &&
    nullishOr(body.top_p, Number.isFinite)
  );
}

const ROLES = new Set(['user', 'assistant', 'system']);
const CHOICES = new Set(['auto', 'any', 'tool', 'none']);
const isString = (v: unknown): boolean => typeof v === 'string';
const isBoolean = (v: unknown): boolean => typeof v === 'boolean';
const fitsBlock = (v: unknown): boolean => plain(v) && typeof v.type === 'string';
const fitsContent = (v: unknown): boolean => typeof v === 'string' || (Array.isArray(v) && every(v, fitsBlock));
const fitsMessage = (v: unknown): boolean => plain(v) && typeof v.role === 'string' && ROLES.has(v.role) && fitsContent(v.content);
const fitsTool = (v: unknown): boolean =>
  plain(v) &&
  typeof v.name === 'string' &&
  v.name.length > 0 &&
  nullishOr(v.type, isString) &&
  nullishOr(v.description, isString) &&
  nullishOr(v.input_schema, plain);
const fitsToolChoice = (v: unknown): boolean =>
  plain(v) && typeof v.type === 'string' && CHOICES.has(v.type) && nullishOr(v.name, isString) && nullishOr(v.disable_parallel_tool_use, isBoolean);

/** A custom tool (gated); any other type is one of Anthropic's own (server tools, versioned client tools). */
export const isCustomTool = (tool: { type?: string | null }): boolean => tool.type === undefined || tool.type === null || tool.type === 'custom';

/**
 * The Chat Completions body for the core and a chat upstream. `native`: the upstream is sent the
 * client's own body (MESSAGES_UPSTREAM=anthropic), this one only names the tools to gate: a block a
 * chat upstream cannot take is left out rather than refused.
 */
export function messagesToChat(body: MessagesBody, { native = false } = {}): Json {
  const messages: Json[] = [];
  const system = textOf(body.system ?? '');
  if (system) messages.push({ role: 'system', content: system });
  for (const [i, m] of body.messages.entries()) {
    // A string is one text block: the message the blocks' path below makes of it, without the block.
    if (typeof m.content === 'string') {
      messages.push({ role: m.role, content: m.role === 'assistant' && m.content === '' ? null : m.content });
      continue;
    }
    const blocks = m.content;
    // Claude Code sends its environment as a system turn among the messages.
    if (m.role === 'system') {
      messages.push({ role: 'system', content: textOf(blocks) });
      continue;
    }
    if (m.role === 'assistant') {
      const text = blocks.flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])).join('');
      const calls = blocks
        .filter((b) => b.type === 'tool_use')
        .map((b) => ({ id: stringOf(b.id), type: 'function', function: { name: stringOf(b.name), arguments: jsonText(b.input ?? {}) } }));
      messages.push({ role: 'assistant', content: text === '' ? null : text, ...(calls.length ? { tool_calls: calls } : {}) });
      continue;
    }
    // The tool results answer the calls of the message before: they come first, each its own message.
    for (const b of blocks) {
      if (b.type !== 'tool_result') continue;
      const text = typeof b.content === 'string' ? b.content : textOf(Array.isArray(b.content) ? (b.content as Json[]) : []);
      messages.push({ role: 'tool', tool_call_id: stringOf(b.tool_use_id), content: b.is_error === true ? `Error: ${text}` : text });
    }
    const parts = blocks.flatMap((b, j) => {
      try {
        return userPart(b, `messages[${i}].content[${j}]`);
      } catch (err) {
        if (native) return [];
        throw err;
      }
    });
    if (parts.length === 0) continue;
    messages.push({ role: 'user', content: parts.every((p) => p.type === 'text') ? parts.map((p) => p.text).join('') : parts });
  }
  const tools = (body.tools ?? []).filter(isCustomTool).map((t) => ({
    type: 'function',
    function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.input_schema ?? { type: 'object', properties: {} } },
  }));
  const chat: Json = { model: body.model, messages, max_tokens: body.max_tokens };
  if (tools.length) chat.tools = tools;
  const choice = body.tool_choice;
  if (choice && tools.length) {
    chat.tool_choice = chatToolChoice(choice);
    if (choice.disable_parallel_tool_use) chat.parallel_tool_calls = false;
  }
  if (body.stream) chat.stream = true;
  if (body.stop_sequences?.length) chat.stop = body.stop_sequences;
  if (typeof body.temperature === 'number') chat.temperature = body.temperature;
  if (typeof body.top_p === 'number') chat.top_p = body.top_p;
  return chat;
}

function chatToolChoice(choice: z.infer<typeof ToolChoice>): unknown {
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      if (!choice.name) throw new GatewayError(400, 'invalid_tool_choice', 'tool_choice {"type": "tool"} needs the tool\'s "name".', 'tool_choice');
      return { type: 'function', function: { name: choice.name } };
    default: {
      const never: never = choice.type;
      return never;
    }
  }
}

/** A user block as a chat content part: text, an image (base64 or URL); nothing for the rest (tool results go first, documents as their text). */
function userPart(b: Json, where: string): Array<{ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }> {
  if (b.type === 'text' && typeof b.text === 'string') return [{ type: 'text', text: b.text }];
  if (b.type === 'image' && isPlainObject(b.source)) {
    const s = b.source;
    if (s.type === 'base64' && typeof s.data === 'string')
      return [{ type: 'image_url', image_url: { url: `data:${stringOf(s.media_type, 'image/png')};base64,${s.data}` } }];
    if (s.type === 'url' && typeof s.url === 'string') return [{ type: 'image_url', image_url: { url: s.url } }];
    throw new GatewayError(
      400,
      'unsupported_parameter',
      `${where} is an image from a ${quote(stringOf(s.type))} source: through a chat upstream send base64 or url images.`,
      where,
    );
  }
  if (b.type === 'document' && isPlainObject(b.source) && b.source.type === 'text' && typeof b.source.data === 'string')
    return [{ type: 'text', text: b.source.data }];
  return [];
}

/** The text of a string or of text blocks. */
function textOf(value: string | readonly Json[]): string {
  if (typeof value === 'string') return value;
  return value.flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])).join('\n');
}
