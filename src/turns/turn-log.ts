// One turn's events, numbered from 1: the turn appends, any number of readers replay from a position
// and then follow live. A stream is a reader of the log, not the turn itself, so a reader that leaves
// ends only itself. This is the in-process part; log-writer.ts persists it for other instances.
//
// What the log holds in memory is a window, not the turn (docs/architecture.md § A turn is a
// producer): the events not yet stored, and of the stored ones those its current readers have not
// taken yet, at most WINDOW_BYTES of them (as the SSE writer holds at most 64 KB per reader). Anything
// older is read from the store (TurnService's readers do: `holds` says where memory begins). So a
// long turn costs its readers' lag, not its length, and a paused or finished turn whose readers have
// everything holds nothing. A log with no store behind it (`stored: false`) keeps every event.
import type { LoggedEvent, TurnEvent } from '../vocabulary.ts';

/** The most of the stored events the log keeps for readers that lag (text bytes, about). */
export const WINDOW_BYTES = 64 * 1024;

/** A reader's place: the seq of the last event it took. */
interface Cursor {
  taken: number;
}

export class TurnLog {
  /** The events held, in order: `events[head + i]` has seq `first + i`. */
  private events: TurnEvent[] = [];
  private sizes: number[] = [];
  private head = 0;
  /** The seq of the first event held (lastSeq + 1 while none is). */
  private first: number;
  private heldBytes = 0;
  /** Every event up to this seq is in the store, so memory may let it go. */
  private stored: number;
  private readonly keepAll: boolean;
  private readonly windowBytes: number;
  private readonly cursors = new Set<Cursor>();
  /** Readers parked until the next append. */
  private readonly waiting = new Set<() => void>();
  private ended = false;
  private last: number;

  readonly turnId: string;
  readonly after: number;
  /**
   * `after`: the seq this log goes on after (a turn resumed after a pause: the events before it are in
   * the stored log only). `stored: false`: no store keeps the events, so the log keeps them all.
   */
  constructor(turnId: string, after: number = 0, options: { stored?: boolean; windowBytes?: number } = {}) {
    this.turnId = turnId;
    this.after = after;
    this.first = after + 1;
    this.last = after;
    this.stored = after;
    this.keepAll = options.stored === false;
    this.windowBytes = options.windowBytes ?? WINDOW_BYTES;
  }

  /** The seq of the newest event (`after` while empty). */
  get lastSeq(): number {
    return this.last;
  }

  /** True once `done` is in the log: nothing follows it. */
  get finished(): boolean {
    return this.ended;
  }

  /** Whether the event `seq` (or, past the end, the next one appended) is read from memory; older ones are the store's. */
  holds(seq: number): boolean {
    return seq >= this.first;
  }

  /** The events held in memory now, and their text size: what the log costs (bench:turn-memory). */
  get held(): { events: number; bytes: number } {
    return { events: this.events.length - this.head, bytes: this.heldBytes };
  }

  /** Appends an event and returns its seq. Anything after `done` is refused: the turn is over. */
  append(event: TurnEvent): number {
    if (this.ended) throw new Error(`turn ${this.turnId} has ended: nothing can follow done`);
    this.events.push(event);
    const size = sizeOf(event);
    this.sizes.push(size);
    this.heldBytes += size;
    this.last++;
    if (event.event === 'done') this.ended = true;
    // Resolving runs nothing now (promise reactions are microtasks), so no reader re-parks during this loop.
    for (const wake of this.waiting) wake();
    this.waiting.clear();
    this.trim();
    return this.last;
  }

  /** The store has every event up to `seq`: memory may let them go once the readers have them. */
  storedUpTo(seq: number): void {
    if (seq <= this.stored) return;
    this.stored = Math.min(seq, this.last);
    this.trim();
  }

  /** The events held after `afterSeq` (none before `holds` says memory begins). */
  since(afterSeq: number): LoggedEvent[] {
    const out: LoggedEvent[] = [];
    for (let seq = Math.max(this.first, Math.floor(afterSeq) + 1); seq <= this.last; seq++) out.push({ seq, event: this.at(seq) });
    return out;
  }

  /**
   * Replays the events after `afterSeq` that memory holds, then follows live until `done`, until
   * `signal` aborts, or until the next event it needs was let go (it lagged past the window: `holds`
   * is then false for it, and the caller goes on from the store). A reader parks once per append it
   * waits for (one promise) and listens for the abort once in all.
   */
  async *read(afterSeq: number, signal?: AbortSignal): AsyncIterable<LoggedEvent> {
    const cursor: Cursor = { taken: Math.max(this.after, Math.floor(afterSeq)) };
    let parked: (() => void) | undefined;
    const onAbort = () => parked?.();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.cursors.add(cursor);
    try {
      for (;;) {
        while (cursor.taken < this.last) {
          if (signal?.aborted || !this.holds(cursor.taken + 1)) return;
          const seq = cursor.taken + 1;
          const event = this.at(seq);
          cursor.taken = seq;
          yield { seq, event };
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
      this.cursors.delete(cursor);
      this.trim();
    }
  }

  private at(seq: number): TurnEvent {
    return this.events[this.head + seq - this.first]!;
  }

  /**
   * Lets go of stored events every reader has taken, and of stored events past the window that a
   * lagging reader has not (it reads them from the store). Events not stored yet are always kept.
   */
  private trim(): void {
    if (this.keepAll) return;
    let slowest = this.stored;
    for (const c of this.cursors) slowest = Math.min(slowest, c.taken);
    while (this.first <= this.stored && (this.first <= slowest || this.heldBytes > this.windowBytes)) {
      this.heldBytes -= this.sizes[this.head]!;
      this.events[this.head] = undefined as unknown as TurnEvent;
      this.head++;
      this.first++;
    }
    // Emptied, or compacted now and then, so letting go stays O(1) per event.
    if (this.head === this.events.length) {
      this.events = [];
      this.sizes = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
  }
}

/** About what an event weighs in memory: a text delta its text (the most frequent by far), anything else its JSON. */
function sizeOf(event: TurnEvent): number {
  return event.event === 'text_delta' ? event.data.text.length + 64 : JSON.stringify(event.data).length + 64;
}
