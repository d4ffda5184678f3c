// What the AI SDK middleware's generate (generate.ts) and stream (stream.ts) share: the AI SDK types
// they read, the call's function tools as the gate reads them, one call through the gate and as its
// verdict leaves it, the calls written into an answer's text, whether a retry repeats a call, and the
// prompt of a re-ask (the conversation shape Rebound's gateway re-asks with: the answer's text and its
// blocked calls, then the gate's message as each one's result). They differ only in when a call goes out.
import type { JSONValue, LanguageModelMiddleware } from 'ai';
import { blockedToolResult } from '../blocked-result.ts';
import { compileTools } from '../index.ts';
import { callsFinish, type GatedTextCalls, gatedTextCalls, parseOrText, sameCall } from '../held-answer.ts';
import type { CompiledTools } from '../tools.ts';
import type { Verdict } from '../types.ts';

type WrapGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>;
type WrapStream = NonNullable<LanguageModelMiddleware['wrapStream']>;
export type CallOptions = Parameters<WrapGenerate>[0]['params'];
export type GenerateResult = Awaited<ReturnType<WrapGenerate>>;
export type StreamResult = Awaited<ReturnType<WrapStream>>;
export type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;
export type Content = GenerateResult['content'][number];
export type ToolCallContent = Extract<Content, { type: 'tool-call' }>;
export type Usage = GenerateResult['usage'];
export type FinishReason = GenerateResult['finishReason'];
/** The model a middleware wraps, as far as a re-ask needs it. */
export type Model = Parameters<WrapGenerate>[0]['model'];

/** One call of an answer and the gate's verdict on it (undefined: not gated, the provider ran it). */
export interface GatedToolCall {
  /** The call as the model wrote it. */
  call: ToolCallContent;
  verdict: Verdict | undefined;
  /** Written into the answer's text, not sent as a tool call. */
  embedded: boolean;
}

/** The call's function tools as the gate reads them (provider-defined tools are not gated). */
export function toolsOf(params: CallOptions): CompiledTools | undefined {
  const fns = (params.tools ?? []).flatMap((t) =>
    t.type === 'function' ? [{ name: t.name, description: t.description, parameters: t.inputSchema as never }] : [],
  );
  return fns.length ? compileTools(fns) : undefined;
}

export function judge(tools: CompiledTools, call: ToolCallContent, embedded = false): GatedToolCall {
  const verdict = call.providerExecuted ? undefined : tools.check({ id: call.toolCallId, name: call.toolName, arguments: call.input });
  return { call, verdict, embedded };
}

export const isBlocked = (g: GatedToolCall): boolean => g.verdict?.verdict === 'blocked';

/** The call that goes out: a repaired one under the tool's name with the repaired arguments, same id; any other as written. */
export function applied(g: GatedToolCall): ToolCallContent {
  const v = g.verdict;
  if (v?.verdict !== 'repaired') return g.call;
  return { ...g.call, toolName: v.call.name, input: JSON.stringify(v.call.args) };
}

/**
 * The calls written into an answer's text, gated (gatedTextCalls, as the gateway takes them); null
 * when there are none, the request says no tools, or on the last attempt they would not all pass.
 */
export function textCalls(tools: CompiledTools, text: string, params: CallOptions, options: { last: boolean }): GatedTextCalls<GatedToolCall> | null {
  if (params.toolChoice?.type === 'none') return null;
  return gatedTextCalls(text, tools.tools, {
    last: options.last,
    check: (c) => judge(tools, { type: 'tool-call', toolCallId: c.id, toolName: c.name, input: c.arguments }, true),
    accepted: (g) => !isBlocked(g),
  });
}

/**
 * The call options of a re-ask, in the shape Rebound's gateway re-asks with: the conversation so far,
 * the answer's text and its blocked calls as the model wrote them, then the gate's message as each
 * one's result (the calls that passed have gone out: the model is not asked for them again).
 */
export function reask(params: CallOptions, text: string, blocked: readonly GatedToolCall[]): CallOptions {
  const said = text.trim() === '' ? [] : [{ type: 'text' as const, text }];
  const results = blocked.flatMap(({ call, verdict }) => {
    if (verdict?.verdict !== 'blocked') return [];
    // JSON as it stands: no host note, so no schema or example typed as unknown.
    const value = blockedToolResult(verdict) as JSONValue;
    return [{ type: 'tool-result' as const, toolCallId: call.toolCallId, toolName: call.toolName, output: { type: 'json' as const, value } }];
  });
  return {
    ...params,
    prompt: [
      ...params.prompt,
      {
        role: 'assistant',
        content: [
          ...said,
          ...blocked.map(({ call }) => ({ type: 'tool-call' as const, toolCallId: call.toolCallId, toolName: call.toolName, input: parseOrText(call.input) })),
        ],
      },
      { role: 'tool', content: results },
    ],
  };
}

/** The call repeats one already out (a retry's call): same tool, arguments equal as JSON values (sameCall). */
export function sentBefore(out: readonly GatedToolCall[], g: GatedToolCall): boolean {
  const wire = (x: GatedToolCall) => {
    const c = applied(x);
    return { name: c.toolName, arguments: c.input };
  };
  return out.some((o) => sameCall(wire(o), wire(g)));
}

/** The tokens of every attempt (a field neither reports stays undefined). */
export function addUsage(a: Usage | undefined, b: Usage): Usage {
  if (!a) return b;
  const sum = (x: number | undefined, y: number | undefined) => (x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0));
  const i = a.inputTokens;
  const o = a.outputTokens;
  return {
    ...b,
    inputTokens: {
      total: sum(i.total, b.inputTokens.total),
      noCache: sum(i.noCache, b.inputTokens.noCache),
      cacheRead: sum(i.cacheRead, b.inputTokens.cacheRead),
      cacheWrite: sum(i.cacheWrite, b.inputTokens.cacheWrite),
    },
    outputTokens: { total: sum(o.total, b.outputTokens.total), text: sum(o.text, b.outputTokens.text), reasoning: sum(o.reasoning, b.outputTokens.reasoning) },
  };
}

/** The answer's finish reason, as the gateway decides it: the model's own, or "tool-calls" when the calls that went out say so (callsFinish). */
export function finishReason(last: FinishReason, out: readonly GatedToolCall[], lastSentCalls: boolean): FinishReason {
  return callsFinish(out, lastSentCalls) ? { unified: 'tool-calls', raw: last.raw } : last;
}
