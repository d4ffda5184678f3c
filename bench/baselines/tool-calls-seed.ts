// Baseline (b): the seed validator as the seeds describe it — the tool must exist by exact name, the
// arguments must parse as a JSON object, and every top-level `required` name must be present. No type,
// enum or nested checks, no repairs.
import type { ProposedCall, ToolSpec } from '../../src/gate/types.ts';
import type { BaselineVerdict } from './tool-calls-plain-schema.ts';

export function seedValidate(call: ProposedCall, tools: readonly ToolSpec[]): BaselineVerdict {
  const tool = tools.find((t) => t.name === call.name);
  if (!tool) return { verdict: 'blocked' };
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    return { verdict: 'blocked' };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { verdict: 'blocked' };
  for (const name of tool.parameters.required ?? []) {
    if (!(name in args)) return { verdict: 'blocked' };
  }
  return { verdict: 'pass', args: args as Record<string, unknown> };
}
