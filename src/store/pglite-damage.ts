// When the embedded database does not open: is its catalog damaged? PostgreSQL's amcheck (which PGlite
// ships as an extension) checks each system catalog index against its table. Pages written over by a
// second process on the same folder (what the data-folder lock now prevents, src/entries/data-lock.ts)
// leave catalog rows their indexes do not list, or two rows with one OID; amcheck names those indexes.
// Run only after a failed open (it takes seconds); it reads, never repairs: REINDEX cannot mend two rows
// with one OID, and PGlite offers no other repair (docs/configuration.md § One server per data folder).
import { PGlite } from '@electric-sql/pglite';

export type CatalogCheck =
  | { checked: true; damaged: string[] }
  /** The database did not open far enough to be checked (why: the error's first line). */
  | { checked: false; why: string };

export async function checkCatalog(dataDir: string): Promise<CatalogCheck> {
  let db: PGlite | null = null;
  try {
    const { amcheck } = await import('@electric-sql/pglite/contrib/amcheck');
    db = await PGlite.create(dataDir, { extensions: { amcheck } });
    // A temporary schema would be written to the catalog too: the extension goes where it is undone.
    await db.exec('begin; create extension if not exists amcheck;');
    const { rows } = await db.query<{ name: string }>(
      `select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid join pg_am a on a.oid = c.relam
       where a.amname = 'btree' and c.relnamespace = 'pg_catalog'::regnamespace order by 1`,
    );
    const damaged: string[] = [];
    for (const { name } of rows) {
      await db.exec('savepoint one_index');
      try {
        await db.query('select bt_index_check($1::regclass, true)', [`pg_catalog.${name}`]);
        await db.exec('release savepoint one_index');
      } catch {
        damaged.push(name);
        await db.exec('rollback to savepoint one_index');
      }
    }
    await db.exec('rollback');
    return { checked: true, damaged };
  } catch (err) {
    // Making the extension writes catalog rows: on a catalog with two rows of one OID that fails, naming the index.
    const named = catalogIndexIn(firstLine(err));
    return named ? { checked: true, damaged: [named] } : { checked: false, why: firstLine(err) };
  } finally {
    await db?.close().catch(() => {});
  }
}

/** The system catalog index a unique violation names (user tables' never start with pg_), if any. */
export function catalogIndexIn(message: string): string | null {
  return /duplicate key value violates unique constraint "(pg_[a-z_]+_index)"/.exec(message)?.[1] ?? null;
}

export const firstLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
