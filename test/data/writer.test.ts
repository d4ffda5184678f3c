// The batching writer against scripted sinks: batching, never blocking, retries, bounded memory, and
// every row accounted for as written or reported dropped.
import { describe, expect, it, vi } from 'vitest';
import type { ActivityRow, ActivitySink, TurnRow } from '../../src/activity/types.ts';
import { createActivityWriter } from '../../src/activity/writer.ts';
import { activityRows, turnRows } from './fixture.ts';

function row(i: number): ActivityRow {
  return { ...activityRows()[0]!, id: `r${i}` };
}

class ScriptedSink implements ActivitySink {
  readonly name = 'scripted';
  batches: ActivityRow[][] = [];
  turns: TurnRow[][] = [];
  /** Fail this many calls first. */
  failures = 0;
  delayMs = 0;
  calls = 0;
  async writeActivity(rows: ActivityRow[]) {
    this.calls++;
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.failures > 0) {
      this.failures--;
      throw new Error('sink down');
    }
    this.batches.push(rows);
  }
  async writeTurns(rows: TurnRow[]) {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('sink down');
    }
    this.turns.push(rows);
  }
}

describe('BatchingActivityWriter', () => {
  it('writes a full batch at once (taking the rest along) and a partial one after the interval', async () => {
    const sink = new ScriptedSink();
    const writer = createActivityWriter(sink, { batchSize: 3, flushIntervalMs: 300 });
    const t0 = performance.now();
    writer.recordCall(row(0));
    writer.recordCall(row(1));
    await new Promise((r) => setTimeout(r, 20));
    if (performance.now() - t0 < 250) expect(sink.calls).toBe(0);
    await vi.waitFor(() => expect(sink.batches.map((b) => b.length)).toEqual([2]), { timeout: 2_000, interval: 10 });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(295);
    for (let i = 2; i < 9; i++) writer.recordCall(row(i));
    expect(sink.calls).toBe(1); // nothing happens inside the caller's tick
    await vi.waitFor(() => expect(sink.batches.map((b) => b.length)).toEqual([2, 3, 3, 1]), { timeout: 250, interval: 5 });
    expect(await writer.flush()).toEqual({ written: 9, dropped: 0 });
    expect(await writer.flush()).toEqual({ written: 0, dropped: 0 });
  });

  it('flush writes what is queued, calls and turns', async () => {
    const sink = new ScriptedSink();
    const writer = createActivityWriter(sink, { batchSize: 100, flushIntervalMs: 60_000 });
    writer.recordCall(row(1));
    writer.recordTurn(turnRows()[0]!);
    expect(await writer.flush()).toEqual({ written: 2, dropped: 0 });
    expect(sink.batches.flat().map((r) => r.id)).toEqual(['r1']);
    expect(sink.turns.flat().map((r) => r.id)).toEqual(['T1']);
  });

  it('record* returns immediately even when the sink hangs', async () => {
    const sink = new ScriptedSink();
    sink.delayMs = 100;
    const writer = createActivityWriter(sink, { batchSize: 100, flushIntervalMs: 1 });
    const rows = Array.from({ length: 1_000 }, (_, i) => row(i));
    const started = performance.now();
    for (const r of rows) writer.recordCall(r);
    // Waiting on the sink would take 10 batches × 100 ms; the bound leaves room for a loaded machine.
    expect(performance.now() - started).toBeLessThan(250);
    expect(sink.calls).toBe(0);
    expect((await writer.flush()).written).toBe(1_000);
  });

  it('retries with backoff and then succeeds without loss', async () => {
    const sink = new ScriptedSink();
    sink.failures = 2;
    const log = vi.fn();
    const writer = createActivityWriter(sink, { batchSize: 10, retries: 3, backoffMs: 5, log });
    for (let i = 0; i < 4; i++) writer.recordCall(row(i));
    expect(await writer.flush()).toEqual({ written: 4, dropped: 0 });
    expect(sink.calls).toBe(3);
    expect(log).not.toHaveBeenCalled();
  });

  it('gives up after the retries and reports the count and one log line, never silently', async () => {
    const sink = new ScriptedSink();
    sink.failures = Number.POSITIVE_INFINITY;
    const log = vi.fn();
    const writer = createActivityWriter(sink, { batchSize: 10, retries: 2, backoffMs: 1, log });
    for (let i = 0; i < 4; i++) writer.recordCall(row(i));
    expect(await writer.flush()).toEqual({ written: 0, dropped: 4, lastError: 'sink down' });
    expect(sink.calls).toBe(3);
    expect(log).toHaveBeenCalledTimes(1);
    expect(log.mock.calls[0]?.[0]).toMatch(/gave up on 4 rows after 3 attempts: "sink down"/);
  });

  it('bounds its memory: beyond the cap rows are dropped, counted and logged once', async () => {
    const sink = new ScriptedSink();
    sink.delayMs = 50;
    const log = vi.fn();
    const writer = createActivityWriter(sink, { batchSize: 10, maxBuffered: 20, log });
    for (let i = 0; i < 50; i++) writer.recordCall(row(i));
    const report = await writer.flush();
    expect(report).toMatchObject({ written: 20, dropped: 30 });
    expect(report.written + report.dropped).toBe(50);
    expect(writer.stats()).toMatchObject({ overflowed: 30, queued: 0 });
    expect(log).toHaveBeenCalledTimes(1);
    expect(log.mock.calls[0]?.[0]).toMatch(/buffer full \(20 rows\)/);
  });

  it('never throws into the caller', () => {
    const writer = createActivityWriter(
      { name: 'x', writeActivity: () => Promise.reject(new Error('no')), writeTurns: () => Promise.reject(new Error('no')) },
      { log: () => {} },
    );
    expect(() => writer.recordCall(row(1))).not.toThrow();
  });
});
