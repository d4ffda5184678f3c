// rebound-gate/ai-sdk: the gate as an AI SDK language-model middleware, for wrapLanguageModel.
// Every tool call of the model's answer is gated against the call's own function tools before the AI
// SDK sees it: a repaired call goes out repaired under the same id; an answer with a blocked call is
// re-asked up to `retries` times with the gate's message as the call's tool result (blockedToolResult,
// the shape Rebound's gateway and loop send), and a call still blocked goes out unchanged: never worse
// than no middleware. Calls written into the text of an answer that sent none (`{"name": …,
// "arguments": …}`, <tool_call> tags, as the gateway reads them) become real tool calls, the text
// without them kept. doGenerate does this on the whole answer; doStream (stream.ts) as the gateway
// streams: text shown as it comes except where it may be a call, calls held until complete.
// `reboundRepairToolCall` is the same gate as the AI SDK's `experimental_repairToolCall`. `ai` is an
// optional peer dependency, used for its types only.
import type { LanguageModelMiddleware, ToolCallRepairFunction, ToolSet } from 'ai';
import { gate } from '../index.ts';
import type { CompiledTools } from '../tools.ts';
import {
  addUsage,
  applied,
  type CallOptions,
  type Content,
  finishReason,
  type GatedToolCall,
  type GenerateResult,
  isBlocked,
  judge,
  reask,
  textCalls,
  toolsOf,
} from './calls.ts';
import { gatedStream } from './stream.ts';

export interface ReboundMiddlewareOptions {
  /** Re-asks of the model for an answer with a blocked call (default 1; 0: never). */
  retries?: number;
}

/** An answer through the gate: its calls (those written into its text, if it sent none) gated, and its content as they leave it. */
function gateAnswer(tools: CompiledTools, answer: GenerateResult, params: CallOptions, last: boolean) {
  const text = answer.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
  const sentCalls = answer.content.some((p) => p.type === 'tool-call');
  const found = sentCalls ? null : textCalls(tools, text, params, { last });
  const calls: GatedToolCall[] = [];
  let content: Content[] = answer.content.map((part) => {
    if (part.type !== 'tool-call') return part;
    const g = judge(tools, part);
    calls.push(g);
    return applied(g);
  });
  if (found) {
    calls.push(...found.calls);
    const visible = found.visibleText.trim() === '' ? [] : [{ type: 'text' as const, text: found.visibleText }];
    content = [...visible, ...content.filter((p) => p.type !== 'text'), ...found.calls.map(applied)];
  }
  const gated = calls.filter((g) => g.verdict !== undefined);
  return { calls, content, visibleText: found ? found.visibleText : text, finishReason: finishReason(answer.finishReason, gated, sentCalls) };
}

export function reboundMiddleware(options: ReboundMiddlewareOptions = {}): LanguageModelMiddleware {
  const retries = options.retries ?? 1;
  return {
    specificationVersion: 'v4',
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const tools = toolsOf(params);
      if (!tools) return doGenerate();
      let answer = await doGenerate();
      let ask = params;
      let usage = answer.usage;
      for (let attempt = 1; ; attempt++) {
        const gated = gateAnswer(tools, answer, ask, attempt > retries);
        const out = { ...answer, content: gated.content, finishReason: gated.finishReason, usage };
        // No blocked call, or no retry left: the answer goes out, repairs applied, a blocked call as the model wrote it.
        if (!gated.calls.some(isBlocked) || attempt > retries) return out;
        ask = reask(ask, gated.visibleText, gated.calls);
        const next = await Promise.resolve(model.doGenerate(ask)).catch(() => null);
        // The re-ask itself failed: the answer stands as the model gave it.
        if (!next) return out;
        answer = next;
        usage = addUsage(usage, next.usage);
      }
    },
    wrapStream: async ({ doStream, params, model }) => {
      const result = await doStream();
      const tools = toolsOf(params);
      if (!tools) return result;
      return { ...result, stream: gatedStream({ first: result.stream, params, tools, retries, model }) };
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
