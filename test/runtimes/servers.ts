// Starts the app under each runtime as a real server on loopback: workerd through `wrangler dev`, Deno
// serving the Supabase entry, and Node. A runtime that cannot start throws with its log: the suite
// must fail loudly, never skip.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/ports.ts';
export { freePort };

export const root = join(import.meta.dirname, '..', '..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

/**
 * `npm start` as package.json writes it: the command every test that runs the Node server spawns, so
 * that they run what a person runs (node and its flags, the entry). npm finds `node` in node_modules/.bin
 * first on its PATH, as this does; the arguments are package.json's, run from the project's root.
 */
export function npmStart(): { command: string; args: string[] } {
  const start: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start;
  const [command, ...args] = start.split(' ');
  if (!command || /["'$&|;<>\\]/.test(start)) throw new Error(`package.json's start script is not a plain command with plain arguments: ${start}`);
  return { command: bin(command), args };
}

export type RuntimeName = 'node' | 'workerd' | 'deno';

export interface RuntimeServer {
  name: RuntimeName;
  /** Where the app's routes start: `http://127.0.0.1:PORT` or `…/rebound` for the Supabase entry. */
  baseUrl: string;
  log(): string;
  stop(): Promise<void>;
  /** The process group the runtime runs in (wrangler and workerd under it), for benches that read its CPU time. */
  pgid?: number;
  /** kill -9 of the whole process group: a crash (a restart test starts another server on the same storage). */
  kill(): Promise<void>;
  /**
   * What a client of this server sends to be let in where it runs in local mode (no Supabase auth):
   * its local access token as the bearer (issue 35), read where its user finds it: Node's
   * DATA_DIR/local-token, the chat URL plain Deno prints. Empty otherwise (auth configured; wrangler dev).
   */
  localAuth: Record<string, string>;
}

/** The Authorization header of a local token, or nothing. */
const bearerOf = (token: string | undefined): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});

interface Spawned {
  child: ChildProcess;
  log: () => string;
  stop: () => Promise<void>;
  /** kill -9 of the whole process group: a crash, nothing gets to clean up. */
  kill: () => Promise<void>;
}

function spawnLogged(cmd: string, args: string[], env: NodeJS.ProcessEnv): Spawned {
  // Own process group, so that stop() also ends workerd under wrangler and nothing outlives the suite.
  const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let log = '';
  const keep = (d: Buffer) => {
    log += d.toString();
    if (log.length > 200_000) log = log.slice(-100_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    log: () => log,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* gone */
        }
      }, 5_000);
      await exited;
      clearTimeout(timer);
    },
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        return;
      }
      await exited;
    },
  };
}

async function waitHealthy(name: RuntimeName, baseUrl: string, spawned: Spawned, timeoutMs: number): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (spawned.child.exitCode !== null) throw new Error(`${name} exited with ${spawned.child.exitCode} before answering /health:\n${spawned.log()}`);
    if (Date.now() - started > timeoutMs) {
      await spawned.stop();
      throw new Error(`${name} did not answer ${baseUrl}/health within ${timeoutMs} ms:\n${spawned.log()}`);
    }
    const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) }).catch(() => null);
    if (res?.ok) return;
    await res?.body?.cancel();
    await new Promise((r) => setTimeout(r, 150));
  }
}

export const baseEnv = (): NodeJS.ProcessEnv => {
  // The runtimes must see only the scenario's settings, not a developer's OPENAI_API_KEY or SUPABASE_URL.
  // The machine's CA and proxy settings stay: Deno fetches npm: packages through them on a clean machine.
  const keep = [
    'PATH',
    'HOME',
    'TMPDIR',
    'LANG',
    'SYSTEMROOT',
    'NODE_OPTIONS',
    'SSL_CERT_FILE',
    'SSL_CERT_DIR',
    'NODE_EXTRA_CA_CERTS',
    'DENO_CERT',
    'DENO_TLS_CA_STORE',
    'NPM_CONFIG_REGISTRY',
    'HTTPS_PROXY',
    'HTTP_PROXY',
    'NO_PROXY',
    'https_proxy',
    'http_proxy',
    'no_proxy',
  ];
  return Object.fromEntries(keep.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]));
};

export interface WorkerdOptions {
  /** `log` also keeps the app's console.log lines (its startup line names the Worker or the turn object). */
  logLevel?: 'info' | 'log';
}

export async function startWorkerd(vars: Record<string, string>, options: WorkerdOptions = {}): Promise<RuntimeServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'rebound-workerd-'));
  const envFile = join(dir, 'test.env');
  // --env-file replaces .dev.vars, so a developer's local secrets cannot leak into the scenario.
  // dotenv keeps \" inside double quotes as it is, so a value holding quotes (MCP_SERVERS' JSON) goes in single quotes, which are literal.
  const quote = (v: string) => (v.includes('"') && !/['\n]/.test(v) ? `'${v}'` : JSON.stringify(v));
  writeFileSync(
    envFile,
    Object.entries(vars)
      .map(([k, v]) => `${k}=${quote(v)}`)
      .join('\n'),
  );
  const spawned = spawnLogged(
    bin('wrangler'),
    [
      'dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(await freePort()),
      '--env-file',
      envFile,
      '--persist-to',
      join(dir, 'state'),
      '--show-interactive-dev-session=false',
      '--log-level',
      options.logLevel ?? 'info',
    ],
    { ...baseEnv(), WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', CI: '1' },
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitHealthy('workerd', baseUrl, spawned, 90_000);
  return {
    name: 'workerd',
    baseUrl,
    pgid: spawned.child.pid,
    log: spawned.log,
    stop: async () => {
      await spawned.stop();
      rmSync(dir, { recursive: true, force: true });
    },
    kill: async () => {
      await spawned.kill();
      rmSync(dir, { recursive: true, force: true });
    },
    localAuth: {},
  };
}

export async function startDeno(vars: Record<string, string>): Promise<RuntimeServer> {
  const port = await freePort();
  // npm: specifiers are fetched from the npm registry into this cache once, then reused.
  const denoDir = join(root, 'node_modules', '.cache', 'deno');
  mkdirSync(denoDir, { recursive: true });
  const spawned = spawnLogged(
    bin('deno'),
    [
      'run',
      '--allow-net',
      '--allow-env',
      '--allow-read',
      '--no-prompt',
      '--frozen', // the committed deno.lock's versions, never rewritten by a test run
      '--config',
      join(root, 'supabase', 'functions', 'rebound', 'deno.json'),
      join(root, 'supabase', 'functions', 'rebound', 'index.ts'),
    ],
    { ...baseEnv(), ...vars, DENO_DIR: denoDir, NO_COLOR: '1', PORT: String(port), HOST: '127.0.0.1' },
  );
  const baseUrl = `http://127.0.0.1:${port}/rebound`;
  await waitHealthy('deno', baseUrl, spawned, 120_000);
  // Local mode prints its chat URL with the token, before it serves.
  const token = /chat: \S+\?token=([0-9a-f]+)/.exec(spawned.log())?.[1];
  return { name: 'deno', baseUrl, log: spawned.log, stop: spawned.stop, kill: spawned.kill, localAuth: bearerOf(token) };
}

export interface NodeOptions {
  /** The embedded database's folder, kept after stop (a restart opens it again); default: a fresh one, removed on stop. */
  dataDir?: string;
}

export async function startNode(vars: Record<string, string>, options: NodeOptions = {}): Promise<RuntimeServer> {
  const port = await freePort();
  // A fresh embedded database per run, never the developer's .data/.
  const dir = options.dataDir ? undefined : mkdtempSync(join(tmpdir(), 'rebound-node-'));
  const dataDir = options.dataDir ?? join(dir!, 'pglite');
  const start = npmStart();
  const spawned = spawnLogged(start.command, start.args, {
    ...baseEnv(),
    ...vars,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await spawned.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
  await waitHealthy('node', baseUrl, { ...spawned, stop }, 120_000); // the start passed 60 s on 2 shared cores in a full run (then under tsx, which compiled the app first)
  // Local mode keeps its token in the data folder (made there at first start); with auth configured there is none.
  const tokenFile = join(dataDir, 'local-token');
  const token = existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : undefined;
  return { name: 'node', baseUrl, log: spawned.log, stop, kill: spawned.kill, localAuth: bearerOf(token) };
}

export const starters: Record<RuntimeName, (vars: Record<string, string>) => Promise<RuntimeServer>> = {
  node: startNode,
  workerd: startWorkerd,
  deno: startDeno,
};
