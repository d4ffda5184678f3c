// Local mode answers only requests addressed to this machine by name. Without auth, the one thing
// between a web page and the API is that the server listens on loopback; DNS rebinding gets around
// that (evil.example resolves to 127.0.0.1 after the page has loaded), but the browser still sends
// `Host: evil.example`, so refusing any Host but the loopback names (and ALLOWED_HOSTS) closes it.
// The check runs in local-guard.ts, the local mode's one middleware.
import type { Context } from 'hono';
import { HOST_NAME } from '../../config.ts';
import { isLoopbackHost } from '../auth/env.ts';
import { ApiError, errorResponse } from '../errors.ts';

/** The 403 for a request whose Host is neither a loopback name nor in `allowed` (ALLOWED_HOSTS); undefined when it is served. */
export function refuseHost(c: Context, host: string, allowed: ReadonlySet<string>): Response | undefined {
  const name = hostName(host);
  if (name !== null && (isLoopbackHost(name) || allowed.has(name))) return undefined;
  return errorResponse(
    c,
    new ApiError(
      403,
      'host_not_allowed',
      `Host ${JSON.stringify(host)} is not served: without authentication this server answers only loopback names (127.0.0.1, localhost, [::1]). ` +
        'Open it at http://127.0.0.1:<port>/, or add the name to ALLOWED_HOSTS (comma-separated) if you trust every page that can reach it.',
    ),
  );
}

/** "LocalHost:8787" → "localhost", "[::1]:8787" → "[::1]"; null for anything that is not a host[:port]. */
export function hostName(host: string): string | null {
  const value = host.trim().toLowerCase();
  const close = value.startsWith('[') ? value.indexOf(']') + 1 : 0;
  const colon = value.indexOf(':', close);
  const name = colon === -1 ? value : value.slice(0, colon);
  const port = colon === -1 ? '' : value.slice(colon + 1);
  if (colon !== -1 && !/^\d{1,5}$/.test(port)) return null;
  return HOST_NAME.test(name) ? name : null;
}
