// The turns this process is running. A turn is a producer: it runs detached from any connection,
// within its own budgets, appending to its log and persisting it; streams attach to the log as
// readers. Stopping a turn is explicit (stop()), never a side effect of a reader leaving. A producer
// may pause (a call waits for a person: docs/approval.md § The pause is stored state) instead of ending: its log stays open, with
// no `done`, its readers parked on it, until a continuation started here appends to the same log.
import type { TurnEvent } from '../vocabulary.ts';
import type { TurnEventStore } from '../store/turn-events.ts';
import { TurnLogWriter } from './log-writer.ts';
import { TurnLog } from './turn-log.ts';

/**
 * Runs one turn, appending its events from turn_start to done, or until it pauses for approval ('paused':
 * no done, the log stays open); `signal` aborts it (a stop).
 */
export type Producer = (emit: (event: TurnEvent) => void, signal: AbortSignal) => Promise<unknown>;

export interface LiveTurn {
  readonly log: TurnLog;
  /** Aborts the turn; the loop then ends it with done{reason:"aborted"}. Idempotent. */
  stop(): void;
  readonly stopping: boolean;
  /** The producer paused for approval: nothing runs, the log is open (no done); a continuation goes on in it. */
  readonly paused: boolean;
  /** Resolves when the producer has returned (ended or paused) and its log is persisted (or the write was reported). */
  readonly settled: Promise<void>;
  /** Rows the log writer stored: the bench's logRowsPerTurn. */
  readonly rowsWritten: () => number;
}

export interface StartTurnOptions {
  turnId: string;
  produce: Producer;
  /** Where the log is persisted for readers elsewhere; absent, the log lives in this process only. */
  events?: TurnEventStore;
  /** Keeps the platform alive until the turn has settled (ctx.waitUntil, EdgeRuntime.waitUntil). */
  waitUntil?: (promise: Promise<unknown>) => void;
  /**
   * A turn that paused, going on: the seq its log goes on after. When it paused here, the continuation
   * appends to the same log (its readers follow on); otherwise to a new log that starts after it.
   */
  after?: number;
}

export interface LiveTurnsOptions {
  /** How long a finished turn stays readable from memory, for readers that reconnect at once (ms). */
  retainMs?: number;
  log?: (line: string) => void;
}

export class LiveTurns {
  private readonly turns = new Map<string, LiveTurn>();
  /** Each turn's log and its writer, which a continuation after a pause here takes over. */
  private readonly logs = new WeakMap<LiveTurn, { log: TurnLog; writer: TurnLogWriter | undefined }>();
  private readonly retainMs: number;
  private readonly logLine: (line: string) => void;

  constructor(options: LiveTurnsOptions = {}) {
    this.retainMs = options.retainMs ?? 60_000;
    this.logLine = options.log ?? ((line) => console.error(line));
  }

  get(turnId: string): LiveTurn | undefined {
    return this.turns.get(turnId);
  }

  /** Turns started here that have not settled yet (a paused turn has: nothing of it runs). */
  get active(): number {
    let n = 0;
    for (const t of this.turns.values()) if (!t.log.finished && !t.paused) n++;
    return n;
  }

  start(options: StartTurnOptions): LiveTurn {
    const { turnId } = options;
    const existing = this.turns.get(turnId);
    if (existing && !(options.after !== undefined && existing.paused)) throw new Error(`turn ${turnId} is already running in this process`);
    const held = existing && this.logs.get(existing);
    // Memory holds the log's window; the store, when there is one, the rest (turn-log.ts).
    const log = held?.log ?? new TurnLog(turnId, options.after ?? 0, { stored: options.events !== undefined });
    const writer =
      held?.writer ??
      (options.events ? new TurnLogWriter({ store: options.events, turnId, log: this.logLine, stored: (seq) => log.storedUpTo(seq) }) : undefined);
    const controller = new AbortController();
    let paused = false;
    const emit = (event: TurnEvent) => {
      if (log.finished) return; // a late event from a tool after done has nowhere to go
      const seq = log.append(event);
      writer?.add({ seq, event });
    };
    const settled = (async () => {
      try {
        paused = (await options.produce(emit, controller.signal)) === 'paused' && !log.finished;
      } catch (err) {
        // A bug in the producer must still end the turn properly for every reader.
        this.logLine(`rebound: turn ${turnId} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        emit({ event: 'agent_error', data: { message: 'The agent failed unexpectedly. Try again.', retryable: true } });
      }
      if (!paused && !log.finished) emit({ event: 'done', data: { reason: 'error', iterations: 0, usage: { promptTokens: 0, completionTokens: 0 } } });
      await writer?.flush();
      // A paused turn stays: its readers are parked on its log, and its continuation appends to it.
      if (paused) return;
      const forget = setTimeout(() => {
        if (this.turns.get(turnId) === live) this.turns.delete(turnId);
      }, this.retainMs);
      (forget as { unref?: () => void }).unref?.();
    })();
    const live: LiveTurn = {
      log,
      stop: () => controller.abort(new Error('stopped')),
      get stopping() {
        return controller.signal.aborted;
      },
      get paused() {
        return paused;
      },
      settled,
      rowsWritten: () => writer?.rowsWritten ?? 0,
    };
    this.turns.set(turnId, live);
    this.logs.set(live, { log, writer });
    options.waitUntil?.(settled);
    return live;
  }
}
