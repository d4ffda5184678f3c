// The one owner of a turn's lifecycle, whatever drives it (POST /v1/chat, POST /v1/turns and its
// stream, the useChat routes; next, continuing a paused turn): open or reuse the session, create the
// turn (closing the turns a killed process left running), claim and start it through the placement,
// read its log from any event id, stop it. Its inputs are plain: the storage, the turn's agent and
// limits, the placement, the disconnect policy; per call, the platform's waitUntil. It knows nothing
// of HTTP (no Hono Context, no status codes): the routes validate, call it, and frame what it returns.
import type { TurnLimits } from '../loop/turn.ts';
import { closeStaleTurns } from '../store/interrupted.ts';
import { unpackEvents } from '../store/turn-events.ts';
import type { Storage, TurnRecord } from '../store/types.ts';
import type { TraceCarrier, Tracing } from '../telemetry/index.ts';
import type { LoggedEvent } from '../vocabulary.ts';
import { followPersisted } from './follow-persisted.ts';
import type { LiveTurn } from './live-turns.ts';
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
  /** Who reads each turn running here (readers.ts). */
  private readonly readers = new WeakMap<LiveTurn, TurnReaders>();

  constructor(private readonly options: TurnServiceOptions) {}

  private get sessions() {
    return this.options.storage.sessions;
  }

  /**
   * The user's session (a new one when `sessionId` is absent; SessionForbiddenError for another
   * user's), with the turns a killed process left running closed by age, this session's first: its
   * interrupted turn reaches the history before a new one does (src/store/interrupted.ts).
   */
  async openSession(userId: string | null, sessionId?: string): Promise<string> {
    const id = await this.sessions.ensureSession(userId, sessionId);
    await this.closeStale(id);
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
  async resumable(userId: string | null, sessionId: string): Promise<Resumable> {
    const session = await this.sessions.getSession(sessionId);
    if (!session) return { kind: 'none' }; // a chat that never sent a message here: nothing created
    if (session.userId !== userId) return { kind: 'forbidden' };
    // A turn left running by a killed process would otherwise be followed until the sweep of a later turn.
    await this.closeStale(sessionId);
    const turn = await this.sessions.runningTurn(sessionId);
    return turn ? { kind: 'running', turn } : { kind: 'none' };
  }

  find(turnId: string): Promise<TurnRecord | null> {
    return this.sessions.getTurn(turnId);
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
    if (live) return live.log.finished && afterSeq >= live.log.lastSeq ? null : this.liveReader(live, afterSeq);
    const current = (await this.sessions.getTurn(turn.id)) ?? turn;
    const store = this.options.storage.turnEvents;
    if (current.status === 'finished') {
      const rows = await store.eventsAfter(turn.id, afterSeq);
      if (rows.length === 0) return null;
      return {
        events: async function* () {
          yield* unpackEvents(rows, afterSeq);
        },
        left: () => {},
      };
    }
    const stillRunning = async () => (await this.sessions.getTurn(turn.id))?.status === 'running';
    return { events: (signal) => followPersisted({ store, turnId: turn.id, afterSeq, signal, stillRunning }), left: () => {} };
  }

  /**
   * A reader of a turn running here (one claimAndStart returned), after `afterSeq`: a cursor over its log
   * (TurnLog.read), counted while it reads. TooManyReadersError when the turn has its MAX_READERS_PER_TURN.
   */
  liveReader(live: LiveTurn, afterSeq: number): TurnReader {
    let readers = this.readers.get(live);
    if (!readers) {
      readers = new TurnReaders(this.options.maxReaders ?? DEFAULT_MAX_READERS);
      this.readers.set(live, readers);
    }
    readers.check();
    const counted = readers;
    const abortOnLeave = this.options.onDisconnect === 'abort';
    return {
      events: async function* (signal) {
        const leave = counted.join();
        try {
          yield* live.log.read(afterSeq, signal);
        } finally {
          leave();
        }
      },
      // Only the last reader leaving stops the turn: others still read it.
      left: () => {
        if (abortOnLeave && counted.size === 0 && !live.log.finished) live.stop();
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
    if (live) live.stop();
    else if (turn.status === 'pending' && (await this.sessions.claimTurn(turn.id))) this.start(turn, options).stop();
    else await this.sessions.requestStop(turn.id); // running on another instance: it polls for this
    return 'stopping';
  }

  private start(turn: TurnRecord, { waitUntil, carrier }: StartOptions): LiveTurn {
    const { agent, limits, placement, alone, tracing } = this.options;
    return startTurn({ turn, agent, limits, placement, waitUntil, watchForStop: !alone, tracing, carrier });
  }

  private closeStale(sessionId: string): Promise<unknown> {
    return closeStaleTurns(this.sessions, { timeBudgetMs: this.options.limits.timeBudgetMs, sessionId });
  }
}
