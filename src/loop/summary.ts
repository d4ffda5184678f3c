// The forced summary: when a budget runs out, or the model keeps repeating calls that fail, one last
// model call with the tools still declared (so the prompt prefix, and the provider's prompt cache, stay
// the same) but tool_choice "none". After no progress it is told what kept failing, so that the user
// hears it.
import { echo } from 'rebound-gate/internal';
import type { SummaryReason } from '../vocabulary.ts';

const SUMMARY_INSTRUCTION =
  'Do not call any tool. In at most 6 short lines, tell the user: what was done, what failed or is unfinished, and the single next step.';

/** A failure the model kept repeating: the tool as it named it, what went wrong, how many times. */
export interface RepeatedFailure {
  tool: string;
  /** A few words: "no such tool", "invalid arguments (missing_required)", "the tool failed", "withheld". */
  what: string;
  times: number;
}

/** At most this many repeated failures are named in a summary. */
const MAX_NAMED = 3;

/** The repeated failures in one line: `"update_customer_profile" (no such tool, 3 times)`. */
export function describeFailures(failures: readonly RepeatedFailure[]): string {
  const named = failures.slice(0, MAX_NAMED).map((f) => `"${echo(f.tool, 80)}" (${f.what}, ${f.times} times)`);
  const more = failures.length > MAX_NAMED ? ` and ${failures.length - MAX_NAMED} more` : '';
  return `${named.join(', ')}${more}`;
}

export function summaryRequest(reason: SummaryReason, failures: readonly RepeatedFailure[] = []): string {
  if (reason === 'no_progress') {
    return `You are making no progress: the same tool calls kept failing the same way: ${describeFailures(failures)}. Stop calling tools. ${SUMMARY_INSTRUCTION} Say plainly which call kept failing and why.`;
  }
  const what = reason === 'iteration_limit' ? 'the maximum number of steps' : 'the time budget';
  return `You have reached ${what} for this turn. ${SUMMARY_INSTRUCTION}`;
}

/** When the summary call itself fails: an honest fixed text built from what the loop knows. */
export function fallbackSummary(reason: SummaryReason, stats: { calls: number; failed: number }, failures: readonly RepeatedFailure[] = []): string {
  const head =
    reason === 'no_progress'
      ? `I stopped because the same tool calls kept failing: ${describeFailures(failures)}. I could not write a summary.`
      : `I reached ${reason === 'iteration_limit' ? 'the step limit' : 'the time budget'} before finishing, and I could not write a summary.`;
  const next =
    reason === 'no_progress'
      ? 'Next step: rephrase the request, or check that the tool it needs is available.'
      : 'Next step: send "continue" to pick up from here.';
  return [head, `Tool calls made: ${stats.calls} (${stats.failed} failed or blocked).`, next].join('\n');
}
