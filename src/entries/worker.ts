// Cloudflare Worker entry (wrangler.toml `main`). Env bindings only exist inside fetch, so the
// dependencies are built on the first request and kept for the isolate's life.
import type { ExecutionContext, Hono } from 'hono';
import { createApp } from '../http/app.ts';
import { isLoopbackRequest } from '../http/auth-env.ts';
import { edgeDeps, stringEnv } from './edge.ts';

let app: Hono | undefined;

export default {
  fetch(request: Request, env: Record<string, unknown>, ctx: ExecutionContext): Response | Promise<Response> {
    // On Cloudflare's edge a request is routed by its public hostname, so a loopback URL means
    // `wrangler dev` on this machine: the only place the Worker may run without auth settings.
    // The activity flush goes to this request's ctx.waitUntil (Hono's c.executionCtx).
    app ??= createApp(edgeDeps(stringEnv(env), { name: 'Cloudflare Workers', local: isLoopbackRequest }));
    return app.fetch(request, env, ctx);
  },
};
