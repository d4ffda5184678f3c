// Node-only: reads supabase/migrations and supabase/dashboard.sql from disk for the embedded PGlite
// database. Paths resolve from this file, not from the working directory.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SqlFile } from '../store/sql-migrate.ts';

const SUPABASE_DIR = fileURLToPath(new URL('../../supabase/', import.meta.url));

export function readMigrations(dir = join(SUPABASE_DIR, 'migrations')): SqlFile[] {
  return readdirSync(dir)
    .filter((name) => /^\d+_.+\.sql$/.test(name))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(dir, name), 'utf8') }));
}

export function readDashboardSql(path = join(SUPABASE_DIR, 'dashboard.sql')): string {
  return readFileSync(path, 'utf8');
}
