// What both tool-call baselines start with: the tool by its exact name, the arguments by JSON.parse,
// and an object, or nothing.
import type { ProposedCall, ToolSpec } from 'rebound-gate';

export function exactCall(call: ProposedCall, tools: readonly ToolSpec[]): { tool: ToolSpec; args: Record<string, unknown> } | undefined {
  const tool = tools.find((t) => t.name === call.name);
  if (!tool) return undefined;
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    return undefined;
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  return { tool, args: args as Record<string, unknown> };
}
