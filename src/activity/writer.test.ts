// The writer's answer to a failed batch: a row the database refuses is isolated and reported, the rest
// written; a sink that is down gets the whole batch again and is never split into many calls.
import { describe, expect, it, vi } from 'vitest';
import { sinkError } from './sinks/refusal.ts';
import { storableTurn, tokenCount } from './sinks/storable.ts';
import { RowsRefusedError, type ActivityRow, type ActivitySink, type TurnRow } from './types.ts';
import { createActivityWriter } from './writer.ts';
import { ESCAPE } from '../store/text-codec.ts';

const call = (id: string): ActivityRow => ({
  id,
  turn_id: 't',
  session_id: 's',
  user_id: null,
  iteration: 1,
  model: 'm',
  call_id: `call_${id}`,
  tool_requested: 'read_file',
  tool_resolved: 'read_file',
  verdict: 'pass',
  category: 'valid',
  problems: [],
  repairs: [],
  suggestions: [],
  invented_params: [],
  arguments: '{}',
  error: null,
  duration_ms: 1,
  created_at: '2025-03-01T00:00:00.000Z',
  source: 'loop',
});

const turn = (id: string): TurnRow => ({
  id,
  session_id: 's',
  user_id: null,
  model: 'm',
  outcome: 'completed',
  iterations: 1,
  tool_calls: 0,
  prompt_tokens: 1,
  completion_tokens: 1,
  duration_ms: 1,
  started_at: '2025-03-01T00:00:00.000Z',
  finished_at: '2025-03-01T00:00:01.000Z',
});

/** Behaves like a database behind a network: refuses any statement holding a poison id, and can be down. */
class FakeDatabase implements ActivitySink {
  readonly name = 'fake';
  readonly stored = new Set<string>();
  calls = 0;
  /** Calls that fail as if the sink were unreachable, from now on. */
  downFor = 0;
  private readonly poison: Set<string>;
  constructor(poison: Set<string>) {
    this.poison = poison;
  }
  private async write(rows: Array<{ id: string }>) {
    this.calls++;
    if (this.downFor > 0) {
      this.downFor--;
      throw new Error('fetch failed');
    }
    const bad = rows.find((r) => this.poison.has(r.id));
    if (bad) throw new RowsRefusedError(`value out of range in ${bad.id}`, { code: '22003' });
    for (const r of rows) this.stored.add(r.id);
  }
  writeActivity = (rows: ActivityRow[]) => this.write(rows);
  writeTurns = (rows: TurnRow[]) => this.write(rows);
}

const ids = (n: number, prefix = 'r') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('a batch the database refuses', () => {
  it('of 100 with one poison row: writes 99, reports the one by id with its error, in a few calls', async () => {
    const sink = new FakeDatabase(new Set(['r37']));
    const log = vi.fn();
    const writer = createActivityWriter(sink, { batchSize: 100, retries: 3, backoffMs: 1, log });
    for (const id of ids(100)) writer.recordCall(call(id));
    const report = await writer.flush();
    expect(report).toEqual({
      written: 99,
      dropped: 1,
      lastError: 'value out of range in r37',
      refused: [{ kind: 'call', id: 'r37', error: 'value out of range in r37' }],
    });
    expect(sink.stored.size).toBe(99);
    expect(sink.stored.has('r37')).toBe(false);
    // The batch, then two halves per level down to the row: 1 + 2·⌈log2 100⌉.
    expect(sink.calls).toBeLessThanOrEqual(1 + 2 * Math.ceil(Math.log2(100)));
    expect(log).toHaveBeenCalledTimes(1);
    expect(log.mock.calls[0]?.[0]).toBe('[activity] fake: refused 1 of 100 call rows, wrote the others: "r37" ("value out of range in r37")');
  });

  it('isolates several poison rows, turn rows too, and keeps the report per flush', async () => {
    const sink = new FakeDatabase(new Set(['r0', 'r99', 'T3']));
    const log = vi.fn();
    const writer = createActivityWriter(sink, { batchSize: 200, retries: 1, backoffMs: 1, log });
    for (const id of ids(100)) writer.recordCall(call(id));
    for (const id of ids(10, 'T')) writer.recordTurn(turn(id));
    const report = await writer.flush();
    expect(report).toMatchObject({ written: 107, dropped: 3 });
    expect(report.refused?.map((r) => [r.kind, r.id])).toEqual([
      ['call', 'r0'],
      ['call', 'r99'],
      ['turn', 'T3'],
    ]);
    expect(log.mock.calls.map((c) => c[0])).toEqual([
      expect.stringMatching(/^\[activity\] fake: refused 2 of 100 call rows, wrote the others: "r0" \(.*\), "r99" \(.*\)$/),
      expect.stringMatching(/^\[activity\] fake: refused 1 of 10 turn rows/),
    ]);
    expect(await writer.flush()).toEqual({ written: 0, dropped: 0 });
  });

  it('when every row is refused: each is reported, and the calls stay within 2n', async () => {
    const sink = new FakeDatabase(new Set(ids(8)));
    const writer = createActivityWriter(sink, { batchSize: 8, backoffMs: 1, log: () => {} });
    for (const id of ids(8)) writer.recordCall(call(id));
    const report = await writer.flush();
    expect(report).toMatchObject({ written: 0, dropped: 8 });
    expect(report.refused).toHaveLength(8);
    expect(sink.calls).toBe(2 * 8 - 1);
  });

  it('lists at most 100 refused rows in a report, and counts them all', async () => {
    const sink = new FakeDatabase(new Set(ids(150)));
    const writer = createActivityWriter(sink, { batchSize: 150, backoffMs: 1, log: () => {} });
    for (const id of ids(150)) writer.recordCall(call(id));
    const report = await writer.flush();
    expect(report.dropped).toBe(150);
    expect(report.refused).toHaveLength(100);
  });
});

describe('a sink that is down', () => {
  it('gets the whole batch again, not split, and nothing is lost when it comes back', async () => {
    const sink = new FakeDatabase(new Set());
    sink.downFor = 3;
    const log = vi.fn();
    const writer = createActivityWriter(sink, { batchSize: 100, retries: 4, backoffMs: 1, log });
    for (const id of ids(100)) writer.recordCall(call(id));
    expect(await writer.flush()).toEqual({ written: 100, dropped: 0 });
    expect(sink.calls).toBe(4);
    expect(log).not.toHaveBeenCalled();
  });

  it('that stays down: the batch is given up on after the retries, one call per attempt', async () => {
    const sink = new FakeDatabase(new Set(['r5']));
    sink.downFor = Number.POSITIVE_INFINITY;
    const log = vi.fn();
    const writer = createActivityWriter(sink, { batchSize: 1000, retries: 2, backoffMs: 1, log });
    for (const id of ids(1000)) writer.recordCall(call(id));
    expect(await writer.flush()).toEqual({ written: 0, dropped: 1000, lastError: 'fetch failed' });
    expect(sink.calls).toBe(3);
    expect(log.mock.calls.map((c) => c[0])).toEqual(['[activity] fake: gave up on 1000 rows after 3 attempts: "fetch failed"']);
  });

  it('first down, then refusing a poison row: retried whole until it is back, then the row is isolated', async () => {
    const sink = new FakeDatabase(new Set(['r50']));
    sink.downFor = 2;
    const writer = createActivityWriter(sink, { batchSize: 100, retries: 3, backoffMs: 1, log: () => {} });
    for (const id of ids(100)) writer.recordCall(call(id));
    const report = await writer.flush();
    expect(report).toMatchObject({ written: 99, dropped: 1, refused: [{ kind: 'call', id: 'r50' }] });
  });

  it('going down while a refused batch is being split: the halves are retried, nothing else is lost', async () => {
    const sink = new FakeDatabase(new Set(['r3']));
    const writer = createActivityWriter(sink, { batchSize: 100, retries: 3, backoffMs: 1, log: () => {} });
    const write = sink.writeActivity;
    // The first call is refused (poison), the next two find the sink down, then it is back.
    sink.writeActivity = async (rows) => {
      if (sink.calls === 1) sink.downFor = 2;
      return write(rows);
    };
    for (const id of ids(100)) writer.recordCall(call(id));
    expect(await writer.flush()).toMatchObject({ written: 99, dropped: 1, refused: [{ id: 'r3' }] });
  });
});

describe('sink errors: a row at fault or a sink out of reach', () => {
  it.each([
    [{ code: '22P05', message: 'unsupported Unicode escape sequence' }, true],
    [{ code: '22003', message: 'value "3000000000" is out of range for type integer' }, true],
    [{ code: '23514', message: 'new row violates check constraint' }, true],
    [{ code: '21000', message: 'ON CONFLICT DO UPDATE command cannot affect row a second time' }, true],
    [{ code: '54000', message: 'total size of jsonb array elements exceeds the maximum' }, true],
    [{ code: 'PGRST000', message: 'Could not connect with the database' }, false],
    [{ code: '', message: 'TypeError: fetch failed' }, false],
    [{ code: '25006', message: 'cannot execute INSERT in a read-only transaction' }, false],
    [{ code: '53100', message: 'could not extend file: No space left on device' }, false],
    [new Error('PGlite is closed'), false],
  ])('%o → refused: %s', (error, refused) => {
    const e = sinkError('agent_activity insert', error);
    expect(e).toBeInstanceOf(Error);
    expect(e instanceof RowsRefusedError).toBe(refused);
    expect(e.message).toBe(`agent_activity insert: ${error.message}`);
  });
});

describe('turn rows as stored', () => {
  it.each([
    [120, 120],
    [3e9, 3e9],
    [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
    [2 ** 53, null],
    [-1, null],
    [1.5, null],
    [Number.NaN, null],
    [Number.POSITIVE_INFINITY, null],
    ['abc', null],
    ['12', null],
    [null, null],
    [undefined, null],
  ])('a token count of %o is stored as %o', (value, stored) => {
    expect(tokenCount(value)).toBe(stored);
    const row = storableTurn({ ...turn('T'), prompt_tokens: value as number, completion_tokens: value as number });
    expect([row.prompt_tokens, row.completion_tokens]).toEqual([stored, stored]);
  });

  it('have their text encoded like every stored value', () => {
    expect(storableTurn({ ...turn('T'), model: 'm\u0000' }).model).toBe(`m${ESCAPE}0000`);
  });
});
