// Applies supabase/migrations in name (timestamp) order, each once, recording them where the Supabase
// CLI does (supabase_migrations.schema_migrations) so a database migrated here looks the same to it.
import { SUPABASE_BOOTSTRAP_SQL } from './sql-bootstrap.ts';

export interface SqlFile {
  /** File name, e.g. `20250601000100_sessions_turns_messages.sql`; the leading digits are the version. */
  name: string;
  sql: string;
}

/** The two things migrating needs; PGlite fits as is, other drivers through a two-line adapter. */
export interface SqlRunner {
  exec(sql: string): Promise<unknown>;
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

export interface MigrateOptions {
  /** Create the Supabase roles and auth helpers first (plain PostgreSQL, PGlite). */
  bootstrap?: boolean;
}

export async function applyMigrations(db: SqlRunner, files: SqlFile[], options: MigrateOptions = {}): Promise<string[]> {
  if (options.bootstrap) await db.exec(SUPABASE_BOOTSTRAP_SQL);
  await db.exec(`
    create schema if not exists supabase_migrations;
    create table if not exists supabase_migrations.schema_migrations (version text primary key, statements text[], name text);
  `);
  const done = new Set((await db.query<{ version: string }>('select version from supabase_migrations.schema_migrations')).rows.map((r) => r.version));
  const applied: string[] = [];
  for (const file of [...files].sort((a, b) => a.name.localeCompare(b.name))) {
    const version = migrationVersion(file.name);
    if (done.has(version)) continue;
    // One transaction per file: a failing migration leaves nothing half-applied behind.
    await db.exec(`begin;\n${file.sql}\n;commit;`).catch(async (error: unknown) => {
      await db.exec('rollback').catch(() => {});
      throw new Error(`migration ${file.name} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    });
    await db.query('insert into supabase_migrations.schema_migrations (version, name) values ($1, $2)', [
      version,
      file.name.replace(/^\d+_/, '').replace(/\.sql$/, ''),
    ]);
    applied.push(file.name);
  }
  return applied;
}

export function migrationVersion(name: string): string {
  const match = /^(\d+)_.+\.sql$/.exec(name);
  if (!match?.[1]) throw new Error(`migration file name must be <timestamp>_<name>.sql: ${name}`);
  return match[1];
}
