// Minimal gate: the tool exists and the arguments parse as a JSON object. The full layered gate
// (arguments text → tool name → schema → paths → content) replaces the body of `gate` and keeps
// this signature.
import type { GateContext, ProposedCall, ToolSpec, Verdict } from './types.ts';

export type * from './types.ts';

export function gate(call: ProposedCall, toolset: readonly ToolSpec[], _context: GateContext = {}): Verdict {
  const tool = toolset.find((t) => t.name === call.name);
  if (!tool) {
    const names = toolset.map((t) => t.name);
    const message = `Unknown tool "${call.name}". Available tools: ${names.join(', ')}.`;
    return {
      verdict: 'blocked',
      category: 'phantom_tool',
      problems: [{ category: 'phantom_tool', path: '$', message }],
      suggestions: names.slice(0, 3),
      message,
      invented: [],
    };
  }
  let args: unknown;
  try {
    args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch {
    const message = `The arguments of ${call.name} are not valid JSON. Send one JSON object.`;
    return {
      verdict: 'blocked',
      category: 'malformed_json',
      problems: [{ category: 'malformed_json', path: '$', message }],
      suggestions: [],
      message,
      invented: [],
    };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    const message = `The arguments of ${call.name} must be a JSON object.`;
    return {
      verdict: 'blocked',
      category: 'wrong_type',
      problems: [{ category: 'wrong_type', path: '$', message }],
      suggestions: [],
      message,
      invented: [],
    };
  }
  return { verdict: 'pass', category: 'valid', call: { id: call.id, name: tool.name, args: args as Record<string, unknown> }, invented: [] };
}
