// One turn's events, numbered from 1: the turn appends, any number of readers replay from a position
// and then follow live. A stream is a reader of the log, not the turn itself, so a reader that leaves
// ends only itself. This is the in-process part; log-writer.ts persists it for other instances.
import type { LoggedEvent, TurnEvent } from '../vocabulary.ts';

export class TurnLog {
  /** The events in order: `events[i]` has seq after + i + 1. */
  private readonly events: TurnEvent[] = [];
  /** Readers parked until the next append. */
  private readonly waiting = new Set<() => void>();
  private ended = false;

  /**
   * `after`: the seq this log goes on after (a turn resumed after a pause in another process: the
   * events before it are in the stored log only, and a reader from before it reads those there).
   */
  constructor(
    readonly turnId: string,
    readonly after = 0,
  ) {}

  /** The seq of the newest event (`after` while empty). */
  get lastSeq(): number {
    return this.after + this.events.length;
  }

  /** True once `done` is in the log: nothing follows it. */
  get finished(): boolean {
    return this.ended;
  }

  /** Appends an event and returns its seq. Anything after `done` is refused: the turn is over. */
  append(event: TurnEvent): number {
    if (this.ended) throw new Error(`turn ${this.turnId} has ended: nothing can follow done`);
    this.events.push(event);
    if (event.event === 'done') this.ended = true;
    // Resolving runs nothing now (promise reactions are microtasks), so no reader re-parks during this loop.
    for (const wake of this.waiting) wake();
    this.waiting.clear();
    return this.lastSeq;
  }

  /** The events already logged after `afterSeq` (from `after` on: this log holds none before it). */
  since(afterSeq: number): LoggedEvent[] {
    const from = Math.max(0, Math.floor(afterSeq) - this.after);
    return this.events.slice(from).map((event, i) => ({ seq: this.after + from + i + 1, event }));
  }

  /**
   * Replays the events after `afterSeq`, then follows live until `done` or until `signal` aborts. A
   * reader parks once per append it waits for (one promise) and listens for the abort once in all.
   */
  async *read(afterSeq: number, signal?: AbortSignal): AsyncIterable<LoggedEvent> {
    // `next` counts the events of this log already read (none before `after`).
    let next = Math.max(0, Math.floor(afterSeq) - this.after);
    let parked: (() => void) | undefined;
    const onAbort = () => parked?.();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        while (next < this.events.length) {
          if (signal?.aborted) return;
          next++;
          yield { seq: this.after + next, event: this.events[next - 1]! };
        }
        if (this.ended || signal?.aborted) return;
        await new Promise<void>((resolve) => {
          parked = resolve;
          this.waiting.add(resolve);
        });
        this.waiting.delete(parked!); // woken by an abort rather than an append
        parked = undefined;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (parked) this.waiting.delete(parked);
    }
  }
}
