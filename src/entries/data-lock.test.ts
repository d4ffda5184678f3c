import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { acquireDataLock, describeRefusal, HEARTBEAT_MS, LOCK_FILE, type LockHolder, pidRunning, STALE_AFTER_MS } from './data-lock.ts';
import { describeOpenFailure } from './open-failure.ts';
import { catalogIndexIn } from '../store/pglite-damage.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rebound-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const lockOf = () => JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as LockHolder;
const write = (h: LockHolder) => writeFileSync(join(dir, LOCK_FILE), JSON.stringify(h));

describe('acquireDataLock', () => {
  it('takes a free folder, refuses a second taker while held, and is free again once released', () => {
    const first = acquireDataLock(dir, 8787, { host: 'here' });
    if (!first.ok) throw new Error('not taken');
    expect(lockOf()).toMatchObject({ pid: process.pid, port: 8787, host: 'here' });
    const second = acquireDataLock(dir, 8790, { host: 'here' });
    expect(second).toMatchObject({ ok: false, reason: 'held', holder: { pid: process.pid, port: 8787 } });
    first.lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    expect(acquireDataLock(dir, 8790, { host: 'here' }).ok).toBe(true);
    expect(readdirSync(dir)).toEqual([LOCK_FILE]); // no temporary file left beside it
  });

  it('records the port it listens on, and releases only a lock that is still its own', () => {
    const r = acquireDataLock(dir, 0, { host: 'here' });
    if (!r.ok) throw new Error('not taken');
    r.lock.listening(41234);
    expect(lockOf().port).toBe(41234);
    const other: LockHolder = { pid: 999_999, port: 1, host: 'here', startedAt: 'x' };
    write(other); // someone else's now (it was taken over)
    r.lock.release();
    expect(lockOf()).toEqual(other);
  });

  it('takes over a lock whose pid is not running here; one from another machine only once it went untouched for STALE_AFTER_MS', () => {
    write({ pid: 4242, port: 8787, host: 'here', startedAt: '2026-01-01T00:00:00Z' });
    const r = acquireDataLock(dir, 8790, { host: 'here', running: () => false });
    expect(r).toMatchObject({ ok: true, tookOver: { pid: 4242, port: 8787 } });
    expect(lockOf().pid).toBe(process.pid);
    if (r.ok) r.lock.release();

    rmSync(join(dir, LOCK_FILE), { force: true });
    write({ pid: 4242, port: 8787, host: 'elsewhere', startedAt: '2026-01-01T00:00:00Z' });
    const refused = acquireDataLock(dir, 8790, { host: 'here', running: () => false });
    expect(refused).toMatchObject({ ok: false, reason: 'held', holder: { host: 'elsewhere' } });
    if (refused.ok) return;
    expect(describeRefusal(dir, refused)).toContain(
      `pid 4242 on the machine elsewhere (its lock is stale once untouched for ${STALE_AFTER_MS / 1000} s), port 8787`,
    );
    // Its pid is never asked about (it means nothing here); its age is what counts.
    const later = Date.now() + STALE_AFTER_MS + 1_000;
    const taken = acquireDataLock(dir, 8790, { host: 'here', running: () => true, now: later, heartbeat: false });
    expect(taken).toMatchObject({ ok: true, tookOver: { pid: 4242, host: 'elsewhere' } });
    if (taken.ok) taken.lock.release();
  });

  it('a holder touches its lock every HEARTBEAT_MS while it holds it, and stops once released', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    try {
      const r = acquireDataLock(dir, 8787, { host: 'here' });
      if (!r.ok) throw new Error('not taken');
      const file = join(dir, LOCK_FILE);
      const old = new Date(Date.now() - 3_600_000);
      utimesSync(file, old, old);
      vi.advanceTimersByTime(HEARTBEAT_MS);
      expect(statSync(file).mtimeMs).toBeGreaterThan(old.getTime() + 3_000_000);
      r.lock.release();
      expect(existsSync(file)).toBe(false);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a lock file it cannot read is refused, naming it, and left as it is', () => {
    writeFileSync(join(dir, LOCK_FILE), 'garbage');
    const r = acquireDataLock(dir, 8787, { host: 'here' });
    expect(r).toMatchObject({ ok: false, reason: 'unreadable' });
    if (r.ok) return;
    expect(describeRefusal(dir, r)).toMatch(/cannot read .*rebound\.lock.*delete that file/);
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe('garbage');
  });

  it("the refusal names the holder's pid and port and what to do", () => {
    write({ pid: process.pid, port: 8787, host: hostname(), startedAt: '2026-11-27T01:00:00.000Z' });
    const r = acquireDataLock(dir, 8790);
    if (r.ok) throw new Error('taken');
    const text = describeRefusal('.data/pglite', r);
    expect(text).toContain(`pid ${process.pid}, port 8787, started 2026-11-27T01:00:00.000Z`);
    expect(text).toContain('DATA_DIR=');
  });
});

describe('pidRunning', () => {
  it('this process runs; a zombie (exited, never reaped by its parent) does not, as after kill -9 of npm start under a PID 1 that does not reap', async () => {
    expect(pidRunning(process.pid)).toBe(true);
    // sh starts a child in the background, prints its pid and becomes `sleep`, which never waits for it. The child
    // exits only once its parent is `sleep` ($$ in a subshell is the outer shell's pid): one that exited sooner
    // could be reaped by the shell itself before the exec (bash reaps on SIGCHLD), and then there is no zombie.
    const script = '(while read c < /proc/$$/comm && [ "$c" != sleep ]; do sleep 0.01; done) & echo $!; exec sleep 30';
    const parent = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = Number(await new Promise<string>((resolve) => parent.stdout!.once('data', (d: Buffer) => resolve(d.toString()))));
      const state = () => {
        try {
          return readFileSync(`/proc/${zombie}/stat`, 'latin1').split(') ')[1]!.charAt(0);
        } catch {
          return 'gone (reaped)';
        }
      };
      for (let i = 0; i < 500 && state() !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
      expect(state()).toBe('Z');
      expect(() => process.kill(zombie, 0)).not.toThrow(); // what the lock looked at alone
      expect(pidRunning(zombie)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});

describe('a database that does not open', () => {
  it('damaged: says so, moves the folder aside rather than deleting it, and says what the new database lacks', () => {
    const text = describeOpenFailure('.data/pglite', 'duplicate key value violates unique constraint "pg_proc_oid_index"', {
      checked: true,
      damaged: ['pg_proc_oid_index', 'pg_proc_proname_args_nsp_index'],
    });
    expect(text).toContain('Its catalog is damaged');
    expect(text).toContain('pg_proc_oid_index, pg_proc_proname_args_nsp_index');
    expect(text).toMatch(/mv \.data\/pglite \.data\/pglite\.damaged-\d{4}-\d\d-\d\d/);
    expect(text).toContain('the sessions, turns, messages, approvals and dashboard activity of the old one are not in it');
    expect(text).toContain('(do not delete it)');
    expect(text).not.toMatch(/\brm\b/);
  });

  it('sound or not checkable: fix the cause first; moving aside comes last, with what it loses', () => {
    const sound = describeOpenFailure('d', 'ENOSPC: no space left on device', { checked: true, damaged: [] });
    expect(sound).toMatch(/catalog sound.*full disk/);
    expect(sound).toContain('are not in it');
    expect(describeOpenFailure('d', 'Aborted()', { checked: false, why: 'Aborted()' })).toContain('It could not be checked further (Aborted())');
  });

  it('a unique violation on a system catalog index is the damage; one on a table of ours is not', () => {
    expect(catalogIndexIn('duplicate key value violates unique constraint "pg_proc_oid_index"')).toBe('pg_proc_oid_index');
    expect(catalogIndexIn('duplicate key value violates unique constraint "agent_turns_pkey"')).toBeNull();
  });
});
