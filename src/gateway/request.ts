// A Chat Completions request as the gateway reads it: the fields it needs checked (model, messages,
// stream, tools, tool_choice), everything else kept as the client sent it for the upstream. What it
// cannot serve is refused here with a 400 that says so: several choices (`n > 1`: each would need
// its own gating and retries), audio output, the deprecated `functions` API, tools that are not
// functions. The result names the tools a call is gated against, after `tool_choice`.
//
// The extensions are the gate's (rebound-gate's toolSpec): a parameter whose schema has
// `"x-rebound-code": true` carries code or a file body, and gets the gate's content checks
// (placeholders such as `// ... rest of code`, truncation); `"x-rebound-path": true` is read too but
// checks nothing here (the gateway has no path index). The gateway removes both before forwarding; a
// server that is sent them directly ignores them. Without them, the coding agents' file tools get the
// same content checks (rebound-gate's withFileParams: Claude Code's Write.content and Edit.new_string,
// Codex's apply_patch text and a patch in a shell command, a path beside a content parameter).
import * as z from 'zod';
import { type JSONSchema, type ToolSpec, withoutExtensions } from 'rebound-gate';
import { quote } from '../quote.ts';
import { GatewayError } from './errors.ts';
import { readTool } from './tool-specs.ts';

/**
 * The most members the gateway reads of these arrays (docs/configuration.md § Limits), counted on the body's text
 * before it is parsed (src/http/body.ts): past them, a 400 at once, whatever the elements are.
 */
export const GATEWAY_COUNTS = { messages: 10_000, tools: 1_000, 'messages.*.content': 1_000 } as const;

const FunctionDef = z.looseObject({
  name: z.string({ error: 'every function tool needs a name' }).min(1, 'a function name must not be empty'),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown(), { error: 'function parameters must be a JSON Schema object' }).nullish(),
  strict: z.boolean().nullish(),
});

const Tool = z.looseObject({
  type: z.string({ error: 'every tool needs a type ("function")' }),
  function: FunctionDef.optional(),
});

const NamedFunction = z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string().min(1) }) });
const ToolChoice = z.union(
  [
    z.enum(['none', 'auto', 'required']),
    NamedFunction,
    z.looseObject({
      type: z.literal('allowed_tools'),
      allowed_tools: z.looseObject({ mode: z.enum(['auto', 'required']), tools: z.array(NamedFunction) }),
    }),
  ],
  { error: 'tool_choice must be "none", "auto", "required", {"type": "function", "function": {"name": …}} or {"type": "allowed_tools", …}' },
);

/** The body's shape; unknown fields are kept and forwarded. */
export const ChatCompletionsBody = z.looseObject({
  model: z.string({ error: 'model is required: the name of the model to ask' }).min(1, 'model must not be empty'),
  messages: z
    .array(z.looseObject({ role: z.string({ error: 'every message needs a role' }) }), {
      error: 'messages is required: the conversation as an array of {role, content}',
    })
    .min(1, 'messages must not be empty'),
  stream: z.boolean({ error: 'stream must be true or false' }).nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  tools: z.array(Tool, { error: 'tools must be an array of {"type": "function", "function": {…}}' }).nullish(),
  tool_choice: ToolChoice.nullish(),
  n: z.number({ error: 'n must be a number' }).int().nullish(),
});

export type ChatCompletionsBody = z.infer<typeof ChatCompletionsBody>;

/**
 * Whether a parsed body certainly passes ChatCompletionsBody, so that it is used as it is: zod's parse
 * copies every object it checks (~0.05 ms of each request's first byte, docs/benchmarks.md § The
 * streaming paths at the physical limit). What this passes, zod passes with the same data but for the
 * order of keys (the client's is kept); what it is not sure of (a wrong type anywhere, an allowed_tools
 * choice, a `__proto__` key, which zod drops) goes to zod, whose errors the client gets.
 */
export function fitsChatBody(body: Record<string, unknown>): body is ChatCompletionsBody {
  return (
    plain(body) &&
    typeof body.model === 'string' &&
    body.model.length > 0 &&
    Array.isArray(body.messages) &&
    body.messages.length > 0 &&
    every(body.messages, (m) => plain(m) && typeof m.role === 'string') &&
    nullishOr(body.stream, (v) => typeof v === 'boolean') &&
    nullishOr(body.stream_options, (v) => plain(v) && nullishOr(v.include_usage, (u) => typeof u === 'boolean')) &&
    nullishOr(body.tools, (v) => Array.isArray(v) && every(v, fitsTool)) &&
    nullishOr(body.tool_choice, (v) => v === 'none' || v === 'auto' || v === 'required' || fitsNamedFunction(v)) &&
    nullishOr(body.n, (v) => Number.isSafeInteger(v))
  );
}

function fitsTool(tool: unknown): boolean {
  if (!plain(tool) || typeof tool.type !== 'string') return false;
  const fn = tool.function;
  return (
    fn === undefined ||
    (plain(fn) &&
      typeof fn.name === 'string' &&
      fn.name.length > 0 &&
      nullishOr(fn.description, (v) => typeof v === 'string') &&
      nullishOr(fn.parameters, plain) &&
      nullishOr(fn.strict, (v) => typeof v === 'boolean'))
  );
}

function fitsNamedFunction(choice: unknown): boolean {
  return plain(choice) && choice.type === 'function' && plain(choice.function) && typeof choice.function.name === 'string' && choice.function.name.length > 0;
}

/** A JSON object as zod's objects and records take it unchanged (an own `__proto__` key zod leaves out). */
export function plain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Object.hasOwn(value, '__proto__');
}

/** Array.prototype.every, but a hole is a member too (undefined), as zod reads it. */
export function every(values: unknown[], fits: (value: unknown) => boolean): boolean {
  for (let i = 0; i < values.length; i++) if (!fits(values[i])) return false;
  return true;
}

export function nullishOr(value: unknown, fits: (value: unknown) => boolean): boolean {
  return value === undefined || value === null || fits(value);
}

export interface GatewayRequest {
  /** The body as it goes upstream: the client's, with the model mapped and the gateway's extension removed. */
  upstreamBody: Record<string, unknown>;
  /** The model name sent upstream (after GATEWAY_MODELS). */
  model: string;
  stream: boolean;
  /** The client asked for the usage chunk (`stream_options.include_usage`). */
  includeUsage: boolean;
  /** The tools a call is gated against: the request's own, narrowed by `tool_choice`. */
  toolset: ToolSpec[];
  /** Calls written into the text are extracted (there are tools, and tool_choice is not "none"). */
  extractTextCalls: boolean;
  /**
   * A tool whose parameters schema is past the gate's schema limits (packages/gate/src/schema/schema-compile.ts), and
   * why: the request is forwarded ungated (toolset empty, its calls' verdict `none`), never refused,
   * since the gateway must not be worse than no gateway. The first such tool; runGateway logs it once.
   */
  ungated?: { tool: string; reason: string };
}

export interface RequestOptions {
  /** Client model name → upstream model name; "*" maps every other name. */
  models: Record<string, string>;
  /** GATEWAY_MODELS_ONLY: a name GATEWAY_MODELS does not list is refused, not passed through. */
  only?: boolean;
}

/**
 * Whether a client may send this model name: any name, unless GATEWAY_MODELS_ONLY makes GATEWAY_MODELS
 * an allowlist (a key meant for a mini model is not spent on o1-pro).
 */
export function modelAllowed(name: string, models: Record<string, string>, only: boolean): boolean {
  return !only || Object.hasOwn(models, name);
}

/** The model name a client's name is sent upstream as (GATEWAY_MODELS; unmapped names pass through). */
export function upstreamModel(name: string, models: Record<string, string>): string {
  // Own entries only: a client's "constructor" is not Object.prototype's.
  if (Object.hasOwn(models, name)) return models[name]!;
  return Object.hasOwn(models, '*') ? models['*']! : name;
}

/**
 * Throws GatewayError (400) for what the gateway cannot serve. `toolTexts`: each of `body.tools` as the
 * request's text spelled it (the body's scan, src/http/json-scan.ts `membersOf`), the key its read is
 * kept by (tool-specs.ts); without it, the tools' JSON text.
 */
export function toGatewayRequest(body: ChatCompletionsBody, options: RequestOptions, toolTexts?: readonly string[]): GatewayRequest {
  refuseUnsupported(body);
  if (!modelAllowed(body.model, options.models, options.only ?? false)) throw modelNotAllowed(body.model, options.models);
  const tools = (body.tools ?? []).map((tool, i) => {
    if (tool.type !== 'function') {
      throw unsupported(
        `tools[${i}].type`,
        `tools[${i}] is a ${quote(tool.type, 40)} tool: the gateway gates function tools only. Send {"type": "function", "function": {name, parameters}}.`,
      );
    }
    if (!tool.function) throw unsupported(`tools[${i}].function`, `tools[${i}] has no "function": send {"type": "function", "function": {name, parameters}}.`);
    return tool.function;
  });
  // The coding agents' own file tools are known by name and schema (withFileParams): nobody marks them
  // x-rebound-code. Each tool read once for the requests that send it (tool-specs.ts).
  const texts = toolTexts?.length === tools.length ? toolTexts : undefined;
  const read = tools.map((fn, i) => readTool(fn, texts?.[i]));
  const specs = read.map((r) => r.spec);
  const narrowed = narrow(specs, body.tool_choice);
  // Checked before anything walks a schema: past the limits no call of this request is gated (a call
  // the model meant for that tool could otherwise be "repaired" into another one).
  const unreadable = read.find((r) => !r.check.ok);
  const ungated = unreadable && !unreadable.check.ok ? { tool: unreadable.spec.name, reason: unreadable.check.reason } : undefined;
  const toolset = ungated ? [] : narrowed;
  const model = upstreamModel(body.model, options.models);
  const stream = body.stream === true;

  const upstreamBody: Record<string, unknown> = { ...body, model };
  // Usage is summed over the gateway's attempts, so it is always asked for; the client gets the
  // usage chunk only when it asked for it.
  if (stream) upstreamBody.stream_options = { ...(body.stream_options ?? {}), include_usage: true };
  if (specs.some((s) => s.codeParams?.length || s.pathParams?.length)) upstreamBody.tools = (body.tools ?? []).map(withoutExtension);

  return {
    upstreamBody,
    model,
    stream,
    includeUsage: body.stream_options?.include_usage === true,
    toolset,
    extractTextCalls: toolset.length > 0 && body.tool_choice !== 'none',
    ...(ungated ? { ungated } : {}),
  };
}

function refuseUnsupported(body: ChatCompletionsBody): void {
  if (typeof body.n === 'number' && body.n > 1) {
    throw unsupported(
      'n',
      `n = ${body.n} is not supported: the gateway gates and retries one answer per request. Send n: 1 (or leave it out) and make ${body.n} requests.`,
    );
  }
  const modalities = body.modalities;
  if ((body.audio !== undefined && body.audio !== null) || (Array.isArray(modalities) && modalities.includes('audio'))) {
    throw unsupported(
      body.audio ? 'audio' : 'modalities',
      'Audio output is not supported by the gateway: it gates text and tool calls. Leave out "audio" and the "audio" modality, or call the upstream directly.',
    );
  }
  if (body.functions !== undefined || body.function_call !== undefined) {
    throw unsupported(
      body.functions !== undefined ? 'functions' : 'function_call',
      'The deprecated "functions"/"function_call" fields are not supported: send the same definitions as "tools" ([{"type": "function", "function": {…}}]) and "tool_choice".',
    );
  }
}

/** 403 for a model GATEWAY_MODELS_ONLY does not serve, naming the ones it does. */
function modelNotAllowed(name: string, models: Record<string, string>): GatewayError {
  const names = Object.keys(models);
  const listed = names.slice(0, 20).map((n) => quote(n, 80));
  return new GatewayError(
    403,
    'model_not_allowed',
    `The model ${quote(name, 80)} is not served by this gateway (GATEWAY_MODELS_ONLY): send one of ${listed.join(', ')}${names.length > 20 ? ` and ${names.length - 20} more` : ''} (GET /v1/models lists them).`,
    'model',
  );
}

function unsupported(param: string, message: string): GatewayError {
  return new GatewayError(400, 'unsupported_parameter', message, param);
}

/** The tool with the extension keywords taken out of its parameters (only where there are any). */
function withoutExtension(tool: z.infer<typeof Tool>): unknown {
  const parameters = tool.function?.parameters as JSONSchema | undefined;
  if (!tool.function || !parameters) return tool;
  const cleaned = withoutExtensions(parameters);
  return cleaned === parameters ? tool : { ...tool, function: { ...tool.function, parameters: cleaned } };
}

/** The tools a call may name, after tool_choice: none, all, one, or the allowed subset. */
function narrow(specs: ToolSpec[], choice: ChatCompletionsBody['tool_choice']): ToolSpec[] {
  if (choice === undefined || choice === null || choice === 'auto' || choice === 'required') return specs;
  if (choice === 'none') return [];
  const names =
    choice.type === 'function'
      ? [(choice as z.infer<typeof NamedFunction>).function.name]
      : (choice as { allowed_tools: { tools: Array<z.infer<typeof NamedFunction>> } }).allowed_tools.tools.map((t) => t.function.name);
  for (const name of names) {
    if (!specs.some((s) => s.name === name)) {
      throw new GatewayError(
        400,
        'invalid_tool_choice',
        `tool_choice names ${quote(name, 80)}, which is not among the request's tools (${
          specs
            .slice(0, 20)
            .map((s) => quote(s.name, 80))
            .join(', ') || 'none'
        }${specs.length > 20 ? ` and ${specs.length - 20} more` : ''}).`,
        'tool_choice',
      );
    }
  }
  return specs.filter((s) => names.includes(s.name));
}
