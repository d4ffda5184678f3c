// rebound-gate/openai-agents: the gate as a wrapper around an OpenAI Agents SDK `Model` (the Chat
// Completions model, the Responses model, any `Model`), or around a `ModelProvider`. Each answer's
// function_call items are gated against the request's function tools and handoffs (their JSON Schema
// parameters) before the agent loop sees them, with the re-ask policy of Rebound's gateway and the other
// adapters (splitCalls): a call that passes goes on, repaired under the same call id if it was; when a
// call is blocked, the model is asked again for the blocked calls only, up to `retries` times (default
// 1): the answer's items with only those calls, then the gate's message as each one's
// function_call_result (blocked-result.ts). The retry's calls join the ones that went on (one repeating
// them is dropped), or its text when it sends none. Still blocked, a call goes on as the model gave it,
// and a re-ask that fails leaves the answer as it stood: never worse than no adapter. An answer with no
// function call whose text writes calls gets them as function calls (text-calls.ts), as the gateway
// takes them.
// Why a Model wrapper and not a tool input guardrail: a guardrail can only allow or reject a call, and
// it runs only once the SDK has found the tool, so it can neither rename a misspelt tool (the SDK
// stops the run first: "Tool … not found in agent") nor pass `3` where the model wrote "3"; the Model
// is the one seam that sees the whole answer and the request's tools and can re-ask the model.
// In a stream, the SDK runs the calls of the response_done event only: that event is held and emitted
// gated (with every attempt's calls that went on); the text deltas go out as the gateway shows text
// (HeldAnswer: held from where a call may be written into it, a re-ask's at its end); the raw `model`
// events stay the provider's own, as they came.
// Not gated: a request whose tool set the SDK does not list in full (deferred tools, a prompt template's
// tools), calls under a namespace; not re-asked: a request that continues a stored response or
// conversation (previousResponseId, conversationId) and an answer with hosted, computer or shell calls.
// `@openai/agents` is an optional peer dependency, types only.
import type {
  AgentInputItem,
  AgentOutputItem,
  FunctionCallItem,
  Model,
  ModelProvider,
  ModelRequest,
  ModelResponse,
  StreamEvent,
  StreamEventResponseCompleted,
} from '@openai/agents';
import { blockedToolResult } from '../blocked-result.ts';
import { HeldAnswer, sameCall, splitCalls } from '../held-answer.ts';
import { compileTools } from '../index.ts';
import { reaskLoop, reaskStream } from '../reask-loop.ts';
import type { CompiledTools } from '../tools.ts';
import type { JSONSchema, Verdict } from '../types.ts';
import { type FoundCall, takeTextCalls, textCallFinder, withTextCalls } from './text-calls.ts';

export interface ReboundAgentsOptions {
  /** Re-asks of the model for an answer with a blocked call (default 1; 0: never). */
  retries?: number;
}

type Blocked = Extract<Verdict, { verdict: 'blocked' }>;
type UsageData = StreamEventResponseCompleted['response']['usage'];
type DoneItem = StreamEventResponseCompleted['response']['output'][number];

/** The request's function tools and handoffs as the gate reads them; undefined: not gated. */
function toolsOf(request: ModelRequest): CompiledTools | undefined {
  const fns = request.tools.flatMap((t) => (t.type === 'function' ? [t] : []));
  // The model may call tools this request does not list: leave its calls to the SDK.
  if (fns.some((t) => t.deferLoading) || (request.prompt && !request.toolsExplicitlyProvided)) return undefined;
  const specs = [
    ...fns.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters as JSONSchema })),
    ...request.handoffs.map((h) => ({ name: h.toolName, description: h.toolDescription, parameters: h.inputJsonSchema as JSONSchema })),
  ];
  return specs.length ? compileTools(specs) : undefined;
}

interface Gated<T extends AgentOutputItem = AgentOutputItem> {
  output: T[];
  blocked: Array<{ callId: string; verdict: Blocked }>;
}

/** The answer with its repaired calls applied, and its blocked calls (T: a response's or a stream's items). */
function gateOutput<T extends AgentOutputItem>(tools: CompiledTools, output: readonly T[]): Gated<T> {
  const blocked: Gated['blocked'] = [];
  const gated = output.map((item): T => {
    if (item.type !== 'function_call' || item.namespace !== undefined) return item;
    const v = tools.check({ id: item.callId, name: item.name, arguments: item.arguments });
    if (v.verdict === 'blocked') blocked.push({ callId: item.callId, verdict: v });
    if (v.verdict !== 'repaired') return item;
    return { ...item, name: v.call.name, arguments: JSON.stringify(v.call.args) };
  });
  return { output: gated, blocked };
}

const REASKABLE = new Set<AgentOutputItem['type']>(['message', 'reasoning', 'function_call']);

/** Whether a re-ask can follow this request: the conversation is in its input, not stored by the provider. */
function canReaskIn(request: ModelRequest): boolean {
  return request.previousResponseId === undefined && request.conversationId === undefined;
}

/** Whether this answer can be re-asked: nothing in it but text, reasoning and function calls. */
function canReask(output: readonly AgentOutputItem[]): boolean {
  return output.every((item) => REASKABLE.has(item.type));
}

const isCall = (item: AgentOutputItem): item is FunctionCallItem => item.type === 'function_call';

/**
 * An answer's items under the re-ask policy (splitCalls), against `out`, what earlier attempts put out:
 * `going` is what it adds (the first answer: all but its blocked calls; a retry: its calls that pass and
 * do not repeat one out, or its items when it sends no call), `blocked` its blocked calls as written.
 */
function settle<T extends AgentOutputItem>(gated: Gated<T>, out: readonly AgentOutputItem[], first: boolean): { going: T[]; blocked: T[] } {
  const calls = gated.output.flatMap((item) => (isCall(item) ? [item] : []));
  const split = splitCalls(calls, {
    accepted: (c) => !gated.blocked.some((b) => b.callId === c.callId),
    sent: (c) => out.some((o) => isCall(o) && sameCall(o, c)),
  });
  const blocked = gated.output.filter((item) => isCall(item) && split.blocked.includes(item));
  if (first) return { going: gated.output.filter((item) => !blocked.includes(item)), blocked };
  if (calls.length === 0) return { going: gated.output, blocked };
  return { going: gated.output.filter((item) => isCall(item) && split.going.includes(item)), blocked };
}

/** The request for a re-ask: its input, the answer with only its blocked calls, then the gate's message as each one's result. */
function reask(request: ModelRequest, gated: Gated): ModelRequest {
  const input: AgentInputItem[] = typeof request.input === 'string' ? [{ type: 'message', role: 'user', content: request.input }] : [...request.input];
  const blockedOf = (item: AgentOutputItem) => (isCall(item) ? gated.blocked.find((b) => b.callId === item.callId) : undefined);
  const answer = gated.output.filter((item) => !isCall(item) || blockedOf(item));
  const results = answer.flatMap((item): AgentInputItem[] => {
    const b = blockedOf(item);
    if (!isCall(item) || !b) return [];
    const text = JSON.stringify(blockedToolResult(b.verdict));
    return [{ type: 'function_call_result', name: item.name, callId: item.callId, status: 'completed', output: { type: 'text', text } }];
  });
  return { ...request, input: [...input, ...answer, ...results] };
}

/** Two answers' usage as one (a re-ask is a second request of the same turn). */
function addUsage(a: UsageData, b: UsageData): UsageData {
  const details = (x: UsageData['inputTokensDetails']) => (x === undefined ? [] : Array.isArray(x) ? x : [x]);
  return {
    requests: (a.requests ?? 1) + (b.requests ?? 1),
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    inputTokensDetails: [...details(a.inputTokensDetails), ...details(b.inputTokensDetails)],
    outputTokensDetails: [...details(a.outputTokensDetails), ...details(b.outputTokensDetails)],
    ...(a.requestUsageEntries || b.requestUsageEntries ? { requestUsageEntries: [...(a.requestUsageEntries ?? []), ...(b.requestUsageEntries ?? [])] } : {}),
  };
}

/** `model` with every answer's function calls gated (see the top of this file). */
export function reboundModel(model: Model, options: ReboundAgentsOptions = {}): Model {
  const retries = options.retries ?? 1;
  return {
    ...(model.supportsPromptModelSelection !== undefined ? { supportsPromptModelSelection: model.supportsPromptModelSelection } : {}),
    ...(model.getRetryAdvice ? { getRetryAdvice: model.getRetryAdvice.bind(model) } : {}),
    async getResponse(request: ModelRequest): Promise<ModelResponse> {
      const tools = toolsOf(request);
      const first = await model.getResponse(request);
      if (!tools) return first;
      const find = textCallFinder(tools, request);
      const out: AgentOutputItem[] = [];
      let response = first;
      let asked = request;
      /** What goes out without a retry: what went out, then the calls still blocked as the model gave them. */
      let standing = first;
      // The one re-ask loop (rebound-gate/host): each answer gated here, a re-ask for its blocked calls.
      await reaskLoop<ModelResponse, ModelRequest>({
        retries,
        first,
        ask: (next) => model.getResponse(next),
        read: (next, at) => {
          // The turn's usage counts every request.
          if (!at.first) {
            response.usage.add(next.usage);
            response = { ...next, usage: response.usage };
          }
          const last = at.last || !canReaskIn(asked) || !canReask(response.output);
          const gated = gateOutput(tools, takeTextCalls(find, response.output, { last }));
          const { going, blocked } = settle(gated, out, at.first);
          out.push(...going);
          standing = { ...response, output: [...out, ...blocked] };
          return { blocked: blocked.length, reask: last ? null : () => (asked = reask(asked, gated)) };
        },
      });
      return standing;
    },
    async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
      const tools = toolsOf(request);
      if (!tools) {
        yield* model.getStreamedResponse(request);
        return;
      }
      const find = textCallFinder(tools, request);
      let usage: UsageData | undefined;
      const out: DoneItem[] = [];
      /** The response_done that goes out if no retry follows. */
      let standing: StreamEventResponseCompleted | undefined;
      let asked = request;
      // The one re-ask loop (rebound-gate/host): each answer's stream read here, a re-ask for its blocked calls.
      yield* reaskStream<AsyncIterable<StreamEvent>, ModelRequest, StreamEvent>({
        retries,
        first: model.getStreamedResponse(request),
        ask: (next) => model.getStreamedResponse(next),
        async *read(events, at) {
          // Known once the answer is complete: whether it may be re-asked.
          let last = at.last || !canReaskIn(asked);
          // The text as the gateway shows it (HeldAnswer): the first attempt's as it comes but from where it
          // may be a call written into it, a re-ask's at its end and only if it answers without a call.
          const held = new HeldAnswer<FoundCall>({
            first: at.first,
            last,
            extract: find !== null,
            accepted: (f) => f.accepted,
            sent: (f) => out.some((o) => isCall(o) && sameCall(o, f.item)),
            textCalls: (text) => find?.(text, { last }) ?? null,
          });
          let done: StreamEventResponseCompleted | undefined;
          try {
            for await (const event of events) {
              if (event.type === 'output_text_delta') {
                const shown = held.pushText(event.delta);
                if (shown) yield { ...event, delta: shown };
              } else if (event.type === 'response_done') done = event;
              else if (at.first || event.type !== 'response_started') yield event;
            }
          } catch (err) {
            // The first answer broke: the SDK sees it break. A re-ask that broke: the answer as it stood.
            if (!standing) throw err;
          }
          // No final response: the SDK says so itself ("Model did not produce a final response!"), or the answer as it stood.
          if (!done) return { blocked: 0, reask: null };
          usage = usage ? addUsage(usage, done.response.usage) : done.response.usage;
          last ||= !canReask(done.response.output);
          let gated = gateOutput(tools, done.response.output);
          for (const item of gated.output) {
            if (item.type === 'function_call') held.take({ item, accepted: !gated.blocked.some((b) => b.callId === item.callId) });
          }
          const end = held.end();
          if (end.show) yield { type: 'output_text_delta', delta: end.show };
          if (end.found.length) gated = gateOutput(tools, withTextCalls(done.response.output, { calls: end.found, visibleText: end.visibleText }));
          const { going, blocked } = settle(gated, out, at.first);
          out.push(...going);
          standing = { ...done, response: { ...done.response, usage, output: [...out, ...blocked] } };
          return { blocked: blocked.length, reask: last ? null : () => (asked = reask(asked, gated)) };
        },
      });
      if (standing) yield standing;
    },
  };
}

/** `provider` whose every model is wrapped by `reboundModel`: for a Runner whose agents name their model. */
export function reboundModelProvider(provider: ModelProvider, options: ReboundAgentsOptions = {}): ModelProvider {
  return { getModel: async (name) => reboundModel(await provider.getModel(name), options) };
}
