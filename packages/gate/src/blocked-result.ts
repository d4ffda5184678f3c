// What an adapter tells the model when it re-asks for a blocked answer, one tool result per call of that
// answer: the gate's message and suggestions for a blocked call (as the gateway and the loop tell it),
// and for a call that passed, that it was not run because another call of the same answer was blocked.
import type { Verdict } from './types.ts';

/** A type alias, not an interface: JSON value types (the AI SDK's JSONValue) take it as it is. */
export type BlockedToolResult = {
  ok: false;
  error: string;
  suggestions?: string[];
};

/** What the model is told of a blocked call, as the gateway tells it. */
export function blockedToolResult(v: Extract<Verdict, { verdict: 'blocked' }>): BlockedToolResult {
  return { ok: false, error: v.message, suggestions: v.suggestions };
}

/** What the model is told of a call that passed in an answer the adapter re-asks for. */
export const NOT_RUN_RESULT: BlockedToolResult = { ok: false, error: 'Not run: another call of the same answer was blocked. Send all the calls again.' };
