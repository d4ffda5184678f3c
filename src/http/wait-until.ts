// The platform's waitUntil for work that outlives the response (a turn, an activity flush): the one
// handed to createApp (Supabase, a turn's Durable Object), else the request's execution context (Workers).
import type { Context } from 'hono';
import { carrierOf } from '../telemetry/index.ts';
import type { StartOptions } from '../turns/service.ts';
import type { AppDeps } from './deps.ts';

type WaitUntil = ((promise: Promise<unknown>) => void) | undefined;

/** Each request's answer, asked once: a route asks for it two or three times (a session, a turn, its start). */
const asked = new WeakMap<Context, WaitUntil>();

export function waitUntilFor(c: Context, deps: Pick<AppDeps, 'waitUntil'>): WaitUntil {
  if (deps.waitUntil) return deps.waitUntil;
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

/** What a route hands the turn service to start a turn: the waitUntil, and the caller's trace context when tracing is on. */
export function turnStartOptions(c: Context, deps: Pick<AppDeps, 'waitUntil' | 'tracing'>): StartOptions {
  return { waitUntil: waitUntilFor(c, deps), ...(deps.tracing ? { carrier: carrierOf(c.req.raw.headers) } : {}) };
}
