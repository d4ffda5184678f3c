// The retry policy: when a call stays blocked after the gate's repairs, the gateway asks the upstream
// again (at most GATEWAY_RETRIES times), with the conversation extended exactly as Rebound's loop
// extends it for a blocked call: the assistant message holding the call as the model wrote it, then
// a tool message carrying the gate's error (blockedToolResult, from rebound-gate); when a re-ask follows
// is rebound-gate/host's reaskLoop's to decide, one way for the gateway and the adapters. Only the
// blocked calls are sent back: the ones that passed have gone (or will go) to the client as they
// are, and the gateway has no result to report for them. The first answer without a blocked call
// ends the retries; when none comes, the last answer goes to the client unchanged.
import { blockedToolResult } from 'rebound-gate/host';
import type { GatedCall } from './gated-call.ts';

/** A message appended to the conversation for the retry (Chat Completions shape). */
export type RetryMessage =
  | { role: 'assistant'; content: string | null; tool_calls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> }
  | { role: 'tool'; tool_call_id: string; content: string };

export function blockedOf(calls: readonly GatedCall[]): GatedCall[] {
  return calls.filter((c) => c.verdict.verdict === 'blocked');
}

/** What the upstream is sent, after the conversation so far, to re-ask for the blocked calls. */
export function retryMessages(text: string, blocked: readonly GatedCall[]): RetryMessage[] {
  const assistant: RetryMessage = {
    role: 'assistant',
    content: text.trim() === '' ? null : text,
    tool_calls: blocked.map((c) => ({ id: c.proposed.id, type: 'function', function: { name: c.proposed.name, arguments: c.proposed.arguments } })),
  };
  return [assistant, ...blocked.map((c) => ({ role: 'tool' as const, tool_call_id: c.proposed.id, content: blockedResult(c) }))];
}

/** The tool result the loop sends for a blocked call: `{ok: false, error, suggestions, listing?}`. */
export function blockedResult(c: GatedCall): string {
  const v = c.verdict;
  if (v.verdict !== 'blocked') throw new Error('blockedResult: the call was not blocked');
  return JSON.stringify(blockedToolResult(v));
}
