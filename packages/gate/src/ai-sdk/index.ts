// rebound-gate/ai-sdk: the gate as an AI SDK language-model middleware, for wrapLanguageModel.
// Every tool call of the model's answer is gated against the call's own function tools before the AI
// SDK sees it: a repaired call goes out repaired under the same id; a blocked call of a generate is
// re-asked up to `retries` times with the gate's message as the call's tool result (the shape the
// gateway and the loop use: {ok: false, error, suggestions}), and goes out unchanged if it is still
// blocked: never worse than no middleware. In a stream, tool-call deltas are held until the call is
// complete, then the gated call is emitted (blocked streamed calls are not re-asked: they go out
// unchanged). A generated answer with no tool call whose text writes calls (`{"name": …, "arguments":
// …}`, <tool_call> tags, as the gateway reads them) gets them as real tool calls when every one passes
// the gate, the text without them kept. `reboundRepairToolCall` is the same gate as the AI SDK's
// `experimental_repairToolCall`. `ai` is an optional peer dependency, used for its types only.
import type { JSONValue, LanguageModelMiddleware, ToolCallRepairFunction, ToolSet } from 'ai';
import { blockedToolResult, NOT_RUN_RESULT } from '../blocked-result.ts';
import { compileTools, gate } from '../index.ts';
import { extractTextCalls } from '../text-calls.ts';
import type { CompiledTools } from '../tools.ts';
import type { Verdict } from '../types.ts';

type WrapGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>;
type WrapStream = NonNullable<LanguageModelMiddleware['wrapStream']>;
type CallOptions = Parameters<WrapGenerate>[0]['params'];
type GenerateResult = Awaited<ReturnType<WrapGenerate>>;
type Content = GenerateResult['content'][number];
type ToolCallContent = Extract<Content, { type: 'tool-call' }>;
type StreamPart = Awaited<ReturnType<WrapStream>>['stream'] extends ReadableStream<infer P> ? P : never;

export interface ReboundMiddlewareOptions {
  /** Re-asks of the model for an answer with a blocked call (default 1; 0: never). */
  retries?: number;
}

/** The call's function tools as the gate reads them (provider-defined tools are not gated). */
function toolsOf(params: CallOptions): CompiledTools | undefined {
  const fns = (params.tools ?? []).flatMap((t) =>
    t.type === 'function' ? [{ name: t.name, description: t.description, parameters: t.inputSchema as never }] : [],
  );
  return fns.length ? compileTools(fns) : undefined;
}

/** The gate's verdict on one call the provider did not run itself; undefined: not gated. */
function judge(tools: CompiledTools, call: ToolCallContent): Verdict | undefined {
  if (call.providerExecuted) return undefined;
  return tools.check({ id: call.toolCallId, name: call.toolName, arguments: call.input });
}

/** The call as the verdict leaves it: repaired calls carry the tool's name and the repaired arguments. */
function applied(call: ToolCallContent, v: Verdict | undefined): ToolCallContent {
  if (v?.verdict !== 'repaired') return call;
  return { ...call, toolName: v.call.name, input: JSON.stringify(v.call.args) };
}

/** The calls written into the text of an answer that has none, as tool calls, when every one is accepted. */
function textCalls(tools: CompiledTools, result: GenerateResult, params: CallOptions): GenerateResult {
  if (params.toolChoice?.type === 'none' || result.content.some((p) => p.type === 'tool-call')) return result;
  const text = result.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
  if (text === '') return result;
  const found = extractTextCalls(text, tools.tools);
  if (found.calls.length === 0) return result;
  const calls: ToolCallContent[] = [];
  for (const [i, c] of found.calls.entries()) {
    const v = tools.check({ id: `call_text_${i}`, name: c.name, arguments: JSON.stringify(c.arguments) });
    if (v.verdict === 'blocked') return result;
    calls.push({ type: 'tool-call', toolCallId: `call_text_${i}`, toolName: v.call.name, input: JSON.stringify(v.call.args) });
  }
  const rest = result.content.filter((p) => p.type !== 'text');
  const visible = found.visibleText.trim() === '' ? [] : [{ type: 'text' as const, text: found.visibleText }];
  return { ...result, content: [...visible, ...rest, ...calls], finishReason: { unified: 'tool-calls', raw: result.finishReason.raw } };
}

function gateContent(tools: CompiledTools, content: readonly Content[]) {
  const blocked: Array<{ call: ToolCallContent; verdict: Extract<Verdict, { verdict: 'blocked' }> }> = [];
  const out = content.map((part) => {
    if (part.type !== 'tool-call') return part;
    const v = judge(tools, part);
    if (v?.verdict === 'blocked') blocked.push({ call: part, verdict: v });
    return applied(part, v);
  });
  return { content: out, blocked };
}

/** The prompt for a re-ask: the answer's calls, then the gate's message as each blocked call's result. */
function reask(params: CallOptions, content: readonly Content[], blocked: ReturnType<typeof gateContent>['blocked']): CallOptions {
  const calls = content.filter((p): p is ToolCallContent => p.type === 'tool-call');
  const parse = (text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  };
  return {
    ...params,
    prompt: [
      ...params.prompt,
      { role: 'assistant', content: calls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.toolCallId, toolName: c.toolName, input: parse(c.input) })) },
      {
        role: 'tool',
        content: calls.map((c) => {
          const b = blocked.find((x) => x.call.toolCallId === c.toolCallId);
          // JSON as it stands: no host note, so no schema or example typed as unknown.
          const value = (b ? blockedToolResult(b.verdict) : NOT_RUN_RESULT) as JSONValue;
          return { type: 'tool-result' as const, toolCallId: c.toolCallId, toolName: c.toolName, output: { type: 'json' as const, value } };
        }),
      },
    ],
  };
}

export function reboundMiddleware(options: ReboundMiddlewareOptions = {}): LanguageModelMiddleware {
  const retries = options.retries ?? 1;
  return {
    specificationVersion: 'v4',
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const tools = toolsOf(params);
      if (!tools) return doGenerate();
      const first = textCalls(tools, await doGenerate(), params);
      let result = first;
      let gated = gateContent(tools, result.content);
      for (let attempt = 0; gated.blocked.length > 0 && attempt < retries; attempt++) {
        const next = textCalls(tools, await model.doGenerate(reask(params, gated.content, gated.blocked)), params);
        const nextGated = gateContent(tools, next.content);
        if (nextGated.blocked.length === 0) return { ...next, content: nextGated.content };
        result = next;
        gated = nextGated;
      }
      // Still blocked: the last answer as the model gave it, repairs of its other calls applied.
      return { ...result, content: gated.content };
    },
    wrapStream: async ({ doStream, params }) => {
      const result = await doStream();
      const tools = toolsOf(params);
      if (!tools) return result;
      const held = new Set<string>();
      const stream = result.stream.pipeThrough(
        new TransformStream<StreamPart, StreamPart>({
          transform(part, controller) {
            // Deltas of a call are held: the call is emitted whole, gated, when it is complete.
            if (part.type === 'tool-input-start' && !part.providerExecuted) {
              held.add(part.id);
              return;
            }
            if ((part.type === 'tool-input-delta' || part.type === 'tool-input-end') && held.has(part.id)) return;
            if (part.type === 'tool-call') {
              const call = applied(part, judge(tools, part));
              if (held.delete(part.toolCallId)) {
                controller.enqueue({ type: 'tool-input-start', id: call.toolCallId, toolName: call.toolName });
                controller.enqueue({ type: 'tool-input-delta', id: call.toolCallId, delta: call.input });
                controller.enqueue({ type: 'tool-input-end', id: call.toolCallId });
              }
              controller.enqueue(call);
              return;
            }
            controller.enqueue(part);
          },
        }),
      );
      return { ...result, stream };
    },
  };
}

/**
 * For generateText/streamText's `experimental_repairToolCall`: the gate's repair of a call the AI SDK
 * found invalid (no such tool, or input that fails its schema); null (the AI SDK's own error) when the
 * gate blocks it too.
 */
export async function reboundRepairToolCall<T extends ToolSet>(options: Parameters<ToolCallRepairFunction<T>>[0]): ReturnType<ToolCallRepairFunction<T>> {
  const { toolCall, tools, inputSchema } = options;
  const specs = await Promise.all(Object.keys(tools).map(async (name) => ({ name, parameters: (await inputSchema({ toolName: name })) as never })));
  const v = gate({ id: toolCall.toolCallId, name: toolCall.toolName, arguments: toolCall.input }, specs);
  if (v.verdict === 'blocked') return null;
  return { ...toolCall, toolName: v.call.name, input: JSON.stringify(v.call.args) };
}

export { blockedToolResult } from '../blocked-result.ts';
