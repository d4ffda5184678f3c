// A server's question to the person (MCP elicitation, 2026-07-28's input_required; docs/approval.md §
// A server's question): what a tool answers instead of a result when its server needs the person first
// (InputRequired), the person's answer, and the checks on both. The question waits as the approval of
// a call does, in the same pause (src/loop/pause.ts): its id is an `inp_` id where an approval's is
// `apr_`, and the answer is MCP's own ElicitResult shape {action, content}, checked here against the
// schema the server asked with before anything is recorded.
import { checkSchema, type JSONSchema } from 'rebound-gate';
import { isPlainObject, validate } from 'rebound-gate/internal';
import { newWaitingId } from './approval.ts';

/** What the server asked, as the person sees it and the call sent again needs it. */
export interface InputQuestion {
  /** The MCP server (MCP_SERVERS name) and its own name for the tool. */
  server: string;
  tool: string;
  /** The server's key for this request in its inputRequests: the answer goes back under it. */
  key: string;
  /** 'form': answered with content fitting requestedSchema; 'url': the person opens `url` (never fetched here) and says when done. */
  mode: 'form' | 'url';
  message: string;
  requestedSchema?: JSONSchema;
  url?: string;
  /** The server's opaque state, echoed exactly when the call is sent again. */
  requestState?: string;
}

/** A tool's answer when its server asks the person first: the loop pauses the turn on it (src/loop/turn.ts). */
export class InputRequired {
  readonly question: InputQuestion;
  constructor(question: InputQuestion) {
    this.question = question;
  }
}

/** The person's answer, MCP's ElicitResult. */
export interface InputAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

/** The answers a call is sent again with (ToolContext.input). */
export interface InputReply {
  question: InputQuestion;
  answer: InputAnswer;
}

export const INPUT_ID = /^inp_[0-9a-f]{32}$/;

export function newInputId(): string {
  return newWaitingId('inp');
}

/** Bounds on what a server may ask (MCP restricts requestedSchema to a flat object of primitives). */
export const MAX_INPUT_FIELDS = 20;
export const MAX_INPUT_MESSAGE = 2_000;
/** The longest URL a URL question may send the person to (kept in the turn's log, sent to every reader). */
export const MAX_INPUT_URL = 2_048;
/** The longest key a server may file its request under (the answer goes back under it; kept with the question). */
export const MAX_INPUT_KEY = 256;
/** The longest requestState a server may hand over to be echoed (kept with the question until it is answered). */
export const MAX_INPUT_STATE = 65_536;
const PRIMITIVES = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * Why a requested schema cannot be shown as a form (null: it can): a flat object of at most
 * MAX_INPUT_FIELDS primitives, within the gate's schema limits (an answer is checked against it, and
 * the question is kept in the turn's log and sent to every reader: an enum of a million values is not).
 */
export function unaskable(schema: unknown): string | null {
  if (!isPlainObject(schema) || schema.type !== 'object' || !isPlainObject(schema.properties)) return 'its requestedSchema is not an object with properties';
  const readable = checkSchema(schema);
  if (!readable.ok) return `its requestedSchema ${readable.reason}`;
  const fields = Object.entries(schema.properties);
  if (fields.length > MAX_INPUT_FIELDS) return `its requestedSchema has ${fields.length} fields (at most ${MAX_INPUT_FIELDS})`;
  for (const [name, field] of fields) {
    if (!isPlainObject(field)) return `its field ${JSON.stringify(name.slice(0, 60))} is not a schema`;
    const multi = field.type === 'array' && isPlainObject(field.items) && (Array.isArray(field.items.enum) || Array.isArray(field.items.anyOf));
    if (!multi && !(typeof field.type === 'string' && PRIMITIVES.has(field.type))) {
      return `its field ${JSON.stringify(name.slice(0, 60))} is not a string, number, integer, boolean or multi-select (MCP's restricted schema)`;
    }
  }
  return null;
}

/** The body of POST /v1/turns/:turnId/inputs/:inputId as an answer to `question`, or why it is not one. */
export function readAnswer(question: InputQuestion, body: unknown): { ok: true; answer: InputAnswer } | { ok: false; message: string } {
  if (!isPlainObject(body)) return { ok: false, message: 'the body must be a JSON object {action, content}' };
  const { action, content } = body;
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') return { ok: false, message: 'action must be "accept", "decline" or "cancel"' };
  if (action !== 'accept') {
    if (content !== undefined) return { ok: false, message: `content goes only with "accept"; send {"action": "${action}"}` };
    return { ok: true, answer: { action } };
  }
  if (question.mode === 'url') {
    if (content !== undefined) return { ok: false, message: 'a URL question is answered without content: {"action": "accept"} once the page was visited' };
    return { ok: true, answer: { action } };
  }
  if (!isPlainObject(content)) return { ok: false, message: 'content must be an object with the fields the server asked for' };
  const schema = question.requestedSchema as Record<string, unknown> & { properties: Record<string, unknown> };
  const extra = Object.keys(content).filter((k) => !(k in schema.properties));
  if (extra.length > 0)
    return {
      ok: false,
      message: `content has fields the server did not ask for: ${extra
        .slice(0, 5)
        .map((k) => JSON.stringify(k.slice(0, 60)))
        .join(', ')}`,
    };
  const problems = [
    ...validate(content, schema as JSONSchema, { strictTopLevel: false }).map((p) => `${p.path}: ${p.message}`),
    ...outOfBounds(schema.properties, content),
  ];
  if (problems.length > 0) return { ok: false, message: `content does not fit the server's schema: ${problems.slice(0, 5).join('; ')}` };
  return { ok: true, answer: { action, content } };
}

/** The longest string an answer may carry in a field whose schema sets no maxLength. */
export const MAX_INPUT_STRING = 10_000;

/**
 * The bounds of MCP's restricted schema that the gate's checker leaves to the tool (it checks types,
 * required fields and enums): string lengths, number ranges, how many of a multi-select.
 */
function outOfBounds(properties: Record<string, unknown>, content: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(content)) {
    const field = properties[name];
    if (!isPlainObject(field)) continue;
    const num = (k: string) => (typeof field[k] === 'number' ? (field[k] as number) : undefined);
    const at = `$.${name}`;
    if (typeof value === 'string') {
      const max = Math.min(num('maxLength') ?? MAX_INPUT_STRING, MAX_INPUT_STRING);
      if (value.length > max) out.push(`${at}: longer than ${max} characters`);
      const min = num('minLength');
      if (min !== undefined && value.length < min) out.push(`${at}: shorter than ${min} characters`);
    } else if (typeof value === 'number') {
      const min = num('minimum');
      const max = num('maximum');
      if (min !== undefined && value < min) out.push(`${at}: below the minimum ${min}`);
      if (max !== undefined && value > max) out.push(`${at}: above the maximum ${max}`);
    } else if (Array.isArray(value)) {
      const min = num('minItems');
      const max = num('maxItems');
      if (min !== undefined && value.length < min) out.push(`${at}: fewer than ${min} choices`);
      if (max !== undefined && value.length > max) out.push(`${at}: more than ${max} choices`);
    }
  }
  return out;
}
