// rebound-gate/langchain: the gate as a LangChain.js createAgent middleware (createMiddleware with
// wrapModelCall). Each model answer's tool_calls (and its invalid_tool_calls, whose arguments did not
// parse) are gated against the request's tools: a repaired call goes on repaired under the same id; an
// answer with a blocked call is re-asked up to `retries` times (default 1) with the gate's error as a
// ToolMessage for that call (the gateway's conversation shape), so the agent loop goes on from a call it
// can run; still blocked, the answer goes on as the model gave it. wrapModelCall rather than afterModel:
// it sees the request's tools and can re-ask the model itself. `langchain` and `@langchain/core` are
// optional peer dependencies, used only by this subpath.
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { createMiddleware } from 'langchain';
import { blockedToolResult, NOT_RUN_RESULT } from '../blocked-result.ts';
import { compileTools } from '../index.ts';
import type { CompiledTools } from '../tools.ts';
import type { JSONSchema, Verdict } from '../types.ts';

export interface ReboundLangChainOptions {
  /** Re-asks of the model for an answer with a blocked call (default 1; 0: never). */
  retries?: number;
}

type Blocked = Extract<Verdict, { verdict: 'blocked' }>;

function toolsOf(tools: readonly unknown[]): CompiledTools | undefined {
  const specs = tools.flatMap((t) => {
    const tool = t as { name?: unknown; description?: unknown; schema?: unknown };
    if (typeof tool.name !== 'string' || !tool.schema) return [];
    const parameters = toJsonSchema(tool.schema as never) as JSONSchema;
    return [{ name: tool.name, description: typeof tool.description === 'string' ? tool.description : undefined, parameters }];
  });
  return specs.length ? compileTools(specs) : undefined;
}

interface Gated {
  message: AIMessage;
  blocked: Array<{ id: string; name: string; verdict: Blocked }>;
}

function gateMessage(tools: CompiledTools, message: AIMessage): Gated {
  const blocked: Gated['blocked'] = [];
  const proposed = [
    ...(message.tool_calls ?? []).map((c) => ({ id: c.id ?? '', name: c.name, text: JSON.stringify(c.args) })),
    ...(message.invalid_tool_calls ?? []).map((c) => ({ id: c.id ?? '', name: c.name ?? '', text: c.args ?? '' })),
  ];
  if (proposed.length === 0) return { message, blocked };
  const calls = proposed.map((c) => {
    const v = tools.check({ id: c.id, name: c.name, arguments: c.text });
    if (v.verdict === 'blocked') {
      blocked.push({ id: c.id, name: c.name, verdict: v });
      let args: Record<string, unknown> = {};
      try {
        args = JSON.parse(c.text) as Record<string, unknown>;
      } catch {}
      return { id: c.id, name: c.name, args, type: 'tool_call' as const };
    }
    return { id: c.id, name: v.call.name, args: v.call.args, type: 'tool_call' as const };
  });
  if (blocked.length > 0) return { message, blocked };
  return {
    message: new AIMessage({
      id: message.id,
      content: message.content,
      tool_calls: calls,
      response_metadata: message.response_metadata,
      usage_metadata: message.usage_metadata,
    }),
    blocked,
  };
}

export function reboundMiddleware(options: ReboundLangChainOptions = {}) {
  const retries = options.retries ?? 1;
  return createMiddleware({
    name: 'ReboundGate',
    wrapModelCall: async (request, handler) => {
      const tools = toolsOf(request.tools ?? []);
      const first = await handler(request);
      if (!tools || !AIMessage.isInstance(first)) return first;
      let gated = gateMessage(tools, first);
      let messages = request.messages;
      for (let attempt = 0; gated.blocked.length > 0 && attempt < retries; attempt++) {
        const answer = gated.message;
        const told = [...(answer.tool_calls ?? []), ...(answer.invalid_tool_calls ?? [])].map((c) => {
          const b = gated.blocked.find((x) => x.id === c.id);
          const content = JSON.stringify(b ? blockedToolResult(b.verdict) : NOT_RUN_RESULT);
          return new ToolMessage({ tool_call_id: c.id ?? '', name: c.name ?? '', content });
        });
        const asked = new AIMessage({ content: answer.content, tool_calls: (answer.tool_calls ?? []).map((c) => ({ ...c })) });
        messages = [...messages, asked, ...told];
        const next = await handler({ ...request, messages });
        if (!AIMessage.isInstance(next)) return next;
        gated = gateMessage(tools, next);
      }
      return gated.message;
    },
  });
}
