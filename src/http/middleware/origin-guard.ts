// Local mode accepts a POST from a browser only from its own pages or from CORS_ORIGINS. Without
// auth, any page the user visits could otherwise POST to http://127.0.0.1:8787 and start turns
// (CSRF: the credential is the network position, which the browser lends to every site). Requests
// without an Origin header are not from a browser's cross-site fetch or form, so they pass.
// The check runs in local-guard.ts, the local mode's one middleware.
import type { Context } from 'hono';
import { ApiError, errorResponse } from '../errors.ts';
import { hostName } from './host-guard.ts';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The 403 for a request that is not safe (GET, HEAD, OPTIONS) and comes from an Origin that is neither
 * the request's own `host` nor in `allowed` (CORS_ORIGINS, compared exactly as CORS does); undefined when it passes.
 */
export function refuseOrigin(c: Context, host: string, allowed: ReadonlySet<string>): Response | undefined {
  const origin = c.req.header('origin');
  if (origin === undefined || allowed.has(origin) || SAFE.has(c.req.method) || sameHost(origin, host)) return undefined;
  return errorResponse(
    c,
    new ApiError(
      403,
      'origin_not_allowed',
      `${c.req.method} from origin ${JSON.stringify(origin)} refused: without authentication this server accepts browser requests only from its own pages (an origin whose host is ${JSON.stringify(host)}). ` +
        'Add the origin to CORS_ORIGINS (comma-separated) to allow it.',
    ),
  );
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
