// Baseline (b): the seed validator as the seeds describe it — the tool must exist by exact name, the
// arguments must parse as a JSON object, and every top-level `required` name must be present. No type,
// enum or nested checks, no repairs.
import type { ProposedCall, ToolSpec } from 'rebound-gate';
import type { BaselineVerdict } from './tool-calls-plain-schema.ts';
import { exactCall } from './exact-call.ts';

export function seedValidate(call: ProposedCall, tools: readonly ToolSpec[]): BaselineVerdict {
  const exact = exactCall(call, tools);
  if (!exact) return { verdict: 'blocked' };
  for (const name of exact.tool.parameters.required ?? []) {
    if (!(name in exact.args)) return { verdict: 'blocked' };
  }
  return { verdict: 'pass', args: exact.args };
}
