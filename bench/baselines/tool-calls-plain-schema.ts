// Baseline (a): what agent frameworks do today — JSON.parse, look the tool up by exact name, validate
// against the JSON Schema as written (standard semantics: extra keys are allowed unless the schema
// says `additionalProperties: false`), and reject on any error. Nothing is ever repaired.
import { validate } from '../../src/gate/schema.ts';
import type { ProposedCall, ToolSpec } from '../../src/gate/types.ts';

export type BaselineVerdict = { verdict: 'pass' | 'blocked'; args?: Record<string, unknown> };

export function plainSchemaValidate(call: ProposedCall, tools: readonly ToolSpec[]): BaselineVerdict {
  const tool = tools.find((t) => t.name === call.name);
  if (!tool) return { verdict: 'blocked' };
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    return { verdict: 'blocked' };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { verdict: 'blocked' };
  return validate(args, tool.parameters, { strictTopLevel: false }).length === 0
    ? { verdict: 'pass', args: args as Record<string, unknown> }
    : { verdict: 'blocked' };
}
