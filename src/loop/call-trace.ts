// What a proposed call's span records (src/telemetry/), from the call's outcome: the loop's one mapping
// into the tracing hooks' terms, beside the client's, the model's and the log's (src/calls/).
import { categoryOf, type CallOutcome } from '../calls/call-outcome.ts';
import type { CallEnd } from '../telemetry/index.ts';
import type { Tool } from '../tools/types.ts';

/** A withheld call reads as the client's tool_result reads it: blocked, in the category repeated_failure. */
export function traceEnd(outcome: CallOutcome, tools: ReadonlyMap<string, Tool>): CallEnd {
  const category = categoryOf(outcome);
  if (outcome.kind === 'withheld') return { outcome: 'withheld', category, verdict: undefined, escalation: 'withheld' };
  const escalation = outcome.escalation ? (outcome.escalation.withheld ? 'withheld' : `repeat ${outcome.escalation.repeats}`) : null;
  if (outcome.kind === 'blocked') return { outcome: 'blocked', category, verdict: outcome.verdict, escalation };
  if (outcome.kind === 'denied' || outcome.kind === 'expired')
    return { outcome: outcome.kind, category, verdict: outcome.verdict, escalation: null, approval: outcome.approval };
  const tool = tools.get(outcome.verdict.call.name);
  const { execution } = outcome;
  return {
    outcome: 'executed',
    category,
    verdict: outcome.verdict,
    escalation,
    tool: tool && { name: tool.name, description: tool.description, mcp: tool.origin },
    ok: execution.ok,
    error: execution.ok ? null : execution.error,
    timedOut: !execution.ok && execution.timedOut,
    result: execution.ok ? execution.json : undefined,
    ...(outcome.approval ? { approval: outcome.approval } : {}),
    ...(outcome.elicitation ? { elicitation: outcome.elicitation } : {}),
  };
}
