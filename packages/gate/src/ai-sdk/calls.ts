// What the AI SDK middleware's generate (index.ts) and stream (stream.ts) share: the AI SDK types they
// read, the call's function tools as the gate reads them, one call through the gate and as its verdict
// leaves it, the calls written into an answer's text, and the prompt of a re-ask (the conversation
// shape Rebound's gateway re-asks with: the answer's text and calls, then a tool result for each call,
// the gate's message for a blocked one). They differ only in when a call goes out.
import type { JSONValue, LanguageModelMiddleware } from 'ai';
import { blockedToolResult, NOT_RUN_RESULT } from '../blocked-result.ts';
import { compileTools } from '../index.ts';
import { extractTextCalls } from '../text-calls.ts';
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

export interface TextCalls {
  calls: GatedToolCall[];
  /** The text without the calls. */
  visibleText: string;
}

/**
 * The calls written into an answer's text, gated; null when there are none or the request says no
 * tools. On the last attempt a text whose calls would not all pass is left as it is (null): the
 * unchanged answer is the fallback. Ids are fresh per answer (`call_text_<stamp>_<i>`), as the gateway's.
 */
export function textCalls(tools: CompiledTools, text: string, params: CallOptions, options: { last: boolean }): TextCalls | null {
  if (params.toolChoice?.type === 'none' || text === '') return null;
  const found = extractTextCalls(text, tools.tools);
  if (found.calls.length === 0) return null;
  const stamp = crypto.randomUUID().slice(0, 8);
  const calls = found.calls.map((c, i) =>
    judge(tools, { type: 'tool-call', toolCallId: `call_text_${stamp}_${i}`, toolName: c.name, input: JSON.stringify(c.arguments) }, true),
  );
  if (options.last && calls.some(isBlocked)) return null;
  return { calls, visibleText: found.visibleText };
}

/**
 * The call options of a re-ask: the conversation so far, the answer (its text and these calls as the
 * model wrote them), then each call's result: the gate's message for a blocked call, NOT_RUN_RESULT
 * for one that passed (a generate re-asks for the whole answer; a stream only for its blocked calls,
 * the others having gone out).
 */
export function reask(params: CallOptions, text: string, calls: readonly GatedToolCall[]): CallOptions {
  const said = text.trim() === '' ? [] : [{ type: 'text' as const, text }];
  return {
    ...params,
    prompt: [
      ...params.prompt,
      {
        role: 'assistant',
        content: [
          ...said,
          ...calls.map(({ call }) => ({ type: 'tool-call' as const, toolCallId: call.toolCallId, toolName: call.toolName, input: parse(call.input) })),
        ],
      },
      {
        role: 'tool',
        content: calls.map((g) => {
          const v = g.verdict;
          // JSON as it stands: no host note, so no schema or example typed as unknown.
          const value = (v?.verdict === 'blocked' ? blockedToolResult(v) : NOT_RUN_RESULT) as JSONValue;
          return { type: 'tool-result' as const, toolCallId: g.call.toolCallId, toolName: g.call.toolName, output: { type: 'json' as const, value } };
        }),
      },
    ],
  };
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

/**
 * The answer's finish reason, as the gateway decides it: the model's own while the calls it sent are
 * what goes out (a forced call may finish "stop"), "tool-calls" once calls came out of the text or
 * from an earlier attempt than the one that ended the answer.
 */
export function finishReason(last: FinishReason, out: readonly GatedToolCall[], lastSentCalls: boolean): FinishReason {
  if (out.length === 0 || (lastSentCalls && !out.some((g) => g.embedded))) return last;
  return { unified: 'tool-calls', raw: last.raw };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
