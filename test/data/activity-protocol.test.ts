// agent_activity.protocol (issue 31): a gateway call's row names the protocol it came in, written by the
// PGlite sink into the migrated table and read back; the loop's rows leave it null.
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryActivityWriter } from '../../src/activity/memory-writer.ts';
import { createPgliteSink } from '../../src/activity/sinks/pglite.ts';
import { readMigrations } from '../../src/entries/sql-files.ts';
import { recordAttempt } from '../../src/gateway/activity.ts';
import { gateProposed } from '../../src/gateway/gated-call.ts';
import { openPglite } from '../../src/store/pglite.ts';

let db: PGlite;
beforeAll(async () => {
  db = await openPglite(undefined, readMigrations());
});
afterAll(async () => {
  await db.close();
});

describe('agent_activity.protocol', () => {
  it("stores each gateway row's protocol, null for a loop row; the check refuses another value", async () => {
    const tools = [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
    const memory = new MemoryActivityWriter();
    for (const [i, protocol] of (['chat', 'messages', 'responses'] as const).entries()) {
      const call = gateProposed({ id: `call_${i}`, name: 'get_weather', arguments: '{"city":"Paris"}' }, tools);
      recordAttempt(memory, { requestId: `req_${protocol}`, userId: null, model: 'm', protocol }, { attempt: 1, calls: [call] });
    }
    const rows = memory.calls;
    const loop = { ...rows[0]!, id: 'loop-row', source: 'loop' as const, protocol: undefined };
    await createPgliteSink(db).writeActivity([...rows, loop]);
    const read = await db.query<{ turn_id: string; source: string; protocol: string | null }>(
      'select turn_id, source, protocol from public.agent_activity order by source desc, protocol',
    );
    expect(read.rows.map((r) => [r.source, r.protocol])).toEqual([
      ['loop', null],
      ['gateway', 'chat'],
      ['gateway', 'messages'],
      ['gateway', 'responses'],
    ]);
    await expect(createPgliteSink(db).writeActivity([{ ...rows[0]!, id: 'bad-row', protocol: 'soap' as never }])).rejects.toThrow();
  });
});
