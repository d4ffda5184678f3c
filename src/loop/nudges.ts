// What the loop tells the model between iterations. Models stall in two ways: they narrate the
// next step instead of taking it, and they ignore a tool's explicit follow-up. Both get a nudge.

/** The chaining directive a tool's result may carry: `{"_next_action": {"instruction": "…"}}`. */
export function nextActionOf(result: unknown): string | null {
  if (typeof result !== 'object' || result === null) return null; // text, a number…: tolerated, nothing to chain
  const next = (result as { _next_action?: unknown })._next_action;
  if (typeof next !== 'object' || next === null) return null;
  const instruction = (next as { instruction?: unknown }).instruction;
  return typeof instruction === 'string' && instruction.trim() ? instruction.trim() : null;
}

/**
 * The user-role message appended after a batch of tool results. `repeated`: a call of the batch
 * repeated a failure of this turn; then the model is told what to do instead, never to call on.
 */
export function continuationNudge(directives: string[], repeated = false): string {
  const lines = directives.map((d) => `MANDATORY NEXT STEP: ${d}`);
  if (repeated) lines.push(REPEATED);
  return lines.length > 0 ? lines.join('\n') : CONTINUE;
}

const CONTINUE =
  'The tool results are above. If the task needs another step, call the next tool now instead of describing it. If it is done, give the final answer.';

export const REPEATED =
  'The tool results are above. A call failed again exactly as before: do not send it again. Either call one of the available tools listed in the error, with arguments that fit its schema, or answer without tools and tell the user what did not work.';

export const NARRATION_NUDGE =
  'You described an action but did not call a tool. If you meant to act, call the tool now. If you are done, give the final answer without announcing further steps.';

// First-person intent about to act ("I'll now read…", "Let me check…", "Next, I will update…"),
// near the end of the reply: narrating instead of calling.
const INTENT =
  /\b(?:I(?:'ll| will| am going to|'m going to| shall)|let me|let's|next,? I(?:'ll| will)?|now I(?:'ll| will)?)\s+(?:now\s+|first\s+|then\s+|go ahead and\s+)?(?:read|open|check|look|write|create|update|edit|modify|fix|patch|run|call|search|list|delete|save|apply|inspect|fetch|use|try|add|change|rename|move|implement)\b/i;

/** True when the text ends by announcing an action the model has not taken. */
export function isNarratedAction(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed || trimmed.length > 2_000) return false;
  const tail = trimmed.slice(-300);
  if (!INTENT.test(tail)) return false;
  // A question back to the user is a legitimate stop, not narration.
  return !/\?\s*$/.test(trimmed);
}
