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
//
// The same alarm expires calls that wait for a person (docs/approval.md § Expiry on each runtime): when a turn pauses here, the
// object stores its next expiresAt (its storage outlives eviction) and keeps the alarm at or before it;
// the alarm, in this instance or a new one, calls the approval desk's expire (TurnService.approvals) for that turn, and the
// continuation runs here like any turn (also for a turn whose every call was decided but which an
// object that died right after the decision never went on with).
import type { Hono } from 'hono';
import { createApp } from '../http/app.ts';
import type { AppDeps } from '../http/deps.ts';
import type { TurnService } from '../turns/service.ts';
import { isLoopbackRequest } from '../http/auth/env.ts';
import { edgeDeps, stringEnv } from './edge.ts';
import { inTurnObject } from './placement.ts';

/** Well inside the 70 s an idle object is surely kept. */
export const HEARTBEAT_MS = 30_000;
/** How long the object holding in-memory storage stays after its last request. */
export const MEMORY_HOLD_MS = 60 * 60_000;

/** How far past an approval's expiry the alarm fires: the database's clock decides, and may be a little behind. */
const EXPIRY_SLACK_MS = 250;
/** The object's storage key for the next expiry of a call waiting here. */
const EXPIRY_KEY = 'approval-expiry';

/** What the object uses of its DurableObjectState (typed here: the project does not depend on workers-types). */
export interface ObjectState {
  storage: {
    getAlarm(): Promise<number | null>;
    setAlarm(scheduledTime: number): Promise<void>;
    get<T>(key: string): Promise<T | undefined>;
    put<T>(key: string, value: T): Promise<void>;
    delete(key: string): Promise<boolean>;
  };
}

/** The next expiry of a call waiting in this object: when (ms, slack included) and whose. */
interface Expiry {
  at: number;
  turnId: string;
}

export class TurnObject {
  private app: Hono | undefined;
  private deps: AppDeps | undefined;
  private turns: TurnService | undefined;
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
    const app = this.build();
    if (this.holdsMemory) this.stayAwake();
    return app.fetch(request);
  }

  /**
   * The heartbeat, and the expiry of calls waiting here once due: armed again at the earlier of the two
   * while the object must stay or a call waits; then the object may go.
   */
  async alarm(): Promise<void> {
    const due = await this.state.storage.get<Expiry>(EXPIRY_KEY);
    if (due && due.at <= Date.now()) {
      await this.state.storage.delete(EXPIRY_KEY);
      this.build();
      const waitUntil = (promise: Promise<unknown>) => this.keepAliveUntil(promise);
      await this.turns!.approvals.expire(this.holdsMemory ? {} : { turnId: due.turnId }, { waitUntil });
      // Still waiting (the database's clock a little behind, or another call of it due later): armed again.
      await this.noteExpiry(due.turnId);
    }
    const next = Math.min(this.mustStay() ? Date.now() + HEARTBEAT_MS : Infinity, (await this.state.storage.get<Expiry>(EXPIRY_KEY))?.at ?? Infinity);
    if (next !== Infinity) await this.state.storage.setAlarm(next);
  }

  /** The app, built on the first request or alarm like the Worker's, and kept for the object's life: its turns live in it. */
  private build(): Hono {
    if (!this.app) {
      const keepAliveUntil = (promise: Promise<unknown>) => this.keepAliveUntil(promise);
      this.deps = edgeDeps(stringEnv(this.env), {
        name: 'Cloudflare Workers (turn object)',
        local: isLoopbackRequest,
        waitUntil: keepAliveUntil,
        placement: inTurnObject(keepAliveUntil),
        approvalExpiry: {
          kind: 'alarm',
          paused: (turnId) => void this.noteExpiry(turnId).catch((err: unknown) => this.alarmFailed(err)),
          service: (turns) => {
            this.turns = turns;
          },
        },
      });
      this.holdsMemory = this.deps.storageKind === 'memory';
      this.app = createApp(this.deps);
    }
    return this.app;
  }

  /**
   * A turn paused here (or its expiry went by): the next expiry of its calls still pending (every turn's,
   * when this object holds the storage) is stored, and the alarm set no later than it.
   */
  private async noteExpiry(turnId: string): Promise<void> {
    const approvals = this.deps!.storage.approvals;
    const pending = this.holdsMemory
      ? await approvals.nextExpiry()
      : ((await approvals.forTurn(turnId))
          .filter((a) => a.status === 'pending')
          .map((a) => a.expiresAt)
          .sort()[0] ?? null);
    if (pending === null) {
      await this.state.storage.delete(EXPIRY_KEY);
      return;
    }
    const at = Date.parse(pending) + EXPIRY_SLACK_MS;
    await this.state.storage.put<Expiry>(EXPIRY_KEY, { at, turnId });
    const current = await this.state.storage.getAlarm();
    if (current === null || current > at) await this.state.storage.setAlarm(at);
  }

  private alarmFailed(err: unknown): void {
    // A late decision, or a request's sweep on another runtime, still expires the call; only the alarm is missing.
    console.error(`rebound: could not arm the turn object's approval expiry alarm: ${err instanceof Error ? err.message : String(err)}`);
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
    // An alarm further away (a waiting call's expiry) is brought forward: the heartbeat comes first.
    const current = await this.state.storage.getAlarm();
    if (current === null || current > Date.now() + HEARTBEAT_MS) await this.state.storage.setAlarm(Date.now() + HEARTBEAT_MS);
  }
}
