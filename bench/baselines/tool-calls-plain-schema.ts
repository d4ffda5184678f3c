// Baseline (a): what agent frameworks do today — JSON.parse, look the tool up by exact name, validate
// against the JSON Schema as written (standard semantics: extra keys are allowed unless the schema
// says `additionalProperties: false`), and reject on any error. Nothing is ever repaired.
import type { ProposedCall, ToolSpec } from 'rebound-gate';
import { validate } from 'rebound-gate/internal';
import { exactCall } from './exact-call.ts';

export type BaselineVerdict = { verdict: 'pass' | 'blocked'; args?: Record<string, unknown> };

export function plainSchemaValidate(call: ProposedCall, tools: readonly ToolSpec[]): BaselineVerdict {
  const exact = exactCall(call, tools);
  if (!exact) return { verdict: 'blocked' };
  return validate(exact.args, exact.tool.parameters, { strictTopLevel: false }).length === 0 ? { verdict: 'pass', args: exact.args } : { verdict: 'blocked' };
}
