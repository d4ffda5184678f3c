// Cloudflare Worker entry (wrangler.toml `main`). Env bindings only exist inside fetch, so the
// dependencies are built on the first request and kept for the isolate's life.
import type { ExecutionContext } from 'hono';
import { createApp } from '../http/app.ts';
import { isLoopbackRequest } from '../http/auth-env.ts';
import type { AppDeps } from '../http/deps.ts';
import { edgeDeps, stringEnv } from './edge.ts';

let deps: AppDeps | undefined;

export default {
  fetch(request: Request, env: Record<string, unknown>, ctx: ExecutionContext): Response | Promise<Response> {
    // On Cloudflare's edge a request is routed by its public hostname, so a loopback URL means
    // `wrangler dev` on this machine: the only place the Worker may run without auth settings.
    deps ??= edgeDeps(stringEnv(env), { name: 'Cloudflare Workers', local: isLoopbackRequest });
    // waitUntil belongs to this request's context, so the app is assembled per request around the
    // isolate's shared deps (~0.2 ms); the activity flush then outlives this response, not another's.
    return createApp({ ...deps, waitUntil: (promise) => ctx.waitUntil(promise) }).fetch(request, env, ctx);
  },
};
