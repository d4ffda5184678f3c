// The batching activity writer. The loop calls record* on the streaming path, so those only push onto a
// bounded in-memory queue and arm a timer; all I/O happens in a background drain. Rows leave the queue
// only as written or as dropped (counted, logged), never silently.
import type { ActivityRow, ActivitySink, ActivityWriter, FlushReport, TurnRow } from './types.ts';

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

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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

  constructor(
    private readonly sink: ActivitySink,
    options: WriterOptions = {},
  ) {
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
        if (calls.length > 0) await this.writeWithRetry(calls.length, () => this.sink.writeActivity(calls));
        if (turns.length > 0) await this.writeWithRetry(turns.length, () => this.sink.writeTurns(turns));
      } finally {
        this.inFlight -= batch.length;
        if (this.queue.length + this.inFlight < this.maxBuffered) this.overflowing = false;
      }
    }
  }

  private async writeWithRetry(count: number, write: () => Promise<void>): Promise<void> {
    let lastError = '';
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0) {
        const base = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** (attempt - 1));
        await sleep(base / 2 + Math.random() * (base / 2));
      }
      try {
        await write();
        this.report.written += count;
        this.totals.written += count;
        return;
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
      }
    }
    this.log(`[activity] ${this.sink.name}: gave up on ${count} rows after ${this.retries + 1} attempts: ${lastError}`);
    this.lose(count, lastError);
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
