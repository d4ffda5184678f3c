// The one way to wait: a timer that an abort signal cuts short. It resolves (never rejects) on abort,
// because every caller checks its signal right after waiting and decides what an abort means there.
export interface DelayOptions {
  signal?: AbortSignal;
  /** Node: let the process exit while only this timer is pending. */
  unref?: boolean;
}

export function delay(ms: number, options: DelayOptions = {}): Promise<void> {
  const { signal } = options;
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, Math.max(0, ms));
    if (options.unref) (timer as { unref?: () => void }).unref?.();
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
