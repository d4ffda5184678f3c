// One turn's events, numbered from 1: the turn appends, any number of readers replay from a position
// and then follow live. A stream is a reader of the log, not the turn itself, so a reader that leaves
// ends only itself. This is the in-process part; log-writer.ts persists it for other instances.
import type { LoggedEvent, TurnEvent } from '../vocabulary.ts';

export class TurnLog {
  /** The events in order: `events[i]` has seq i + 1. */
  private readonly events: TurnEvent[] = [];
  /** Readers parked until the next append. */
  private readonly waiting = new Set<() => void>();
  private ended = false;

  constructor(readonly turnId: string) {}

  /** The seq of the newest event (0 while empty). */
  get lastSeq(): number {
    return this.events.length;
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
    for (const wake of [...this.waiting]) wake();
    return this.events.length;
  }

  /** The events already logged after `afterSeq`. */
  since(afterSeq: number): LoggedEvent[] {
    const from = Math.max(0, Math.floor(afterSeq));
    return this.events.slice(from).map((event, i) => ({ seq: from + i + 1, event }));
  }

  /** Replays the events after `afterSeq`, then follows live until `done` or until `signal` aborts. */
  async *read(afterSeq: number, signal?: AbortSignal): AsyncIterable<LoggedEvent> {
    let next = Math.max(0, Math.floor(afterSeq));
    for (;;) {
      while (next < this.events.length) {
        if (signal?.aborted) return;
        next++;
        yield { seq: next, event: this.events[next - 1]! };
      }
      if (this.ended || signal?.aborted) return;
      await this.nextAppend(signal);
    }
  }

  private nextAppend(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.waiting.delete(wake);
        signal?.removeEventListener('abort', wake);
        resolve();
      };
      this.waiting.add(wake);
      signal?.addEventListener('abort', wake, { once: true });
    });
  }
}
