// What two servers on one data folder did before the lock (issue 30), made on purpose: two PGlite
// instances open one folder, each creates a function (each takes the same next OID) and writes rows, and
// both close, writing their pages over each other's. checkCatalog (amcheck, run by `npm start` when the
// database does not open) finds pg_proc's indexes out of step with their table; on a sound folder it finds
// nothing. The same folder's rows are partly lost too: what the lock prevents, shown.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/entries/sql-files.ts';
import { checkCatalog } from '../../src/store/pglite-damage.ts';
import { openPglite } from '../../src/store/pglite.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rebound-damaged-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a damaged catalog, found by amcheck', () => {
  it('two instances on one folder leave pg_proc indexes out of step with their table; a sound folder has none', { timeout: 180_000 }, async () => {
    const sound = join(dir, 'sound');
    await (await openPglite(sound, readMigrations())).close();
    expect(await checkCatalog(sound)).toEqual({ checked: true, damaged: [] });

    const damaged = join(dir, 'damaged');
    await (await openPglite(damaged, readMigrations())).close();
    const a = await openPglite(damaged, readMigrations());
    const b = await openPglite(damaged, readMigrations());
    for (let i = 0; i < 50; i++) {
      await a.query('insert into public.agent_sessions (id, user_id) values (gen_random_uuid(), null)');
      await b.query('insert into public.agent_sessions (id, user_id) values (gen_random_uuid(), null)');
    }
    await a.exec(`create function public.made_by_a() returns int language sql as 'select 1'`);
    await b.exec(`create function public.made_by_b() returns int language sql as 'select 2'`);
    await a.close();
    await b.close();

    const check = await checkCatalog(damaged);
    expect(check.checked).toBe(true);
    if (!check.checked) return;
    expect(check.damaged).toEqual(expect.arrayContaining(['pg_proc_oid_index']));
    const reopened = await openPglite(damaged, readMigrations());
    const { rows } = await reopened.query<{ n: number }>('select count(*)::int as n from public.agent_sessions');
    await reopened.close();
    expect(rows[0]!.n, 'rows written by both, not all of them kept').toBeLessThan(100);
  });
});
