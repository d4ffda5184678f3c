// What the model is told of a call the gate blocked, in the one shape every host uses: Rebound's loop
// (its tool message), its gateway (the tool message of a re-ask) and the adapters (the tool result of a
// re-ask). The gate's message and suggestions, the nearest folder's listing for a missing path, and what
// the host adds of its own: a note after the message (the loop breaker's escalation of a repeat) and the
// tool's parameters with one valid example. A call that passed is never re-asked (splitCalls in
// held-answer.ts: it goes out), so nothing is said of it.
import type { JSONSchema, Verdict } from './types.ts';

/** A type alias, not an interface: JSON value types (the AI SDK's JSONValue) take it as it is. */
export type BlockedToolResult = {
  ok: false;
  error: string;
  suggestions?: string[];
  listing?: { folder: string; entries: string[] };
  schema?: JSONSchema;
  example?: unknown;
};

/** What a host adds to the gate's message: a note on its own line, the tool's parameters and an example. */
export interface BlockedNote {
  note: string;
  shown?: { schema: JSONSchema; example: unknown };
}

/** What the model is told of a blocked call: `{ok: false, error, suggestions, listing?}` and the host's note. */
export function blockedToolResult(v: Extract<Verdict, { verdict: 'blocked' }>, also: BlockedNote | null = null): BlockedToolResult {
  return {
    ok: false,
    error: also ? `${v.message}\n${also.note}` : v.message,
    suggestions: v.suggestions,
    ...(v.listing ? { listing: v.listing } : {}),
    ...also?.shown,
  };
}
