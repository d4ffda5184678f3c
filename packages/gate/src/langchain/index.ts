// rebound-gate/langchain: the gate as a LangChain.js createAgent middleware (createMiddleware with
// wrapModelCall). Each model answer's tool_calls (and its invalid_tool_calls, whose arguments did not
// parse) are gated against the request's tools, with the re-ask policy of Rebound's gateway and the other
// adapters (splitCalls): a call that passes goes on, repaired under the same id if it was; when a call is
// blocked, the model is asked again for the blocked calls only, up to `retries` times (default 1): the
// answer's text and those calls, then the gate's error as a ToolMessage for each (the gateway's
// conversation shape). The retry's calls join the ones that went on (one repeating them is dropped), or
// its text when it sends none. Still blocked, a call goes on as the model gave it, and a re-ask that fails
// leaves the answer as it stood: never worse than no middleware. wrapModelCall rather than afterModel:
// it sees the request's tools and can re-ask the model itself. Calls written into the text of an answer
// that sent none are taken as the other adapters take them (gatedTextCalls, extractTextCalls' rule: only
// a calling form, never a call shown or asked about in prose; ids `call_text_…`; on the last attempt only
// when every one passes), the answer keeping its text without them. wrapModelCall sees the answer whole:
// a stream of the model's tokens (`streamMode: "messages"`) has shown them before it does.
// `langchain` and `@langchain/core` are optional peer dependencies, used only by this subpath.
import { AIMessage, type InvalidToolCall, mergeContent, mergeUsageMetadata, type ToolCall, ToolMessage } from '@langchain/core/messages';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { createMiddleware } from 'langchain';
import { blockedToolResult } from '../blocked-result.ts';
import { gatedTextCalls, parseOrText, sameCall, splitCalls } from '../held-answer.ts';
import { compileTools } from '../index.ts';
import { reaskLoop } from '../reask-loop.ts';
import { isPlainObject } from '../plain-object.ts';
import type { CompiledTools } from '../tools.ts';
import type { JSONSchema, Verdict } from '../types.ts';

export interface ReboundLangChainOptions {
  /** Re-asks of the model for an answer with a blocked call (default 1; 0: never). */
  retries?: number;
}

function toolsOf(tools: readonly unknown[]): CompiledTools | undefined {
  const specs = tools.flatMap((t) => {
    const tool = t as { name?: unknown; description?: unknown; schema?: unknown };
    if (typeof tool.name !== 'string' || !tool.schema) return [];
    const parameters = toJsonSchema(tool.schema as never) as JSONSchema;
    return [{ name: tool.name, description: typeof tool.description === 'string' ? tool.description : undefined, parameters }];
  });
  return specs.length ? compileTools(specs) : undefined;
}

/** One call of an answer as the model gave it, and the gate's verdict on it. */
interface GatedCall {
  written: { kind: 'call'; call: ToolCall } | { kind: 'invalid'; call: InvalidToolCall };
  verdict: Verdict;
}

function gateCalls(tools: CompiledTools, message: AIMessage): GatedCall[] {
  const check = (id: string | undefined, name: string | undefined, text: string) => tools.check({ id: id ?? '', name: name ?? '', arguments: text });
  return [
    ...(message.tool_calls ?? []).map(
      (call): GatedCall => ({ written: { kind: 'call', call }, verdict: check(call.id, call.name, JSON.stringify(call.args)) }),
    ),
    ...(message.invalid_tool_calls ?? []).map(
      (call): GatedCall => ({ written: { kind: 'invalid', call }, verdict: check(call.id, call.name, call.args ?? '') }),
    ),
  ];
}

const accepted = (g: GatedCall): boolean => g.verdict.verdict !== 'blocked';

type Content = AIMessage['content'];

/** The text of a message's content: a string, or its text blocks. */
function textOf(content: Content): string {
  if (typeof content === 'string') return content;
  return content.map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('');
}

/** The content with its text replaced by `text` (other blocks kept after it). */
function withText(content: Content, text: string): Content {
  if (typeof content === 'string') return text;
  const said = text.trim() === '' ? [] : [{ type: 'text' as const, text }];
  return [...said, ...content.filter((b) => b.type !== 'text')];
}

/**
 * An answer's calls, gated: its own, or when it sent none and the request allows calls, those written
 * into its text (held-answer.ts gatedTextCalls), with the content it keeps without them.
 */
function gateAnswer(
  tools: CompiledTools,
  message: AIMessage,
  request: { toolChoice?: unknown },
  last: boolean,
): { calls: GatedCall[]; content: Content; fromText: boolean } {
  const own = gateCalls(tools, message);
  if (own.length > 0 || request.toolChoice === 'none') return { calls: own, content: message.content, fromText: false };
  const found = gatedTextCalls(textOf(message.content), tools.tools, {
    last,
    check: (c): GatedCall => ({
      written: { kind: 'call', call: { id: c.id, name: c.name, args: JSON.parse(c.arguments) as Record<string, unknown>, type: 'tool_call' } },
      verdict: tools.check(c),
    }),
    accepted,
  });
  if (!found) return { calls: [], content: message.content, fromText: false };
  return { calls: found.calls, content: withText(message.content, found.visibleText), fromText: true };
}

/** The call as it goes on: repaired under the same id, or as the model wrote it (arguments that did not parse: `{}`). */
function toolCall(g: GatedCall): ToolCall {
  const { written: w, verdict: v } = g;
  if (v.verdict !== 'blocked') return { id: w.call.id, name: v.call.name, args: v.call.args, type: 'tool_call' };
  if (w.kind === 'call') return w.call;
  const args = parseOrText(w.call.args ?? '');
  return { id: w.call.id, name: w.call.name ?? '', args: isPlainObject(args) ? args : {}, type: 'tool_call' };
}

/** The same call as one already out (sameCall on the calls as they go on). */
const wire = (g: GatedCall) => {
  const c = toolCall(g);
  return { name: c.name, arguments: JSON.stringify(c.args) };
};

export function reboundMiddleware(options: ReboundLangChainOptions = {}) {
  const retries = options.retries ?? 1;
  return createMiddleware({
    name: 'ReboundGate',
    wrapModelCall: async (request, handler) => {
      const tools = toolsOf(request.tools ?? []);
      const first = await handler(request);
      if (!tools || !AIMessage.isInstance(first)) return first;
      let answer = first;
      let content = first.content;
      let usage = first.usage_metadata;
      let messages = request.messages;
      const out: GatedCall[] = [];
      let blocked: GatedCall[] = [];
      let untouched = false;
      /** The standing answer's content, without the calls taken out of its text. */
      let said = first.content;
      // The one re-ask loop (rebound-gate/host): each answer gated here, a re-ask for its blocked calls.
      await reaskLoop<AIMessage, typeof request>({
        retries,
        first,
        ask: async (next) => {
          const message = await handler(next);
          return AIMessage.isInstance(message) ? message : null;
        },
        read: (next, { first: isFirst, last }) => {
          if (!isFirst) usage = next.usage_metadata && usage ? mergeUsageMetadata(usage, next.usage_metadata) : (usage ?? next.usage_metadata);
          answer = next;
          const gated = gateAnswer(tools, answer, request, last);
          const calls = gated.calls;
          said = gated.content;
          if (isFirst && !gated.fromText && calls.every((g) => g.verdict.verdict === 'pass' && g.written.kind === 'call')) {
            untouched = true;
            return { blocked: 0, reask: null };
          }
          if (isFirst) content = said;
          const split = splitCalls(calls, { accepted, sent: (g) => out.some((o) => sameCall(wire(o), wire(g))) });
          if (!isFirst && calls.length === 0) content = mergeContent(content, answer.content);
          out.push(...split.going);
          blocked = split.blocked;
          return {
            blocked: blocked.length,
            reask: () => {
              const told = blocked.map((g) => {
                const v = g.verdict as Extract<Verdict, { verdict: 'blocked' }>;
                return new ToolMessage({
                  tool_call_id: g.written.call.id ?? '',
                  name: g.written.call.name ?? '',
                  content: JSON.stringify(blockedToolResult(v)),
                });
              });
              messages = [...messages, new AIMessage({ content: said, tool_calls: blocked.map(toolCall) }), ...told];
              return { ...request, messages };
            },
          };
        },
      });
      if (untouched) return first;
      // No retry (none left, or it failed): the calls still blocked go on as the model wrote them.
      return new AIMessage({
        id: first.id,
        content,
        tool_calls: [...out.map(toolCall), ...blocked.flatMap((g) => (g.written.kind === 'call' ? [g.written.call] : []))],
        invalid_tool_calls: blocked.flatMap((g) => (g.written.kind === 'invalid' ? [g.written.call] : [])),
        response_metadata: answer.response_metadata,
        usage_metadata: usage,
      });
    },
  });
}
