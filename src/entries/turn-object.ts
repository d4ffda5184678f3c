// The Durable Object a turn runs in on Cloudflare Workers (bound as TURNS in wrangler.toml). A Worker's
// request ends with its client, and ctx.waitUntil gives it only about 30 s more, so a turn whose client
// left would die with it; an object lives on while it has work. Every reader of the turn is routed here
// (turn-routing.ts), where the turn is live: the same createApp over the same storage as the Worker.
//
// What keeps the object in memory once its last reader has left (Cloudflare's Durable Object
// lifecycle): an object with no timer pending may hibernate 10 s after its last request or event,
// losing its memory; one with a timer pending is evicted 70–140 s after its last request or event. A
// turn can take longer (TIME_BUDGET_MS, then the forced summary and the save). So while the object
// has work (every promise the app hands to waitUntil: a running turn's `settled`, an activity flush), it
// keeps an interval timer (no hibernation) and an alarm HEARTBEAT_MS ahead (each alarm is an event,
// which restarts the eviction clock). (From compatibility date 2026-10-01, or with the flag
// durable_object_io_tasks_prevent_eviction, pending I/O, waitUntil promises and timers keep an object by
// themselves: developers.cloudflare.com/changelog/post/2026-10-01-pending-io-keep-alive/. wrangler.toml's
// date is earlier, and this works on any date and under today's workerd.)
// Without Supabase the one object ('local') also holds the sessions in its memory, so it stays the
// same way for MEMORY_HOLD_MS after its last request: a chat left open keeps its history.
import type { Hono } from 'hono';
import { createApp } from '../http/app.ts';
import { isLoopbackRequest } from '../http/auth/env.ts';
import { edgeDeps, stringEnv } from './edge.ts';
import { inTurnObject } from './placement.ts';

/** Well inside the 70 s an idle object is surely kept. */
export const HEARTBEAT_MS = 30_000;
/** How long the object holding in-memory storage stays after its last request. */
export const MEMORY_HOLD_MS = 60 * 60_000;

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
  /**
   * True when storage is this object's memory (local mode or STORAGE=memory): the object is the only
   * copy of it. Not when storage is refused (a deployment without its settings): nothing to hold.
   */
  private holdsMemory = false;
  private lastRequestAt = 0;
  /** Pending while the object must stay: a pending timer keeps it from hibernating. */
  private awake: ReturnType<typeof setInterval> | undefined;

  constructor(state: ObjectState, env: Record<string, unknown>) {
    this.state = state;
    this.env = env;
  }

  fetch(request: Request): Response | Promise<Response> {
    this.lastRequestAt = Date.now();
    // Built on the first request, like the Worker's, and kept for the object's life: its turns live in it.
    if (!this.app) {
      const deps = edgeDeps(stringEnv(this.env), {
        name: 'Cloudflare Workers (turn object)',
        local: isLoopbackRequest,
        waitUntil: (promise) => this.keepAliveUntil(promise),
        placement: inTurnObject((promise) => this.keepAliveUntil(promise)),
      });
      this.holdsMemory = deps.storageKind === 'memory';
      this.app = createApp(deps);
    }
    if (this.holdsMemory) this.stayAwake();
    return this.app.fetch(request);
  }

  /** The heartbeat: armed again while the object must stay; then the object may go. */
  async alarm(): Promise<void> {
    if (this.mustStay()) await this.state.storage.setAlarm(Date.now() + HEARTBEAT_MS);
  }

  /** How many promises still hold the object (for tests). */
  get pendingWork(): number {
    return this.pending.size;
  }

  /** Whether the object's interval timer is pending (for tests). */
  get stayingAwake(): boolean {
    return this.awake !== undefined;
  }

  private mustStay(): boolean {
    const holding = this.holdsMemory && this.lastRequestAt > 0 && Date.now() - this.lastRequestAt < MEMORY_HOLD_MS;
    return this.pending.size > 0 || holding;
  }

  private keepAliveUntil(promise: Promise<unknown>): void {
    const release = () => void this.pending.delete(promise);
    this.pending.add(promise);
    promise.then(release, release);
    this.stayAwake();
  }

  private stayAwake(): void {
    if (!this.awake) {
      this.awake = setInterval(() => {
        if (this.mustStay()) return;
        clearInterval(this.awake);
        this.awake = undefined;
      }, HEARTBEAT_MS);
      // Node (tests) need not wait for it; workerd has no unref, and its pending timer is the point.
      (this.awake as { unref?: () => void }).unref?.();
    }
    this.armSafely();
  }

  private armSafely(): void {
    this.arm().catch((err: unknown) => {
      // The work runs on regardless; only its protection from eviction once nobody is connected is missing.
      console.error(`rebound: could not arm the turn object's heartbeat alarm: ${err instanceof Error ? err.message : String(err)}`);
    });
  }

  private async arm(): Promise<void> {
    if ((await this.state.storage.getAlarm()) === null) await this.state.storage.setAlarm(Date.now() + HEARTBEAT_MS);
  }
}
