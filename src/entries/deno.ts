// Deno glue for the Supabase Edge Function (supabase/functions/rebound/index.ts), also runnable with
// plain `deno run` for tests. Supabase routes /functions/v1/<name>/… to the function as /<name>/…,
// so the app is mounted under that prefix. Plain Deno on loopback without Supabase auth is local mode:
// it keeps nothing (sessions in memory), so its local access token is made per process and printed in
// the chat URL at start (src/http/auth/local-token.ts).
import { Hono } from 'hono';
import { ConfigError } from '../config.ts';
import { isLoopbackHost } from '../http/auth/env.ts';
import { createApp } from '../http/app.ts';
import { randomSecret } from '../http/random-secret.ts';
import { edgeDeps } from './edge.ts';

// Typed here rather than through Deno's lib so that tsc (Node types) checks this file too.
declare const Deno: {
  env: { toObject(): Record<string, string> };
  exit(code: number): never;
  serve(
    options: { port?: number; hostname?: string; onListen?: (addr: { hostname: string; port: number }) => void },
    handler: (request: Request) => Response | Promise<Response>,
  ): unknown;
};

interface EdgeRuntimeGlobal {
  waitUntil(promise: Promise<unknown>): void;
}

export function serveFunction(basePath: `/${string}`): void {
  const env = Deno.env.toObject();
  // Present on Supabase (hosted and `supabase functions serve`): keeps the worker alive for the activity flush.
  const edgeRuntime = (globalThis as { EdgeRuntime?: EdgeRuntimeGlobal }).EdgeRuntime;
  const localToken = randomSecret();
  const deps = orRefuse(edgeRuntime, () =>
    edgeDeps(env, {
      name: edgeRuntime ? 'Supabase Edge Functions' : 'Deno',
      // A Supabase function is always reachable from the internet; plain Deno knows its bind address.
      local: !edgeRuntime && isLoopbackHost(env.HOST ?? '127.0.0.1') && { token: () => localToken, where: 'printed at start, in the chat URL' },
      waitUntil: edgeRuntime ? (promise) => edgeRuntime.waitUntil(promise) : undefined,
      // No timer outlives a request on Supabase: the next request that touches a waiting turn or its session expires it.
      approvalExpiry: { kind: 'request' },
    }),
  );
  const app = createApp(deps);
  const root = new Hono().route(basePath, app);
  // The edge runtime decides the listener itself; plain Deno listens where PORT/HOST say (loopback by default).
  const listen = edgeRuntime
    ? {}
    : {
        port: Number(env.PORT ?? 8000),
        hostname: env.HOST ?? '127.0.0.1',
        onListen: (a: { hostname: string; port: number }) => {
          console.log(`rebound (deno) listening on http://${a.hostname}:${a.port}${basePath}`);
          // Local mode: the token rides in the chat URL, which the page keeps (the only place it is written).
          if (deps.auth.local)
            console.log(
              `  chat: http://${a.hostname}:${a.port}${basePath}?token=${localToken}   dashboard: http://${a.hostname}:${a.port}${basePath}/dashboard?token=${localToken}`,
            );
        },
      };
  Deno.serve(listen, root.fetch);
}

/**
 * A configuration mistake ends plain Deno with its lines alone, as it ends the Node entry (a stack
 * trace would bury the line that names the variable); on Supabase the runtime reports the boot error.
 */
function orRefuse<T>(edgeRuntime: unknown, make: () => T): T {
  try {
    return make();
  } catch (err) {
    if (edgeRuntime || !(err instanceof ConfigError)) throw err;
    console.error(err.message);
    return Deno.exit(1);
  }
}
