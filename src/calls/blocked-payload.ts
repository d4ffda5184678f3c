// What the model is told of a call the gate blocked: the loop's tool message for it, and what the
// gateway sends back when it re-asks the upstream. Plain data in, plain data out, free of any server
// type (only the gate's verdict and the tool message's payload shape), so the gate package can take it.
import type { ToolResultPayload } from '../vocabulary.ts';
import type { BlockedVerdict, Escalation } from './types.ts';

export function blockedPayload(verdict: BlockedVerdict, escalation: Pick<Escalation, 'note' | 'shown'> | null = null): ToolResultPayload {
  return {
    ok: false,
    error: escalation ? `${verdict.message}\n${escalation.note}` : verdict.message,
    suggestions: verdict.suggestions,
    ...(verdict.listing ? { listing: verdict.listing } : {}),
    ...escalation?.shown,
  };
}
