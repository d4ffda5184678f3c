// The one owner of a turn's lifecycle, whatever drives it (POST /v1/chat, POST /v1/turns and its
// stream, the useChat routes, a decision on a call that waits for a person): open or reuse the session,
// create the turn (closing the turns a killed process left running), claim and start it through the
// placement, read its log from any event id, stop it, and continue a turn paused for a person in the
// same log once nothing of it waits. The person's answers are taken at its approval desk
// (approvals.ts, `approvals`), which goes on through continueTurn; when waits expire is the clock's
// (approval-clock.ts, docs/approval.md § Expiry on each runtime). Its inputs are plain: the
// storage, the turn's agent and limits, the placement, the disconnect policy; per call, the platform's
// waitUntil. It knows nothing of HTTP (no Hono Context, no status codes): the routes validate, call it,
// and frame what it returns.
import type { TurnLimits } from '../loop/turn.ts';
import { closeStaleTurns } from '../store/interrupted.ts';
import type { Storage, TurnRecord } from '../store/types.ts';
import type { TraceCarrier, Tracing } from '../telemetry/index.ts';
import type { LoggedEvent } from '../vocabulary.ts';
import { readPaused } from '../loop/paused.ts';
import { approvalClock, type ApprovalClock, type ApprovalClockKind } from './approval-clock.ts';
import { ApprovalDesk } from './approvals.ts';
import { followPersisted, readThrough, storedEvents } from './follow-persisted.ts';
import type { LiveTurn } from './live-turns.ts';
import type { TurnLog } from './turn-log.ts';
import type { TurnPlacement } from './placement.ts';
import { TurnReaders } from './readers.ts';
import { startTurn, type TurnAgent } from './start-turn.ts';

const DEFAULT_MAX_READERS = 32;

export interface TurnServiceOptions {
  storage: Storage;
  agent: TurnAgent;
  limits: TurnLimits;
  placement: TurnPlacement;
  /** What the last reader leaving before done does to a turn running here: 'abort' stops it (ON_DISCONNECT). */
  onDisconnect: 'continue' | 'abort';
  /** Readers a turn running here serves at once (MAX_READERS_PER_TURN; default 32): past it, TooManyReadersError. */
  maxReaders?: number;
  /**
   * True where this process is the only one serving its storage (`npm start`), so a stop always finds
   * the turn here and a running turn need not poll its row for one asked elsewhere.
   */
  alone?: boolean;
  /** OpenTelemetry traces (src/telemetry/): each turn's invoke_agent span starts here. */
  tracing?: Tracing;
  /** What expires waiting calls here (approval-clock.ts): Node's timer, a Durable Object's alarm, the next request; absent, none. */
  approvalClock?: ApprovalClockKind;
}

/** Per call: keeps the platform alive for the turn (ctx.waitUntil is per request on Workers). */
export interface StartOptions {
  waitUntil?: (promise: Promise<unknown>) => void;
  /** The trace context of the request that starts the turn: its span continues the caller's trace. */
  carrier?: TraceCarrier;
}

/** A reader of a turn's log after a position: live from memory when the turn runs here, else from the stored log. */
export interface TurnReader {
  /** The logged events after the position, until `done` (or until `signal` aborts: the client left). */
  events(signal: AbortSignal): AsyncIterable<LoggedEvent>;
  /** The client left before `done` (or was closed for taking nothing): under ON_DISCONNECT=abort, when it was the turn's last reader, a turn running here is stopped. */
  left(): void;
}

/** What a chat's resume finds: nothing running, a session of another user, or the running turn. */
export type Resumable = { kind: 'none' } | { kind: 'forbidden' } | { kind: 'running'; turn: TurnRecord };

export class TurnService {
  /** Who reads each turn running here (readers.ts), by its log: a continuation after a pause here shares it. */
  private readonly readers = new WeakMap<TurnLog, TurnReaders>();
  /** Where a person's answers are taken: decisions, what waits, expiry (approvals.ts). */
  readonly approvals: ApprovalDesk;
  private readonly clock: ApprovalClock;

  private readonly options: TurnServiceOptions;
  constructor(options: TurnServiceOptions) {
    this.options = options;
    const { storage, agent } = options;
    this.approvals = new ApprovalDesk({
      storage,
      tools: agent.tools,
      toolSource: agent.toolSource,
      continueTurn: (turnId, goOn) => this.continueTurn(turnId, goOn),
    });
    this.clock = approvalClock(options.approvalClock, this.approvals);
  }

  private get sessions() {
    return this.options.storage.sessions;
  }

  /**
   * The user's session (a new one when `sessionId` is absent; SessionForbiddenError for another
   * user's), with the turns a killed process left running closed by age, this session's first: its
   * interrupted turn reaches the history before a new one does (src/store/interrupted.ts).
   */
  async openSession(userId: string | null, sessionId?: string, options: StartOptions = {}): Promise<string> {
    const id = await this.sessions.ensureSession(userId, sessionId);
    await this.closeStale(id);
    if (sessionId !== undefined) await this.clock.touched({ sessionId: id }, options);
    return id;
  }

  /** A new pending turn of the session; it runs once claimed (start). */
  createTurn(input: { sessionId: string; userId: string | null; message: string }): Promise<TurnRecord> {
    return this.sessions.createTurn({ id: crypto.randomUUID(), ...input });
  }

  /** The session's running turn, if any: one turn at a time per chat. */
  runningTurn(sessionId: string): Promise<TurnRecord | null> {
    return this.sessions.runningTurn(sessionId);
  }

  /** The last user message of the session's stored history (what a regenerate runs again), or null. */
  async lastUserMessage(sessionId: string): Promise<string | null> {
    const history = await this.sessions.history(sessionId);
    return history.findLast((m) => m.role === 'user')?.content ?? null;
  }

  /** A chat's running turn for its user to reattach to, after closing the session's stale turns. */
  async resumable(userId: string | null, sessionId: string, options: StartOptions = {}): Promise<Resumable> {
    const session = await this.sessions.getSession(sessionId);
    if (!session) return { kind: 'none' }; // a chat that never sent a message here: nothing created
    if (session.userId !== userId) return { kind: 'forbidden' };
    // A turn left running by a killed process would otherwise be followed until the sweep of a later turn.
    await this.closeStale(sessionId);
    await this.clock.touched({ sessionId }, options);
    const turn = await this.sessions.runningTurn(sessionId);
    return turn ? { kind: 'running', turn } : { kind: 'none' };
  }

  /** The turn, its waits past their expiry expired first where requests are the clock. */
  async find(turnId: string, options: StartOptions = {}): Promise<TurnRecord | null> {
    const turn = await this.sessions.getTurn(turnId);
    if (turn?.status !== 'awaiting_approval' || !this.clock.onRequest) return turn;
    await this.clock.touched({ turnId }, options);
    return await this.sessions.getTurn(turnId);
  }

  /** Claims a pending turn and starts it through the placement; null when it was claimed already. */
  async claimAndStart(turn: TurnRecord, options: StartOptions = {}): Promise<LiveTurn | null> {
    const claimed = await this.sessions.claimTurn(turn.id);
    return claimed ? this.start(claimed, options) : null;
  }

  /**
   * A reader of the turn's log after `afterSeq`: from memory when its producer runs here, else from
   * the stored log (followed while the turn runs elsewhere). Null when there is nothing left to read:
   * the turn has finished and the reader has seen its end.
   */
  async reader(turn: TurnRecord, afterSeq: number): Promise<TurnReader | null> {
    const live = this.options.placement.get(turn.id);
    // A log that went on here after a pause elsewhere holds only what came since: earlier positions read the stored log.
    if (live && afterSeq >= live.log.after) return live.log.finished && afterSeq >= live.log.lastSeq ? null : this.liveReader(live, afterSeq);
    const current = (await this.sessions.getTurn(turn.id)) ?? turn;
    const store = this.options.storage.turnEvents;
    if (current.status === 'finished') {
      if ((await store.eventsAfter(turn.id, afterSeq, { limit: 1 })).length === 0) return null;
      return { events: (signal) => storedEvents(store, turn.id, afterSeq, signal), left: () => {} };
    }
    return { events: (signal) => this.followStored(turn.id, afterSeq, signal), left: () => {} };
  }

  /** The stored log after `afterSeq`, followed while the turn runs elsewhere or waits for a person (with keepalives). */
  private followStored(turnId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<LoggedEvent> {
    const stillRunning = async () => {
      const status = (await this.sessions.getTurn(turnId))?.status;
      return status === 'running' || status === 'awaiting_approval';
    };
    return followPersisted({ store: this.options.storage.turnEvents, turnId, afterSeq, signal, stillRunning });
  }

  /**
   * A reader of a turn running here (one claimAndStart returned), after `afterSeq`: a cursor over its log
   * (TurnLog.read), counted while it reads. TooManyReadersError when the turn has its MAX_READERS_PER_TURN.
   */
  liveReader(live: LiveTurn, afterSeq: number): TurnReader {
    let readers = this.readers.get(live.log);
    if (!readers) {
      readers = new TurnReaders(this.options.maxReaders ?? DEFAULT_MAX_READERS);
      this.readers.set(live.log, readers);
    }
    readers.check();
    const counted = readers;
    const { placement, alone } = this.options;
    const abortOnLeave = this.options.onDisconnect === 'abort';
    const followStored = (after: number, signal: AbortSignal) => this.followStored(live.log.turnId, after, signal);
    // Memory holds the log's window; what it let go of is read from the store (turn-log.ts).
    const store = this.options.storage.turnEvents;
    const read = (after: number, signal: AbortSignal) => readThrough(live.log, store, after, signal);
    return {
      events: async function* (signal) {
        const leave = counted.join();
        try {
          if (alone) {
            yield* read(afterSeq, signal);
            return;
          }
          // Not the only instance (Supabase's isolates, a Worker and its turn's object): once the turn has
          // paused here, the decision may land anywhere and the turn go on there, so from the pause on the
          // reader follows the stored log (complete up to the pause once it has settled), not this memory.
          const pausedHere = new AbortController();
          void live.settled.then(() => {
            if (live.paused) pausedHere.abort();
          });
          let last = afterSeq;
          for await (const logged of read(afterSeq, AbortSignal.any([signal, pausedHere.signal]))) {
            last = logged.seq;
            yield logged;
          }
          if (signal.aborted || !pausedHere.signal.aborted) return;
          // All this memory holds (to the pause, and whatever a continuation here added since), then the stored log.
          const upTo = live.log.lastSeq;
          if (last < upTo) {
            for await (const logged of read(last, signal)) {
              last = logged.seq;
              yield logged;
              if (last >= upTo) break;
            }
          }
          if (!signal.aborted && !(live.log.finished && last >= live.log.lastSeq)) yield* followStored(last, signal);
        } finally {
          leave();
        }
      },
      // Only the last reader leaving stops the turn: others still read it. Whichever producer runs it now
      // (a continuation after a pause here is another); a paused turn, which runs nothing, is left waiting.
      left: () => {
        const current = placement.get(live.log.turnId) ?? live;
        if (abortOnLeave && counted.size === 0 && !current.log.finished && !current.paused) current.stop();
      },
    };
  }

  /**
   * Ends a turn early for every reader (done{reason:"aborted"}), wherever it runs: directly when it runs
   * here, through its row when it runs elsewhere; a turn never started is started stopped, so it ends as
   * aborted like any other, its message in the history. 'finished' when there is nothing to stop.
   */
  async stop(turn: TurnRecord, options: StartOptions = {}): Promise<'stopping' | 'finished'> {
    const live = this.options.placement.get(turn.id);
    if (turn.status === 'finished' || live?.log.finished) return 'finished';
    if (live && !live.paused) {
      live.stop();
      // It may have been storing a pause as the stop came: then it goes on stopped.
      void live.settled.then(() => (live.paused ? this.stopPaused(turn.id, options) : undefined));
      return 'stopping';
    }
    // Paused for approval (here or elsewhere): it goes on stopped, its waiting calls answered "stopped", and ends as aborted.
    if ((await this.sessions.getTurn(turn.id))?.status === 'awaiting_approval' && (await this.stopPaused(turn.id, options))) return 'stopping';
    const now = this.options.placement.get(turn.id);
    if (now && !now.log.finished && !now.paused) now.stop();
    else if (turn.status === 'pending' && (await this.sessions.claimTurn(turn.id))) this.start(turn, options).stop();
    else await this.sessions.requestStop(turn.id); // running on another instance: it polls for this
    return 'stopping';
  }

  /** A paused turn, stopped: it goes on with a stop already asked. False when it was not paused any more. */
  private async stopPaused(turnId: string, options: StartOptions): Promise<boolean> {
    const going = await this.continueTurn(turnId, { ...options, force: true });
    going?.stop();
    return going !== null;
  }

  /**
   * Goes on with a turn paused for approval once none of its calls waits (or at once, `force`: a stop),
   * in the same log, through the placement: the stored state and the decisions handed to the loop.
   * Null when it is not paused, still waits, or another caller went on with it first (claim-once).
   */
  async continueTurn(turnId: string, options: StartOptions & { force?: boolean } = {}): Promise<LiveTurn | null> {
    const { approvals } = this.options.storage;
    // Pausing here may still be under way (approval_required sent, the log being flushed): let it end first.
    const here = this.options.placement.get(turnId);
    if (here && !here.log.finished) await here.settled;
    const resumed = await approvals.resume(turnId, { force: options.force ?? false });
    if (!resumed) return null;
    const paused = readPaused(resumed.paused.state);
    if (!paused) {
      // Not a state this code wrote: the turn cannot go on; end it for its readers rather than leave it waiting.
      console.error(`rebound: turn ${turnId}: its paused state cannot be read; it is ended`);
      await this.sessions.finishTurn(turnId);
      return null;
    }
    const decisions = await approvals.forTurn(turnId);
    const lastSeq = here ? resumed.paused.lastSeq : await this.storedUpTo(turnId, resumed.paused.lastSeq);
    const { agent, limits, placement, alone, tracing } = this.options;
    const live = startTurn({
      turn: resumed.turn,
      agent,
      limits,
      placement,
      waitUntil: options.waitUntil,
      watchForStop: !alone,
      tracing,
      resume: { paused, decisions, lastSeq },
    });
    this.paused(live); // it may pause again
    return live;
  }

  /**
   * Where a turn paused elsewhere goes on in the stored log: after `lastSeq`, when the log holds it. A
   * process that died between storing its pause and writing its last events (or whose writes failed)
   * left a shorter log: the continuation then follows the last event stored, so readers, who read the
   * stored log without gaps, are not left waiting for events that will never come.
   */
  private async storedUpTo(turnId: string, lastSeq: number): Promise<number> {
    const store = this.options.storage.turnEvents;
    const tail = await store.eventsAfter(turnId, Math.max(0, lastSeq - 1));
    if (tail.some((row) => row.lastSeq >= lastSeq)) return lastSeq;
    const rows = await store.eventsAfter(turnId, 0);
    const stored = rows.reduce((last, row) => Math.max(last, row.lastSeq), 0);
    console.error(`rebound: turn ${turnId} paused after event ${lastSeq} but its stored log ends at ${stored}; it goes on from there`);
    return stored;
  }

  /** A turn started or gone on with here: once it has paused, the clock is told. */
  private paused(live: LiveTurn): void {
    void live.settled.then(() => {
      if (live.paused) this.clock.paused(live.log.turnId);
    });
  }

  private start(turn: TurnRecord, { waitUntil, carrier }: StartOptions): LiveTurn {
    const { agent, limits, placement, alone, tracing } = this.options;
    const live = startTurn({ turn, agent, limits, placement, waitUntil, watchForStop: !alone, tracing, carrier });
    this.paused(live);
    return live;
  }

  private closeStale(sessionId: string): Promise<unknown> {
    return closeStaleTurns(this.sessions, { timeBudgetMs: this.options.limits.timeBudgetMs, sessionId });
  }
}
