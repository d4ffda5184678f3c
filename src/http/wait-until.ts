// The platform's waitUntil for work that outlives the response (a turn, an activity flush): the one
// handed to createApp (Supabase, a turn's Durable Object), else the request's execution context (Workers).
import type { Context } from 'hono';
import { carrierOf } from '../telemetry/index.ts';
import type { StartOptions } from '../turns/service.ts';
import type { AppDeps } from './deps.ts';

export type WaitUntil = ((promise: Promise<unknown>) => void) | undefined;

/** Each request's answer, asked once: a route asks for it two or three times (a session, a turn, its start). */
const asked = new WeakMap<Context, WaitUntil>();

export function waitUntilFor(c: Context, deps: Pick<AppDeps, 'waitUntil'>): WaitUntil {
  if (deps.waitUntil) return deps.waitUntil;
  if (servedByNode(c.env)) return undefined;
  if (asked.has(c)) return asked.get(c);
  // Hono's getter throws where the runtime has none (Node), and has no other way to ask. The throw's
  // stack trace was ~20–40 µs of every turn and gateway request on Node (bench:stream's profile): none is taken.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  let found: WaitUntil;
  try {
    const ctx = c.executionCtx;
    found = (promise) => ctx.waitUntil(promise);
  } catch {
    found = undefined;
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
  asked.set(c, found);
  return found;
}

/**
 * @hono/node-server calls the app as `fetch(request, { incoming, outgoing })`, never with an execution
 * context: Hono's getter would only throw. Not asked there, the throw (a few µs, ~15 µs of CPU a request
 * under load) is off every gateway request's first byte on Node (docs/benchmarks.md § The streaming
 * paths at the physical limit).
 */
function servedByNode(env: unknown): boolean {
  return typeof env === 'object' && env !== null && 'incoming' in env && 'outgoing' in env;
}

/** What a route hands the turn service to start a turn: the waitUntil, and the caller's trace context when tracing is on. */
export function turnStartOptions(c: Context, deps: Pick<AppDeps, 'waitUntil' | 'tracing'>): StartOptions {
  return { waitUntil: waitUntilFor(c, deps), ...(deps.tracing ? { carrier: carrierOf(c.req.raw.headers) } : {}) };
}
