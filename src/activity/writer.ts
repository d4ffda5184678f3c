// The batching activity writer. The loop calls record* on the streaming path, so those only push onto a
// bounded in-memory queue and arm a timer; all I/O happens in a background drain. Rows leave the queue
// only as written or as dropped (counted, logged), never silently.
// Two kinds of failure, two answers: a sink that cannot be reached gets the whole batch again, with
// backoff, and after the retries the batch is given up on (one call per attempt, however long the
// outage); a batch the database refuses (RowsRefusedError: a row's value, not the connection) is split
// in halves until the rows at fault stand alone, so one poison row costs itself and nothing else, in
// about 2·log2(batch) extra calls.
import { delay } from '../delay.ts';
import { quote } from '../quote.ts';
import { RowsRefusedError, type ActivityRow, type ActivitySink, type ActivityWriter, type FlushReport, type RefusedRow, type TurnRow } from './types.ts';

export interface WriterOptions {
  /** Rows per sink call; a full batch starts a drain at once. */
  batchSize?: number;
  /** How long a partial batch may wait before it is written. */
  flushIntervalMs?: number;
  /** Rows held in memory at most (queued plus in flight); beyond it new rows are dropped and counted. */
  maxBuffered?: number;
  /** Attempts per batch after the first. */
  retries?: number;
  /** First backoff; doubled per attempt, with jitter, up to maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Where the one line per loss goes. */
  log?: (line: string) => void;
}

export interface WriterStats {
  written: number;
  dropped: number;
  overflowed: number;
  queued: number;
  lastError?: string;
}

type Item = { kind: 'call'; row: ActivityRow } | { kind: 'turn'; row: TurnRow };

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
/** Refused rows listed in one FlushReport at most (all are counted in `dropped`), and named in one log line. */
const MAX_LISTED = 100;
const MAX_NAMED = 5;

export class BatchingActivityWriter implements ActivityWriter {
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private readonly maxBuffered: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly log: (line: string) => void;

  private queue: Item[] = [];
  private inFlight = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private draining: Promise<void> | undefined;
  private overflowing = false;
  /** Since the last flush(): what flush reports. */
  private report: FlushReport = { written: 0, dropped: 0 };
  private readonly totals: WriterStats = { written: 0, dropped: 0, overflowed: 0, queued: 0 };

  private readonly sink: ActivitySink;
  constructor(sink: ActivitySink, options: WriterOptions = {}) {
    this.sink = sink;
    this.batchSize = Math.max(1, options.batchSize ?? 100);
    this.flushIntervalMs = options.flushIntervalMs ?? 250;
    this.maxBuffered = Math.max(this.batchSize, options.maxBuffered ?? 10_000);
    this.retries = options.retries ?? 4;
    this.backoffMs = options.backoffMs ?? 200;
    this.maxBackoffMs = options.maxBackoffMs ?? 5_000;
    this.log = options.log ?? ((line) => console.error(line));
  }

  recordCall(row: ActivityRow): void {
    this.enqueue({ kind: 'call', row });
  }

  recordTurn(row: TurnRow): void {
    this.enqueue({ kind: 'turn', row });
  }

  /** Resolves when every row handed in so far is written or given up on; reports those since the last flush. */
  async flush(): Promise<FlushReport> {
    this.clearTimer();
    while (this.queue.length > 0 || this.draining) {
      await (this.draining ?? this.startDrain());
    }
    const report = this.report;
    this.report = { written: 0, dropped: 0 };
    return report;
  }

  stats(): WriterStats {
    return { ...this.totals, queued: this.queue.length + this.inFlight };
  }

  private enqueue(item: Item): void {
    try {
      if (this.queue.length + this.inFlight >= this.maxBuffered) {
        // Overflow means the sink is down or slower than the loop; one line per episode, not per row.
        if (!this.overflowing) {
          this.overflowing = true;
          this.log(`[activity] buffer full (${this.maxBuffered} rows): dropping new rows until ${this.sink.name} catches up`);
        }
        this.totals.overflowed++;
        this.lose(1, `buffer full (${this.maxBuffered} rows)`);
        return;
      }
      this.queue.push(item);
      if (this.queue.length >= this.batchSize) {
        this.clearTimer();
        // A macrotask, not a microtask: the drain's own work must not run inside the caller's tick.
        if (!this.draining) this.timer = this.arm(0);
      } else if (!this.timer && !this.draining) {
        this.timer = this.arm(this.flushIntervalMs);
      }
    } catch {
      // record* must never throw into the stream.
    }
  }

  private arm(ms: number): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.draining) void this.startDrain();
    }, ms);
    // Node: a pending log write must not keep a finished process alive (flush() is how to wait for it).
    (timer as { unref?: () => void }).unref?.();
    return timer;
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private startDrain(): Promise<void> {
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      // Rows that arrived during the drain but did not fill a batch still need their timer.
      if (this.queue.length > 0 && !this.timer) this.timer = this.arm(this.queue.length >= this.batchSize ? 0 : this.flushIntervalMs);
    });
    return this.draining;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.batchSize);
      this.inFlight += batch.length;
      try {
        const calls = batch.flatMap((i) => (i.kind === 'call' ? [i.row] : []));
        const turns = batch.flatMap((i) => (i.kind === 'turn' ? [i.row] : []));
        if (calls.length > 0) await this.writeBatch('call', calls, (rows) => this.sink.writeActivity(rows));
        if (turns.length > 0) await this.writeBatch('turn', turns, (rows) => this.sink.writeTurns(rows));
      } finally {
        this.inFlight -= batch.length;
        if (this.queue.length + this.inFlight < this.maxBuffered) this.overflowing = false;
      }
    }
  }

  /** Writes one batch of one kind; names the rows the database refused, if any, in one log line. */
  private async writeBatch<R extends { id: string }>(kind: RefusedRow['kind'], rows: R[], write: (rows: R[]) => Promise<void>): Promise<void> {
    const refused: RefusedRow[] = [];
    await this.writeWithRetry(kind, rows, write, refused);
    if (refused.length === 0) return;
    const named = refused
      .slice(0, MAX_NAMED)
      .map((r) => `${quote(r.id, 80)} (${quote(r.error)})`)
      .join(', ');
    const more = refused.length > MAX_NAMED ? ` and ${refused.length - MAX_NAMED} more` : '';
    this.log(`[activity] ${this.sink.name}: refused ${refused.length} of ${rows.length} ${kind} rows, wrote the others: ${named}${more}`);
  }

  private async writeWithRetry<R extends { id: string }>(
    kind: RefusedRow['kind'],
    rows: R[],
    write: (rows: R[]) => Promise<void>,
    refused: RefusedRow[],
  ): Promise<void> {
    let lastError = '';
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0) {
        const base = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** (attempt - 1));
        await delay(base / 2 + Math.random() * (base / 2));
      }
      try {
        await write(rows);
        this.report.written += rows.length;
        this.totals.written += rows.length;
        return;
      } catch (error) {
        if (error instanceof RowsRefusedError) return this.isolate(kind, rows, write, refused, error.message);
        lastError = messageOf(error);
      }
    }
    this.log(`[activity] ${this.sink.name}: gave up on ${rows.length} rows after ${this.retries + 1} attempts: ${quote(lastError)}`);
    this.lose(rows.length, lastError);
  }

  /** The database refused `rows`: a lone row is reported; a larger batch is split and each half written on its own. */
  private async isolate<R extends { id: string }>(
    kind: RefusedRow['kind'],
    rows: R[],
    write: (rows: R[]) => Promise<void>,
    refused: RefusedRow[],
    error: string,
  ): Promise<void> {
    if (rows.length === 1) {
      const row: RefusedRow = { kind, id: rows[0]!.id, error };
      refused.push(row);
      this.lose(1, error);
      this.report.refused ??= [];
      const listed = this.report.refused;
      if (listed.length < MAX_LISTED) listed.push(row);
      return;
    }
    const half = Math.ceil(rows.length / 2);
    // Each half gets the full treatment: retried if the sink went away meanwhile, split again if refused.
    await this.writeWithRetry(kind, rows.slice(0, half), write, refused);
    await this.writeWithRetry(kind, rows.slice(half), write, refused);
  }

  private lose(count: number, error: string): void {
    this.report.dropped += count;
    this.report.lastError = error;
    this.totals.dropped += count;
    this.totals.lastError = error;
  }
}

export function createActivityWriter(sink: ActivitySink, options?: WriterOptions): BatchingActivityWriter {
  return new BatchingActivityWriter(sink, options);
}
