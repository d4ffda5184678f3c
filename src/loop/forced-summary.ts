// The forced summary (docs/architecture.md § One turn, as data): when a budget runs out (iterations,
// time, no progress), one last model call with the tools still declared but none allowed writes what
// the user should know; if it fails or says nothing, a fixed text built from the turn's stats does.
import type { DoneReason, Emit, SummaryReason } from '../vocabulary.ts';
import { abortAfter, BudgetExceeded } from './abort-after.ts';
import { CompletionAborted, streamCompletion } from './completion.ts';
import { fallbackSummary } from './summary.ts';
import type { ModelClient } from '../model/types.ts';
import type { TurnTrace } from '../telemetry/index.ts';
import type { TurnState } from './turn-state.ts';

/** How long the summary's model call may take when TurnLimits.summaryTimeoutMs names nothing. */
const DEFAULT_SUMMARY_TIMEOUT_MS = 20_000;

/** A budget ran out: one last call with no tools allowed writes the summary, or a fixed text says what is known. */
export async function forcedSummary(
  {
    state,
    deps,
    emit,
    signal,
  }: { state: TurnState; deps: { model: ModelClient; trace?: TurnTrace; limits: { summaryTimeoutMs?: number } }; emit: Emit; signal: AbortSignal },
  reason: SummaryReason,
): Promise<DoneReason> {
  emit({ event: 'forced_summary', data: { reason } });
  deps.trace?.event('rebound.forced_summary', { 'rebound.summary.reason': reason, 'rebound.turn.iterations': state.iteration });
  const timeout = abortAfter(deps.limits.summaryTimeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS, signal, () => new BudgetExceeded('summary timeout'));
  let text = '';
  try {
    const request = state.summaryRequest(reason, timeout.signal);
    text = (await streamCompletion(deps.model, request, { retries: 0, emit, addUsage: (u) => state.addUsage(u), trace: deps.trace })).text;
  } catch (err) {
    if (signal.aborted) {
      if (err instanceof CompletionAborted && err.shownText.trim()) state.add({ role: 'assistant', content: err.shownText });
      return 'aborted';
    }
  } finally {
    timeout.dispose();
  }
  if (!text.trim()) {
    text = fallbackSummary(reason, state.stats, state.repeatedFailures());
    emit({ event: 'text_delta', data: { text } });
  }
  state.add({ role: 'assistant', content: text });
  return reason;
}
