// Local mode's guards in one middleware (app.ts puts it on every route when there is no Supabase auth):
// the Host check against DNS rebinding (host-guard.ts), then the Origin check against CSRF
// (origin-guard.ts). One step of Hono's chain, not two, and the Host read once for both: each step is
// a few µs of every request's first byte (docs/benchmarks.md § The streaming paths at the physical limit).
import type { MiddlewareHandler } from 'hono';
import { refuseHost } from './host-guard.ts';
import { refuseOrigin } from './origin-guard.ts';

export interface LocalGuardOptions {
  /** Names served besides the loopback ones: lower case, without port (Config.allowedHosts). */
  allowedHosts: readonly string[];
  /** Origins allowed besides the server's own (Config.corsOrigins), compared exactly as CORS does. */
  allowedOrigins: readonly string[];
}

export function localGuard(options: LocalGuardOptions): MiddlewareHandler {
  const hosts = new Set(options.allowedHosts);
  const origins = new Set(options.allowedOrigins);
  // The last Host found served: whether one is is a function of its text and `hosts` alone, and a
  // client sends the same one with every request (its parse a µs or two of each).
  let served: string | undefined;
  return function localGuard(c, next) {
    // No Host header (app.request, HTTP/1.0): the URL's.
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    const foreign = host === served ? undefined : refuseHost(c, host, hosts);
    if (foreign) return Promise.resolve(foreign);
    served = host;
    const refused = refuseOrigin(c, host, origins);
    return refused ? Promise.resolve(refused) : next();
  };
}
