// The fetch the remote JWKS is loaded with (jose's customFetch), remembering failures. jose retries a
// failed load on the next token, so a JWKS URL that hangs cost every request its whole timeout (5 s),
// and one that refused the connection surfaced as whatever the runtime throws. Here a failure (no
// answer in time, a refused or broken connection, a status other than 200, a body that is not a key
// set) is remembered, and until its backoff has passed every load fails at once, without a connection:
// a hanging JWKS costs one timeout per backoff period, not one per request. The backoff doubles with
// each failure in a row, up to maxMs; an answer that is a key set ends it. Every failure is a
// JwksUnavailableError, which jwt.ts answers as 503 auth_unavailable (docs/configuration.md § Keys).

export interface JwksBackoffOptions {
  /** The wait after a first failure; doubled after each further one in a row. */
  firstMs: number;
  /** The longest wait between two attempts. */
  maxMs: number;
  /** For tests: the clock. */
  now?: () => number;
  /** For tests: the fetch behind this one. */
  fetch?: typeof fetch;
}

/** The JWKS could not be loaded now (the reason, and when it is tried again). */
export class JwksUnavailableError extends Error {
  override name = 'JwksUnavailableError';
}

export interface BackoffFetch {
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** Connections attempted so far (for the startup line's tests and benches: never a timing). */
  attempts(): number;
}

export function jwksBackoffFetch(options: JwksBackoffOptions): BackoffFetch {
  const now = options.now ?? Date.now;
  const inner = options.fetch ?? fetch;
  let attempts = 0;
  let failures = 0;
  let retryAt = 0;
  let reason = '';

  const failed = (why: string, cause?: unknown): JwksUnavailableError => {
    failures++;
    const wait = Math.min(options.maxMs, options.firstMs * 2 ** (failures - 1));
    retryAt = now() + wait;
    reason = why;
    return new JwksUnavailableError(`${why} (tried again in ${Math.ceil(wait / 1000)} s)`, cause === undefined ? undefined : { cause });
  };

  return {
    attempts: () => attempts,
    async fetch(url, init) {
      if (now() < retryAt) {
        throw new JwksUnavailableError(`${reason}; ${failures} failure(s) in a row, tried again in ${Math.ceil((retryAt - now()) / 1000)} s`);
      }
      attempts++;
      let response: Response;
      try {
        response = await inner(url, init);
      } catch (err) {
        const timeout = (err as Error | null)?.name === 'TimeoutError' || (err as Error | null)?.name === 'AbortError';
        throw failed(timeout ? 'the JWKS did not answer in time' : `the JWKS could not be reached: ${(err as Error | null)?.message ?? String(err)}`, err);
      }
      if (response.status !== 200) {
        await response.body?.cancel();
        throw failed(`the JWKS answered HTTP ${response.status}, not 200`);
      }
      let text: string;
      try {
        text = await response.text();
      } catch (err) {
        throw failed('the JWKS response broke off', err);
      }
      let keys: unknown;
      try {
        keys = (JSON.parse(text) as { keys?: unknown } | null)?.keys;
      } catch {
        keys = undefined;
      }
      if (!Array.isArray(keys)) throw failed('the JWKS answer is not a key set ({"keys":[…]})');
      failures = 0;
      retryAt = 0;
      return new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
    },
  };
}
