// The loop's deadlines: a signal that aborts after a time or with the turn's stop, whichever comes
// first (the time budget, the forced summary's timeout), and the error it aborts with.
/** What a deadline aborts with: the loop tells it from the stop by this class. */
export class BudgetExceeded extends Error {}

/** A signal that aborts after `ms`, or with `parent` (the stop). `dispose` clears the timer and the listener. */
export function abortAfter(ms: number, parent: AbortSignal, reason: () => Error): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(reason()), ms);
  const onAbort = () => controller.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      parent.removeEventListener('abort', onAbort);
    },
  };
}
