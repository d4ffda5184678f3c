// The forced summary: when a budget runs out, one last model call with the tools still declared
// (so the prompt prefix, and the provider's prompt cache, stay the same) but tool_choice "none".
import type { SummaryReason } from '../vocabulary.ts';

const SUMMARY_INSTRUCTION =
  'Do not call any tool. In at most 6 short lines, tell the user: what was done, what failed or is unfinished, and the single next step.';

export function summaryRequest(reason: SummaryReason): string {
  const what = reason === 'iteration_limit' ? 'the maximum number of steps' : 'the time budget';
  return `You have reached ${what} for this turn. ${SUMMARY_INSTRUCTION}`;
}

/** When the summary call itself fails: an honest fixed text built from what the loop knows. */
export function fallbackSummary(reason: SummaryReason, stats: { calls: number; failed: number }): string {
  const what = reason === 'iteration_limit' ? 'the step limit' : 'the time budget';
  return [
    `I reached ${what} before finishing, and I could not write a summary.`,
    `Tool calls made: ${stats.calls} (${stats.failed} failed or blocked).`,
    'Next step: send "continue" to pick up from here.',
  ].join('\n');
}
