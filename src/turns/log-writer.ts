// Persists a turn's log for readers on other instances. Text deltas wait at most `intervalMs` so a
// fast model costs a few rows a second, not one per token; any other event is written at once, so the
// stored log is never more than `intervalMs` behind the live one. One write is in flight at a time
// (rows arrive in seq order), and a failed write keeps its rows, as they were packed, for the next
// attempt: a write that did land after all is then ignored by the store, not merged differently.
import type { LoggedEvent } from '../vocabulary.ts';
import { quote } from '../quote.ts';
import { packEvents, type TurnEventRow, type TurnEventStore } from '../store/turn-events.ts';

export interface LogWriterOptions {
  store: TurnEventStore;
  turnId: string;
  /** The longest a text delta waits before it is written (ms). */
  intervalMs?: number;
  /** Where a failed write is reported (it is retried with the next flush). */
  log?: (line: string) => void;
  /** Told after each write that landed: every event up to this seq is stored (the live log may let them go). */
  stored?: (seq: number) => void;
}

export class TurnLogWriter {
  private readonly store: TurnEventStore;
  private readonly turnId: string;
  private readonly intervalMs: number;
  private readonly log: (line: string) => void;
  private readonly stored: (seq: number) => void;
  /** Logged events not yet handed to the store, in seq order. */
  private unwritten: LoggedEvent[] = [];
  /** Rows of a failed write, tried again first. */
  private failedRows: TurnEventRow[] = [];
  /** The write in flight (or the last one), so writes never overlap. */
  private writing: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Rows written so far: the bench's logRowsPerTurn. */
  rowsWritten = 0;

  constructor(options: LogWriterOptions) {
    this.store = options.store;
    this.turnId = options.turnId;
    this.intervalMs = options.intervalMs ?? 250;
    this.log = options.log ?? ((line) => console.error(line));
    this.stored = options.stored ?? (() => {});
  }

  add(entry: LoggedEvent): void {
    this.unwritten.push(entry);
    if (entry.event.event !== 'text_delta') void this.flush();
    else if (!this.timer) this.timer = setTimeout(() => void this.flush(), this.intervalMs);
  }

  /** Writes everything added so far; resolves when it is stored or the attempt failed (and was logged). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.writeUnwritten());
    return this.writing;
  }

  private async writeUnwritten(): Promise<void> {
    const rows = [...this.failedRows, ...packEvents(this.turnId, this.unwritten)];
    this.failedRows = [];
    this.unwritten = [];
    if (rows.length === 0) return;
    try {
      await this.store.appendEvents(rows);
      this.rowsWritten += rows.length;
      this.stored(rows.at(-1)!.lastSeq);
    } catch (err) {
      this.failedRows = rows;
      this.log(
        `rebound: turn ${this.turnId}: could not persist events ${rows[0]!.seq}–${rows.at(-1)!.lastSeq} (${quote(err instanceof Error ? err.message : err)}); retrying with the next write`,
      );
    }
  }

  /** Rows that could not be written yet (0 once everything is stored). */
  get pendingRows(): number {
    return this.failedRows.length + this.unwritten.length;
  }
}
