// What every activity sink must do on a real database, checked through the batching writer: rows with
// any text in them are written and read back exactly (once decoded), token counts out of range do not
// fail the turn rows, and one row the database refuses costs only itself.
import { expect } from 'vitest';
import type { ActivityRow, ActivitySink, TurnRow } from '../../src/activity/types.ts';
import { createActivityWriter } from '../../src/activity/writer.ts';
import { decodeDeep } from '../../src/store/text-codec.ts';
import { activityRows, turnRows } from './fixture.ts';
import { NASTY_STRINGS } from './storage-contract.ts';

export interface ActivityDb {
  /** The stored agent_activity row, every column, as the driver returns it. */
  activity(id: string): Promise<Record<string, unknown> | undefined>;
  /** prompt_tokens, completion_tokens and model of the stored agent_turns row. */
  turn(id: string): Promise<{ prompt_tokens: unknown; completion_tokens: unknown; model: string } | undefined>;
  /** How many agent_activity rows have an id starting with `prefix`. */
  countActivity(prefix: string): Promise<number>;
}

const iso = (v: unknown) => new Date(v as string).toISOString();
/** The fixture's rows a year earlier, out of the range the dashboard checks count in the same database. */
const yearEarlier = (at: string) => at.replace(/^2025-/, '2024-');
const calls = (prefix: string) => activityRows(prefix).map((r) => ({ ...r, created_at: yearEarlier(r.created_at) }));
const turnsOf = (prefix: string) => turnRows(prefix).map((r) => ({ ...r, started_at: yearEarlier(r.started_at), finished_at: yearEarlier(r.finished_at) }));

/** An activity row with hostile text in every text field, the model's and the gate's. */
function nastyRow(id: string, s: string): ActivityRow {
  return {
    ...calls('')[0]!,
    id,
    call_id: `call ${s}`,
    tool_requested: `tool ${s}`,
    tool_resolved: `resolved ${s}`,
    problems: [`problem ${s}`],
    repairs: [{ kind: 'coerce', path: `$.${s}`, from: s, to: `"${s}"`, category: 'wrong_type' }],
    suggestions: [`suggestion ${s}`],
    invented_params: [s],
    arguments: `{"${s}": "${s}`,
    error: `error ${s}`,
  };
}

export async function checkLosslessActivity(sink: ActivitySink, db: ActivityDb, prefix: string): Promise<void> {
  const rows = NASTY_STRINGS.map((s, i) => nastyRow(`${prefix}-nasty-${i}`, s));
  const innocent = calls(`${prefix}-`);
  const turns: TurnRow[] = [
    { ...turnsOf(`${prefix}-`)[0]!, model: `model ${NASTY_STRINGS.at(-1)}`, prompt_tokens: 3e9, completion_tokens: Number.MAX_SAFE_INTEGER },
    { ...turnsOf(`${prefix}-`)[1]!, prompt_tokens: 'abc' as unknown as number, completion_tokens: -5 },
    ...turnsOf(`${prefix}-`).slice(2),
  ];
  const log: string[] = [];
  const writer = createActivityWriter(sink, { batchSize: 100, log: (l) => log.push(l) });
  // One batch: hostile rows and innocent ones together, as the turns of several users are.
  for (const row of [...innocent.slice(0, 6), ...rows, ...innocent.slice(6)]) writer.recordCall(row);
  for (const row of turns) writer.recordTurn(row);
  expect(await writer.flush()).toEqual({ written: rows.length + innocent.length + turns.length, dropped: 0 });
  expect(log).toEqual([]);

  for (const row of [...rows, ...innocent]) {
    const stored = await db.activity(row.id);
    expect(stored).toBeDefined();
    // The row's own fields (columns added later, with their defaults, are not this check's business).
    const fields = Object.fromEntries(Object.keys(row).map((k) => [k, k === 'created_at' ? iso(stored![k]) : stored![k]]));
    expect(decodeDeep(fields)).toEqual({ ...row, created_at: iso(row.created_at) });
  }
  const first = await db.turn(turns[0]!.id);
  expect([Number(first?.prompt_tokens), Number(first?.completion_tokens), decodeDeep(first?.model)]).toEqual([3e9, Number.MAX_SAFE_INTEGER, turns[0]!.model]);
  const second = await db.turn(turns[1]!.id);
  expect([second?.prompt_tokens, second?.completion_tokens]).toEqual([null, null]);
}

/** A batch of 100 with one row the database refuses (an iteration past the integer column): 99 written, 1 reported. */
export async function checkPoisonRow(sink: ActivitySink, db: ActivityDb, prefix: string): Promise<void> {
  const rows = Array.from({ length: 100 }, (_, i) => ({ ...calls('')[i % 12]!, id: `${prefix}-${i}`, turn_id: `${prefix}-turn` }));
  rows[41] = { ...rows[41]!, iteration: 3e9 };
  const log: string[] = [];
  const writer = createActivityWriter(sink, { batchSize: 100, flushIntervalMs: 5, backoffMs: 10, log: (l) => log.push(l) });
  for (const row of rows) writer.recordCall(row);
  const report = await writer.flush();
  expect(report).toMatchObject({
    written: 99,
    dropped: 1,
    refused: [{ kind: 'call', id: `${prefix}-41`, error: expect.stringMatching(/out of range for type integer/) }],
  });
  expect(await db.countActivity(`${prefix}-`)).toBe(99);
  expect(await db.activity(`${prefix}-41`)).toBeUndefined();
  expect(log).toHaveLength(1);
  expect(log[0]).toMatch(new RegExp(`refused 1 of 100 call rows, wrote the others: "${prefix}-41" \\("agent_activity insert: .*out of range`));
}
