// The Durable Object a turn runs in on Cloudflare Workers (bound as TURNS in wrangler.toml). A Worker's
// request ends with its client, and ctx.waitUntil gives it only about 30 s more, so a turn whose client
// left would die with it; an object lives on while it has work. Every reader of the turn is routed here
// (turn-routing.ts), where the turn is live: the same createApp over the same storage as the Worker.
//
// What keeps the object alive once its last reader has left: nothing incoming, and an object with
// pending timers or fetches is "idle, non-hibernateable", evicted after 70–140 s without a request or
// event (Cloudflare's Durable Object lifecycle). A turn can take longer (TIME_BUDGET_MS, then the
// forced summary and the save). So every promise the app hands to waitUntil (a running turn's
// `settled`, an activity flush) keeps an alarm armed every HEARTBEAT_MS until it settles: an alarm is
// an event, which restarts that clock. (From compatibility date 2026-10-01 pending I/O would do this by
// itself; the alarm works on any date and under today's workerd.)
import type { Hono } from 'hono';
import { createApp } from '../http/app.ts';
import { isLoopbackRequest } from '../http/auth-env.ts';
import { edgeDeps, stringEnv } from './edge.ts';

/** Well inside the 70 s an idle object is surely kept. */
export const HEARTBEAT_MS = 30_000;

/** What the object uses of its DurableObjectState (typed here: the project does not depend on workers-types). */
export interface ObjectState {
  storage: {
    getAlarm(): Promise<number | null>;
    setAlarm(scheduledTime: number): Promise<void>;
  };
}

export class TurnObject {
  private app: Hono | undefined;
  /** Work that must finish before the object may go: running turns, activity flushes. */
  private readonly pending = new Set<Promise<unknown>>();
  private readonly state: ObjectState;
  private readonly env: Record<string, unknown>;

  constructor(state: ObjectState, env: Record<string, unknown>) {
    this.state = state;
    this.env = env;
  }

  fetch(request: Request): Response | Promise<Response> {
    // Built on the first request, like the Worker's, and kept for the object's life: its turns live in it.
    this.app ??= createApp(
      edgeDeps(stringEnv(this.env), {
        name: 'Cloudflare Workers (turn object)',
        local: isLoopbackRequest,
        waitUntil: (promise) => this.keepAliveUntil(promise),
      }),
    );
    return this.app.fetch(request);
  }

  /** The heartbeat: armed again while anything is pending; once nothing is, the object may be evicted. */
  async alarm(): Promise<void> {
    if (this.pending.size > 0) await this.state.storage.setAlarm(Date.now() + HEARTBEAT_MS);
  }

  /** How many promises still hold the object (for tests). */
  get pendingWork(): number {
    return this.pending.size;
  }

  private keepAliveUntil(promise: Promise<unknown>): void {
    const release = () => void this.pending.delete(promise);
    this.pending.add(promise);
    promise.then(release, release);
    this.arm().catch((err: unknown) => {
      // The turn runs on regardless; only its protection from eviction after the last reader is missing.
      console.error(`rebound: could not arm the turn object's heartbeat alarm: ${err instanceof Error ? err.message : String(err)}`);
    });
  }

  private async arm(): Promise<void> {
    if ((await this.state.storage.getAlarm()) === null) await this.state.storage.setAlarm(Date.now() + HEARTBEAT_MS);
  }
}
