// One server per data folder (issue 30), with the real Node server (src/entries/node.ts as `npm start` runs it, the
// embedded PGlite): a second server on the folder of a running one refuses, naming the holder's pid and
// port, exits 1 and leaves every file of the folder as it was, while the first goes on serving turns; a
// busy port is one line naming PORT, said before any database is made; a server stopped and started
// again on its folder opens it with its history; a lock left by a process that is gone (kill -9) is
// taken over.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_FILE, type LockHolder } from '../../src/entries/data-lock.ts';
import { baseEnv, freePort, npmStart, root, startNode, type RuntimeServer } from '../runtimes/servers.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { collectWithEventSource } from '../support/sse-client.ts';

let model: ScriptedServer;
let dir: string;
const servers: RuntimeServer[] = [];

beforeAll(async () => {
  model = await startScriptedOpenAI(() => ({ text: 'All done here.' }));
  dir = mkdtempSync(join(tmpdir(), 'rebound-data-lock-'));
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  await model?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const vars = () => ({ OPENAI_API_KEY: 'sk-scripted', OPENAI_BASE_URL: model.url, MODEL_RETRIES: '0' });

async function start(dataDir: string): Promise<RuntimeServer> {
  const server = await startNode(vars(), { dataDir });
  servers.push(server);
  return server;
}

/** `npm start` as a person runs it, to its exit: its code and what it printed. */
function runToExit(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const start = npmStart();
  const child = spawn(start.command, start.args, {
    cwd: root,
    env: { ...baseEnv(), ...vars(), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/**
 * Every file under `folder` with its size and modification time: what "touches nothing" compares. The
 * lock by its content: its holder touches it every HEARTBEAT_MS.
 */
function snapshot(folder: string): Record<string, string> {
  const files = readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((f) => statSync(join(folder, f)).isFile());
  const state = (f: string) =>
    f === LOCK_FILE ? readFileSync(join(folder, f), 'utf8') : `${statSync(join(folder, f)).size}@${statSync(join(folder, f)).mtimeMs}`;
  return Object.fromEntries(files.sort().map((f) => [f, state(f)]));
}

/** The folder's snapshot once the first server has written what its turn left to write (its activity rows land in batches). */
async function quiet(folder: string): Promise<Record<string, string>> {
  let last = snapshot(folder);
  for (let i = 0; i < 40; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const now = snapshot(folder);
    if (JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
  throw new Error(`${folder} is still being written after 20 s`);
}

const holderOf = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as LockHolder;
const portOf = (s: RuntimeServer) => Number(new URL(s.baseUrl).port);

/** A turn through the server, to its done event: the answer text it streamed and its session. */
async function turn(server: RuntimeServer, message: string, sessionId?: string): Promise<{ text: string; sessionId: string }> {
  const res = await fetch(`${server.baseUrl}/v1/turns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...server.localAuth },
    body: JSON.stringify({ message, sessionId }),
  });
  expect(res.status).toBe(201);
  const created = (await res.json()) as { streamUrl: string; sessionId: string };
  const events = await collectWithEventSource(server.baseUrl + created.streamUrl);
  expect(events.at(-1)?.event).toBe('done');
  const text = events
    .filter((e) => e.event === 'text_delta')
    .map((e) => (e.data as { text: string }).text)
    .join('');
  return { text, sessionId: created.sessionId };
}

describe('one server per data folder', () => {
  it('a second server on the folder refuses with the holder pid and port, exits 1, touches nothing; the first keeps serving', {
    timeout: 300_000,
  }, async () => {
    const dataDir = join(dir, 'shared', 'pglite');
    const first = await start(dataDir);
    const holder = holderOf(dataDir);
    expect(holder).toMatchObject({ port: portOf(first), host: hostname() });
    expect(first.log()).toContain(`gateway: POST /v1/chat/completions → ${model.url}`);
    expect((await turn(first, 'before')).text).toBe('All done here.');
    const before = await quiet(dataDir);

    const second = await runToExit({ DATA_DIR: dataDir, PORT: String(await freePort()) });
    expect(second.code).toBe(1);
    expect(second.stdout).toBe('');
    expect(second.stderr).toContain(`pid ${holder.pid}, port ${portOf(first)}`);
    expect(second.stderr).toContain(`Another Rebound server uses the data folder ${dataDir}`);
    expect(second.stderr).toContain('Nothing was opened or written.');
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(snapshot(dataDir)).toEqual(before);

    expect((await turn(first, 'after')).text).toBe('All done here.');
    expect(holderOf(dataDir).pid).toBe(holder.pid);
  });

  it('a busy port is one line naming PORT, said before any database is made; no lock is left behind', { timeout: 120_000 }, async () => {
    const busy: Server = createServer();
    const port = await new Promise<number>((resolve) => busy.listen(0, '127.0.0.1', () => resolve((busy.address() as { port: number }).port)));
    const dataDir = join(dir, 'busy-port', 'pglite');
    try {
      const r = await runToExit({ DATA_DIR: dataDir, PORT: String(port) });
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([
        `Port ${port} on 127.0.0.1 is in use by another process: set PORT to a free port (PORT=${port + 1} npm start), or stop the process on ${port}.`,
      ]);
      expect(r.stderr).not.toMatch(/EADDRINUSE|at .*\.js/);
      expect(existsSync(join(dataDir, 'PG_VERSION')), 'no database was made').toBe(false);
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      busy.close();
    }
  });

  it('a database that does not open: what happened and what to do, moving the folder aside with what that loses; nothing deleted', {
    timeout: 120_000,
  }, async () => {
    const dataDir = join(dir, 'unopenable', 'pglite');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'PG_VERSION'), '99\n'); // a folder no PGlite of ours can open
    const r = await runToExit({ DATA_DIR: dataDir, PORT: String(await freePort()) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`The embedded database in ${dataDir} did not open: `);
    expect(r.stderr).toContain('Fix what the error names and start again');
    expect(r.stderr).toContain(`move the folder aside (do not delete it): mv ${dataDir} ${dataDir}.damaged-`);
    expect(r.stderr).toContain('the sessions, turns, messages, approvals and dashboard activity of the old one are not in it');
    expect(r.stderr).not.toMatch(/\brm\b|\n\s+at /);
    expect(readFileSync(join(dataDir, 'PG_VERSION'), 'utf8')).toBe('99\n');
    expect(existsSync(join(dataDir, LOCK_FILE)), 'its lock is released on the way out').toBe(false);
  });

  it('stopped and started again on its folder, the server opens it with its history', { timeout: 300_000 }, async () => {
    const dataDir = join(dir, 'restart', 'pglite');
    let server = await start(dataDir);
    const { sessionId } = await turn(server, 'remember me');
    const firstPid = holderOf(dataDir).pid;
    await server.stop();
    expect(existsSync(join(dataDir, LOCK_FILE)), 'a stopped server removes its lock').toBe(false);

    server = await start(dataDir);
    expect(server.log()).not.toMatch(/took over/);
    expect(holderOf(dataDir).pid).not.toBe(firstPid);
    expect((await turn(server, 'and again', sessionId)).text).toBe('All done here.');
    // The session from before the restart, both turns in it.
    const res = await fetch(`${server.baseUrl}/v1/sessions/${sessionId}/messages`, { headers: server.localAuth });
    expect(res.status).toBe(200);
    const { messages } = (await res.json()) as { messages: Array<{ role: string; content: unknown }> };
    expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['remember me', 'and again']);
  });

  it('a lock left by a process that is gone is taken over, and says so', { timeout: 300_000 }, async () => {
    const dataDir = join(dir, 'stale', 'pglite');
    mkdirSync(dataDir, { recursive: true });
    // A pid that ran and ended: no process has it now.
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => gone.once('exit', r));
    const stale: LockHolder = { pid: gone.pid!, port: 1, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z' };
    writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify(stale));

    const server = await start(dataDir);
    expect(server.log()).toContain(`took over ${join(dataDir, LOCK_FILE)}, left by pid ${gone.pid}, which is no longer running`);
    expect(holderOf(dataDir)).toMatchObject({ port: portOf(server), host: hostname() });
    expect(holderOf(dataDir).pid).not.toBe(gone.pid);
    expect((await turn(server, 'hello')).text).toBe('All done here.');
  });
});
