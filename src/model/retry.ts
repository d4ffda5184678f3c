// Upstream failures are retried only while nothing has reached the client: once a text delta has
// been forwarded, a retry would repeat it, so the error surfaces instead.
import { delay } from '../delay.ts';
import { ModelError, type ModelClient, type ModelEvent, type ModelRequest } from './types.ts';

export interface RetryOptions {
  retries: number;
  baseDelayMs?: number;
  onRetry?: (attempt: number, error: ModelError) => void;
}

export async function* streamWithRetry(model: ModelClient, request: ModelRequest, options: RetryOptions): AsyncIterable<ModelEvent> {
  for (let attempt = 0; ; attempt++) {
    let yielded = false;
    try {
      for await (const event of model.stream(request)) {
        yielded = true;
        yield event;
      }
      return;
    } catch (err) {
      const retryable = err instanceof ModelError && err.retryable;
      if (!retryable || yielded || attempt >= options.retries || request.signal.aborted) throw err;
      options.onRetry?.(attempt + 1, err);
      await delay(backoff(attempt, options.baseDelayMs ?? 250), { signal: request.signal });
    }
  }
}

/** Exponential backoff with full jitter, capped at 4 s. */
function backoff(attempt: number, base: number): number {
  return Math.random() * Math.min(4_000, base * 2 ** attempt);
}
