// Local mode accepts a POST from a browser only from its own pages or from CORS_ORIGINS. Without
// auth, any page the user visits could otherwise POST to http://127.0.0.1:8787 and start turns
// (CSRF: the credential is the network position, which the browser lends to every site). Requests
// without an Origin header are not from a browser's cross-site fetch or form, so they pass.
import type { MiddlewareHandler } from 'hono';
import { ApiError, errorResponse } from '../errors.ts';
import { hostName } from './host-guard.ts';

export interface OriginGuardOptions {
  /** Origins allowed besides the server's own (Config.corsOrigins), compared exactly as CORS does. */
  allowedOrigins: readonly string[];
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

export function originGuard(options: OriginGuardOptions): MiddlewareHandler {
  const allowed = new Set(options.allowedOrigins);
  return async function originGuard(c, next) {
    const origin = c.req.header('origin');
    if (SAFE.has(c.req.method) || origin === undefined || allowed.has(origin)) return next();
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (sameHost(origin, host)) return next();
    return errorResponse(
      c,
      new ApiError(
        403,
        'origin_not_allowed',
        `${c.req.method} from origin ${JSON.stringify(origin)} refused: without authentication this server accepts browser requests only from its own pages (an origin whose host is ${JSON.stringify(host)}). ` +
          'Add the origin to CORS_ORIGINS (comma-separated) to allow it.',
      ),
    );
  };
}

/** Whether the Origin names the request's own host and port ("null" and unparseable values never do). */
function sameHost(origin: string, host: string): boolean {
  try {
    const url = new URL(origin);
    // Through URL as well, so that an explicit default port ("localhost:80") compares equal to none.
    return url.origin !== 'null' && hostName(host) !== null && url.host === new URL(`${url.protocol}//${host}`).host;
  } catch {
    return false;
  }
}
