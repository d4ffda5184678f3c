// A throwaway PostgreSQL 15 cluster for tests: initdb in a temp dir as the `postgres` OS user (initdb
// refuses root), trust auth on 127.0.0.1, a free port, fsync off. Fails loudly when PostgreSQL is missing.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, chownSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { applyMigrations, type SqlFile } from '../../src/store/sql-migrate.ts';
import { freePort } from './ports.ts';
export { freePort };

export const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface PostgresCluster {
  port: number;
  /** Superuser connection URL. */
  url: string;
  /** URL for PostgREST's login role. */
  authenticatorUrl: string;
  sql: postgres.Sql;
  stop(): Promise<void>;
}

function osUser(name: string): { uid: number; gid: number } {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) throw new Error(`OS user ${name} not found: install postgresql-15 (apt-get install -y postgresql-15)`);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

export async function startPostgres(): Promise<PostgresCluster> {
  if (!existsSync(join(PG_BIN, 'initdb'))) {
    throw new Error(`PostgreSQL 15 not found in ${PG_BIN}: install it (apt-get install -y postgresql-15) — the data tests need a real server`);
  }
  const runAs = process.getuid?.() === 0 ? osUser('postgres') : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'rebound-pg-'));
  if (runAs) chownSync(dir, runAs.uid, runAs.gid);
  const data = join(dir, 'data');
  const init = spawnSync(join(PG_BIN, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-locale', '-E', 'UTF8', '--no-sync'], {
    encoding: 'utf8',
    ...(runAs ?? {}),
  });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);

  const port = await freePort();
  const server: ChildProcess = spawn(
    join(PG_BIN, 'postgres'),
    [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=50',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], ...(runAs ?? {}) },
  );
  let log = '';
  server.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });

  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const sql = postgres(url, { max: 4, onnotice: () => {} });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await sql`select 1`;
      break;
    } catch (error) {
      if (server.exitCode !== null || Date.now() > deadline) {
        server.kill('SIGKILL');
        throw new Error(`postgres did not start: ${String(error)}\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  return {
    port,
    url,
    authenticatorUrl: `postgres://authenticator@127.0.0.1:${port}/postgres`,
    sql,
    async stop() {
      await sql.end({ timeout: 1 }).catch(() => {});
      if (server.exitCode === null) {
        const exited = new Promise((r) => server.once('exit', r));
        server.kill('SIGINT'); // fast shutdown
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
        if (server.exitCode === null) server.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** supabase/migrations through the `postgres` driver, the same code as for PGlite (bootstrap included). */
export async function migrate(url: string, files: SqlFile[]): Promise<string[]> {
  // One connection: the migrator's BEGIN/COMMIT must stay on it (postgres.js refuses that on a pool).
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return await applyMigrations(
      {
        exec: (text: string) => sql.unsafe(text),
        query: async <T>(text: string, params: unknown[] = []) => ({ rows: (await sql.unsafe(text, params as never[])) as unknown as T[] }),
      },
      files,
      { bootstrap: true },
    );
  } finally {
    await sql.end({ timeout: 1 });
  }
}
