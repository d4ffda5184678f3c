// The platform's waitUntil for work that outlives the response (a turn, an activity flush): the one
// handed to createApp (Supabase, a turn's Durable Object), else the request's execution context (Workers).
import type { Context } from 'hono';
import { carrierOf } from '../telemetry/index.ts';
import type { StartOptions } from '../turns/service.ts';
import type { AppDeps } from './deps.ts';

export function waitUntilFor(c: Context, deps: Pick<AppDeps, 'waitUntil'>): ((promise: Promise<unknown>) => void) | undefined {
  if (deps.waitUntil) return deps.waitUntil;
  try {
    const ctx = c.executionCtx; // throws where the runtime has none (Node)
    return (promise) => ctx.waitUntil(promise);
  } catch {
    return undefined;
  }
}

/** What a route hands the turn service to start a turn: the waitUntil, and the caller's trace context when tracing is on. */
export function turnStartOptions(c: Context, deps: Pick<AppDeps, 'waitUntil' | 'tracing'>): StartOptions {
  return { waitUntil: waitUntilFor(c, deps), ...(deps.tracing ? { carrier: carrierOf(c.req.raw.headers) } : {}) };
}
