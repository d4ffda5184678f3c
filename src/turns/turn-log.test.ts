import { describe, expect, it } from 'vitest';
import type { LoggedEvent, TurnEvent } from '../vocabulary.ts';
import { MAX_ROW_TEXT, packEvents, unpackEvents, type TurnEventRow, type TurnEventStore } from '../store/turn-events.ts';
import { followPersisted, readThrough } from './follow-persisted.ts';
import { TurnLogWriter } from './log-writer.ts';
import { TurnLog, WINDOW_BYTES } from './turn-log.ts';

const text = (t: string): TurnEvent => ({ event: 'text_delta', data: { text: t } });
const done: TurnEvent = { event: 'done', data: { reason: 'completed', iterations: 1, usage: { promptTokens: 1, completionTokens: 2 } } };
const start: TurnEvent = { event: 'turn_start', data: { turnId: 't', sessionId: 's', model: 'm', demo: false } };
const call: TurnEvent = { event: 'tool_call', data: { id: 'c1', name: 'read_file', arguments: '{}', iteration: 1 } };

async function collect(iter: AsyncIterable<LoggedEvent>): Promise<LoggedEvent[]> {
  const out: LoggedEvent[] = [];
  for await (const e of iter) out.push(e);
  return out;
}

class ArrayStore implements TurnEventStore {
  rows: TurnEventRow[] = [];
  failNext = 0;
  writes = 0;
  async appendEvents(rows: TurnEventRow[]) {
    this.writes++;
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('down');
    }
    for (const r of rows) if (!this.rows.some((x) => x.turnId === r.turnId && x.seq === r.seq)) this.rows.push(structuredClone(r));
  }
  async eventsAfter(turnId: string, afterSeq: number, options: { limit?: number } = {}) {
    return this.rows
      .filter((r) => r.turnId === turnId && r.lastSeq > afterSeq)
      .sort((a, b) => a.seq - b.seq)
      .slice(0, options.limit);
  }
}

describe('TurnLog', () => {
  it('numbers events from 1 and replays from any position, then follows live until done', async () => {
    const log = new TurnLog('t');
    log.append(start);
    log.append(text('a'));
    const reader = collect(log.read(1));
    log.append(text('b'));
    setTimeout(() => log.append(done), 5);
    const events = await reader;
    expect(events.map((e) => e.seq)).toEqual([2, 3, 4]);
    expect(events.map((e) => e.event.event)).toEqual(['text_delta', 'text_delta', 'done']);
    expect(log.finished).toBe(true);
    expect(() => log.append(text('late'))).toThrow(/nothing can follow done/);
  });

  it('gives two readers the same events, and a reader that leaves ends only itself', async () => {
    const log = new TurnLog('t');
    const leaving = new AbortController();
    const first = collect(log.read(0));
    const second = collect(log.read(0, leaving.signal));
    log.append(start);
    await new Promise((r) => setTimeout(r, 1));
    leaving.abort();
    log.append(text('x'));
    log.append(done);
    expect((await first).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect((await second).map((e) => e.seq)).toEqual([1]);
  });
});

describe('packEvents / unpackEvents', () => {
  it('merges runs of text deltas into one row and unpacks event for event from any seq', () => {
    const events: LoggedEvent[] = [start, text('a'), text('b'), text('c'), call, text('d'), done].map((event, i) => ({ seq: i + 1, event }));
    const rows = packEvents('t', events);
    expect(rows.map((r) => [r.seq, r.lastSeq, r.event])).toEqual([
      [1, 1, 'turn_start'],
      [2, 4, 'text_delta'],
      [5, 5, 'tool_call'],
      [6, 6, 'text_delta'],
      [7, 7, 'done'],
    ]);
    for (let after = 0; after <= 7; after++) {
      expect(unpackEvents(rows, after)).toEqual(events.slice(after));
    }
  });
});

describe('packEvents, rows of bounded size', () => {
  it('starts a new row of text past MAX_ROW_TEXT, so that a page of rows is bounded; the events read back the same', () => {
    const events: LoggedEvent[] = Array.from({ length: 100 }, (_, i) => ({ seq: i + 1, event: text('x'.repeat(10 * 1024)) }));
    const rows = packEvents('t', events);
    expect(rows.length).toBe(Math.ceil((100 * 10 * 1024) / MAX_ROW_TEXT));
    for (const row of rows) expect((row.data as { texts: string[] }).texts.join('').length).toBeLessThanOrEqual(MAX_ROW_TEXT);
    expect(unpackEvents(rows, 0)).toEqual(events);
  });
});

describe('TurnLog, a window over the stored log', () => {
  /** A log whose writer stores every event (as LiveTurns wires it), and the store behind it. */
  function storedLog() {
    const store = new ArrayStore();
    const log = new TurnLog('t');
    const writer = new TurnLogWriter({ store, turnId: 't', intervalMs: 1, stored: (seq) => log.storedUpTo(seq) });
    const append = (event: TurnEvent) => writer.add({ seq: log.append(event), event });
    return { store, log, writer, append };
  }
  const kb = (n: number) => text('x'.repeat(n * 1024));

  it('holds nothing once every event is stored and no reader lags: a paused or finished turn costs its record', async () => {
    const { log, writer, append } = storedLog();
    append(start);
    for (let i = 0; i < 100; i++) append(kb(10));
    // Not stored yet: all of it is held (it is nowhere else).
    expect(log.held.events).toBe(101);
    await writer.flush();
    expect(log.held).toEqual({ events: 0, bytes: 0 });
    expect(log.holds(1)).toBe(false);
    expect(log.holds(102)).toBe(true); // the next event appended
  });

  it('keeps for a lagging reader at most the window of stored events; it reads the rest from the store, nothing skipped or doubled', async () => {
    const { store, log, writer, append } = storedLog();
    const signal = new AbortController().signal;
    const lagging = readThrough(log, store, 0, signal)[Symbol.asyncIterator]();
    const seen: number[] = [];
    const take = async () => {
      const next = await lagging.next();
      if (!next.done) seen.push(next.value.seq);
      return next;
    };
    append(start);
    await take();
    for (let i = 0; i < 200; i++) append(kb(10)); // 2 MB the reader has not taken
    await writer.flush();
    expect(log.held.bytes).toBeLessThanOrEqual(WINDOW_BYTES);
    append(done);
    await writer.flush();
    while (!(await take()).done);
    expect(seen).toEqual(Array.from({ length: 202 }, (_, i) => i + 1));
    expect(log.held.events).toBe(0);
  });

  it('a reader from before the window replays from the store, then follows live', async () => {
    const { store, log, writer, append } = storedLog();
    append(start);
    append(text('a'));
    await writer.flush();
    expect(log.held.events).toBe(0);
    const reader = collect(readThrough(log, store, 0, new AbortController().signal));
    await new Promise((r) => setTimeout(r, 5));
    append(text('b'));
    append(done);
    await writer.flush();
    expect((await reader).map((e) => [e.seq, e.event.event === 'text_delta' ? e.event.data.text : e.event.event])).toEqual([
      [1, 'turn_start'],
      [2, 'a'],
      [3, 'b'],
      [4, 'done'],
    ]);
  });

  it('keeps every event when no store stands behind it', () => {
    const log = new TurnLog('t', 0, { stored: false });
    log.append(start);
    log.storedUpTo(1);
    for (let i = 0; i < 100; i++) log.append(kb(10));
    expect(log.held.events).toBe(101);
    expect(log.since(0)).toHaveLength(101);
  });
});

describe('TurnLogWriter', () => {
  it('writes other events at once and text within the interval, few rows for many deltas', async () => {
    const store = new ArrayStore();
    const writer = new TurnLogWriter({ store, turnId: 't', intervalMs: 20 });
    writer.add({ seq: 1, event: start });
    for (let i = 0; i < 100; i++) writer.add({ seq: i + 2, event: text(`w${i} `) });
    await new Promise((r) => setTimeout(r, 60));
    expect(unpackEvents(store.rows, 0)).toHaveLength(101);
    expect(store.rows.length).toBe(2);
    writer.add({ seq: 102, event: done });
    await writer.flush();
    expect(unpackEvents(store.rows, 0).map((e) => e.seq)).toEqual(Array.from({ length: 102 }, (_, i) => i + 1));
  });

  it('keeps the rows of a failed write and writes them first next time, nothing lost or doubled', async () => {
    const store = new ArrayStore();
    const lines: string[] = [];
    const writer = new TurnLogWriter({ store, turnId: 't', intervalMs: 5, log: (l) => lines.push(l) });
    store.failNext = 2; // the write add() starts, and the flush below
    writer.add({ seq: 1, event: start });
    await writer.flush();
    expect(store.rows).toHaveLength(0);
    expect(writer.pendingRows).toBe(1);
    expect(lines[0]).toMatch(/could not persist events 1–1/);
    writer.add({ seq: 2, event: text('a') });
    writer.add({ seq: 3, event: done });
    await writer.flush();
    expect(unpackEvents(store.rows, 0).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(writer.pendingRows).toBe(0);
  });
});

describe('followPersisted', () => {
  it('replays the stored log, then follows it by polling until done, contiguous', async () => {
    const store = new ArrayStore();
    const writer = new TurnLogWriter({ store, turnId: 't', intervalMs: 5 });
    const all = [start, text('a'), text('b'), call, text('c'), done];
    writer.add({ seq: 1, event: all[0]! });
    writer.add({ seq: 2, event: all[1]! });
    await writer.flush();
    const reading = collect(followPersisted({ store, turnId: 't', afterSeq: 1, pollMs: 5 }));
    for (let i = 2; i < all.length; i++) {
      await new Promise((r) => setTimeout(r, 3));
      writer.add({ seq: i + 1, event: all[i]! });
    }
    await writer.flush();
    const events = await reading;
    expect(events.map((e) => e.seq)).toEqual([2, 3, 4, 5, 6]);
    expect(events.map((e) => e.event)).toEqual(all.slice(1));
  });

  it('ends when the turn is no longer running and nothing new arrives', async () => {
    const store = new ArrayStore();
    const events = await collect(followPersisted({ store, turnId: 'gone', afterSeq: 0, pollMs: 5, stillRunning: async () => false }));
    expect(events).toEqual([]);
  });
});
