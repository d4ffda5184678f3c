// Cloudflare Worker entry: scripts/build-worker.ts builds wrangler.toml's `main` from it. Turns run in a
// Durable Object (TurnObject, bound as TURNS) so that they outlive their clients; turn-routing.ts says
// which requests go there. Env bindings only exist inside fetch, so the Worker's own app is built on the
// first request and kept for the isolate's life.
import type { ExecutionContext, Hono } from 'hono';
import { createApp } from '../http/app.ts';
import { isLoopbackRequest } from '../http/auth/env.ts';
import { edgeDeps, sharedStorage, stringEnv } from './edge.ts';
import { dispatch, type ObjectNamespace } from './turn-routing.ts';

export { TurnObject } from './turn-object.ts';

let app: Hono | undefined;

export default {
  fetch(request: Request, env: Record<string, unknown>, ctx: ExecutionContext): Response | Promise<Response> {
    // On Cloudflare's edge a request is routed by its public hostname, so a loopback URL means
    // `wrangler dev` on this machine: the only place the Worker may run without auth settings.
    // The activity flush goes to this request's ctx.waitUntil (Hono's c.executionCtx).
    // Without the TURNS binding turns run here, and the next request that touches a waiting one expires it;
    // with it, the turn's object does (its alarm).
    app ??= createApp(
      edgeDeps(stringEnv(env), {
        name: 'Cloudflare Workers',
        local: isLoopbackRequest,
        ...(env.TURNS ? {} : { approvalExpiry: { kind: 'request' } as const }),
      }),
    );
    const serve = (r: Request) => app!.fetch(r, env, ctx);
    const objects = env.TURNS as ObjectNamespace | undefined;
    if (!objects) {
      warnNotDurable();
      return serve(request);
    }
    return dispatch(request, { storage: sharedStorage(stringEnv(env)) ? 'shared' : 'isolate', serve, objects });
  },
};

let warned = false;
function warnNotDurable(): void {
  if (warned) return;
  warned = true;
  console.warn(
    'rebound: no TURNS Durable Object binding: turns run in the Worker and end about 30 s after their client leaves. Bind TurnObject as wrangler.toml does.',
  );
}
