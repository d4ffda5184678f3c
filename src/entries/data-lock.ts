// One server per data folder (docs/configuration.md § One server per data folder). The embedded PGlite
// database is one process's: two servers on one folder each keep their own copy of its pages in memory
// and write them back over each other's, which damaged a catalog beyond opening (issue 30). So `npm start`
// takes the folder's lock file, `rebound.lock`, before it binds the port or opens the database, and a
// second server on the folder refuses, naming the holder, having written nothing.
// The lock is made whole or not at all: its content ({pid, port, host, startedAt}) is written to a file
// of this process's own, then hard-linked to the lock's name, which fails when the name exists. A lock
// whose process is gone (kill -9, a crash, a reboot) is stale and taken over: on this machine, its pid is
// not running; written on another one (a shared volume, a container started anew with another host name),
// whose pids mean nothing here, its holder has not touched it for STALE_AFTER_MS (a holder touches it every
// HEARTBEAT_MS).
import { linkSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const LOCK_FILE = 'rebound.lock';
/** How often a holder touches its lock, and how long another machine's lock may go untouched before it is stale. */
export const HEARTBEAT_MS = 10_000;
export const STALE_AFTER_MS = 60_000;

/** What the lock file says of the server that holds it. */
export interface LockHolder {
  pid: number;
  /** The port it listens on (the one asked for until it listens). */
  port: number;
  host: string;
  startedAt: string;
}

export interface DataLock {
  file: string;
  holder: LockHolder;
  /** Rewrites the lock with the port the server listens on (PORT=0 asks the system for one). */
  listening(port: number): void;
  /** Removes the lock if it is still this process's; safe to call more than once. */
  release(): void;
}

export type LockResult =
  | { ok: true; lock: DataLock; tookOver: LockHolder | null }
  | { ok: false; reason: 'held'; file: string; holder: LockHolder }
  | { ok: false; reason: 'unreadable'; file: string; detail: string };

/**
 * Whether `pid` is a running process on this machine (EPERM: it runs, as another user). A zombie is not:
 * a server killed with -9 whose parent died too (`npm start`'s npm, a killed process group) is reparented
 * to PID 1, and where PID 1 does not reap (a container's shell or runner) it stays a zombie, which
 * `kill(pid, 0)` still finds, for as long as the container lives; it holds no file and serves nothing.
 */
export function pidRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

/** Linux: the state in /proc/<pid>/stat, after the command name's closing parenthesis, is Z (or X: dead). */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return false; // no /proc (macOS, …): kill(pid, 0) is all there is to go on
  }
  const state = stat.charAt(stat.lastIndexOf(')') + 2);
  return state === 'Z' || state === 'X';
}

function parseHolder(text: string): LockHolder | null {
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (Number.isInteger(v.pid) && v.pid! > 0 && Number.isInteger(v.port) && typeof v.host === 'string' && typeof v.startedAt === 'string')
      return v as LockHolder;
  } catch {}
  return null;
}

function readHolder(file: string): { text: string; holder: LockHolder | null } | null {
  try {
    const text = readFileSync(file, 'utf8');
    return { text, holder: parseHolder(text) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Makes `file` hold `content` in one step: false when it exists already. */
function createWhole(file: string, content: string): boolean {
  const own = `${file}.${process.pid}.tmp`;
  writeFileSync(own, content);
  try {
    linkSync(own, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkSync(own);
  }
}

/**
 * Takes `dataDir`'s lock for this process, listening (soon) on `port`. Refuses when a running process
 * holds it; takes over a stale one. `running` and `host` are the machine's, given for tests.
 */
export function acquireDataLock(
  dataDir: string,
  port: number,
  o: { running?: (pid: number) => boolean; host?: string; now?: number; heartbeat?: boolean } = {},
): LockResult {
  const running = o.running ?? pidRunning;
  const here = o.host ?? hostname();
  const file = join(dataDir, LOCK_FILE);
  /** Whether the lock's holder is alive: its pid here; elsewhere, a touch within STALE_AFTER_MS. */
  const alive = (holder: LockHolder) => (holder.host === here ? running(holder.pid) : (o.now ?? Date.now()) - mtimeOf(file) < STALE_AFTER_MS);
  const mine: LockHolder = { pid: process.pid, port, host: here, startedAt: new Date().toISOString() };
  let tookOver: LockHolder | null = null;
  // A second round only after a stale lock was moved aside: then another starter may have made its own.
  for (let round = 0; round < 3; round++) {
    if (createWhole(file, JSON.stringify(mine))) return { ok: true, lock: heldLock(file, mine, o.heartbeat ?? true), tookOver };
    const found = readHolder(file);
    if (!found) continue; // released between the two steps: try again
    const { text, holder } = found;
    if (!holder)
      return { ok: false, reason: 'unreadable', file, detail: `it does not hold a lock's {pid, port, host, startedAt}: ${JSON.stringify(text.slice(0, 80))}` };
    if (alive(holder)) return { ok: false, reason: 'held', file, holder };
    // Stale. Moved aside under a name of this process's own: of two starters only one moves it; if what
    // was moved is not the stale lock read above (another starter took over in between), it goes back.
    const aside = `${file}.stale.${process.pid}`;
    try {
      renameSync(file, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    const moved = readFileSync(aside, 'utf8');
    if (moved !== text) {
      try {
        linkSync(aside, file);
      } finally {
        unlinkSync(aside);
      }
      continue;
    }
    unlinkSync(aside);
    tookOver = holder;
  }
  const found = readHolder(file)?.holder;
  if (found) return { ok: false, reason: 'held', file, holder: found };
  return { ok: false, reason: 'unreadable', file, detail: 'it changed hands three times while this server started' };
}

/** When the lock file was last written or touched (0: gone, which the next round finds). */
function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function heldLock(file: string, holder: LockHolder, heartbeat: boolean): DataLock {
  let current = holder;
  let released = false;
  const stillMine = () => readHolder(file)?.text === JSON.stringify(current);
  // The touch that tells another machine this holder lives; never keeps the process alive by itself.
  const timer = heartbeat
    ? setInterval(() => {
        try {
          const now = new Date();
          if (stillMine()) utimesSync(file, now, now);
        } catch {}
      }, HEARTBEAT_MS)
    : undefined;
  timer?.unref();
  return {
    file,
    get holder() {
      return current;
    },
    listening(port) {
      if (released || port === current.port || !stillMine()) return;
      const next = { ...current, port };
      // Rewritten in place by its holder: a reader sees the old content or the new, each whole (rename).
      const own = `${file}.${process.pid}.tmp`;
      writeFileSync(own, JSON.stringify(next));
      renameSync(own, file);
      current = next;
    },
    release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      try {
        if (stillMine()) unlinkSync(file);
      } catch {}
    },
  };
}

/** The refusal, one paragraph: who holds the folder and what to do. */
export function describeRefusal(dataDir: string, r: Extract<LockResult, { ok: false }>): string {
  switch (r.reason) {
    case 'held': {
      const { pid, port, host, startedAt } = r.holder;
      const where = host === hostname() ? `pid ${pid}` : `pid ${pid} on the machine ${host} (its lock is stale once untouched for ${STALE_AFTER_MS / 1000} s)`;
      return (
        `Another Rebound server uses the data folder ${dataDir}: ${where}, port ${port}, started ${startedAt} (lock file ${r.file}). ` +
        `One folder serves one server: stop that one first, or start this one on a folder of its own (DATA_DIR=.data/other npm start). ` +
        `Nothing was opened or written.`
      );
    }
    case 'unreadable':
      return (
        `The data folder ${dataDir} has a lock file this server cannot read (${r.file}: ${r.detail}). ` +
        `If no Rebound server runs on this folder, delete that file and start again; the database is not touched by that.`
      );
    default:
      return r satisfies never;
  }
}
