// rebound-gate/ai-sdk: the gate as an AI SDK language-model middleware, for wrapLanguageModel.
// Every tool call of the model's answer is gated against the call's own function tools before the AI
// SDK sees it, with the policy of Rebound's gateway: a call that passes goes out, repaired under the
// same id if it was; when a call is blocked, the model is asked again for the blocked calls up to
// `retries` times with the gate's message as each one's tool result (blockedToolResult, the shape the
// gateway and the loop send), and a call still blocked goes out unchanged: never worse than no
// middleware. Calls written into the text of an answer that sent none (`{"name": …, "arguments": …}`,
// <tool_call> tags, as the gateway reads them) become real tool calls, the text without them kept.
// doGenerate: generate.ts; doStream (text shown as it comes except where it may be a call, calls held
// until complete): stream.ts. `reboundRepairToolCall` is the same gate as the AI SDK's
// `experimental_repairToolCall`. `ai` is an optional peer dependency, used for its types only.
import type { LanguageModelMiddleware, ToolCallRepairFunction, ToolSet } from 'ai';
import { gate } from '../index.ts';
import { toolsOf } from './calls.ts';
import { gatedGenerate } from './generate.ts';
import { gatedStream } from './stream.ts';

export interface ReboundMiddlewareOptions {
  /** Re-asks of the model for an answer with a blocked call (default 1; 0: never). */
  retries?: number;
}

export function reboundMiddleware(options: ReboundMiddlewareOptions = {}): LanguageModelMiddleware {
  const retries = options.retries ?? 1;
  return {
    specificationVersion: 'v4',
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const first = await doGenerate();
      const tools = toolsOf(params);
      if (!tools) return first;
      return gatedGenerate({ first, params, tools, retries, model });
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
