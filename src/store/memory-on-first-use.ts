// The in-memory storage as the edge entries hold it (src/entries/edge.ts), loaded on first use: a
// deployment stores in Supabase and never needs src/store/memory.ts, so the Worker's startup script
// leaves it out (test/runtimes/worker-bundle.test.ts); local mode and STORAGE=memory load it on their
// first store call. Every store method is async, so a call made before the module is in waits for it;
// results and errors are the memory store's own, and once it is loaded calls go straight to it.
import type { TurnEventStore } from './turn-events.ts';
import type { ApprovalStore, MemoryStore, MeterStore, SessionStore, Storage, WorkspaceStore } from './types.ts';

/** Every method of a store interface: `satisfies` fails the typecheck when one is added and not listed here. */
type Methods<T> = Record<keyof T, true>;

const SESSIONS = {
  ensureSession: true,
  getSession: true,
  createTurn: true,
  getTurn: true,
  claimTurn: true,
  finishTurn: true,
  requestStop: true,
  stopRequested: true,
  runningTurn: true,
  closeInterrupted: true,
  history: true,
  appendMessages: true,
} satisfies Methods<SessionStore>;
const APPROVALS = {
  pause: true,
  get: true,
  forTurn: true,
  pendingForSession: true,
  decide: true,
  expire: true,
  nextExpiry: true,
  resume: true,
  stranded: true,
} satisfies Methods<ApprovalStore>;
const TURN_EVENTS = { appendEvents: true, eventsAfter: true } satisfies Methods<TurnEventStore>;
const METERS = { add: true } satisfies Methods<MeterStore>;
const WORKSPACE = { list: true, read: true, write: true, delete: true } satisfies Methods<WorkspaceStore>;
const MEMORY = { save: true, recall: true } satisfies Methods<MemoryStore>;

/** createMemoryStorage(), imported on the first call of any store method. */
export function memoryStorageOnFirstUse(): Storage {
  let storage: Promise<Storage> | undefined;
  const load = () => (storage ??= import('./memory.ts').then((m) => m.createMemoryStorage()));
  return {
    sessions: forwarder(async () => (await load()).sessions, SESSIONS),
    approvals: forwarder(async () => (await load()).approvals, APPROVALS),
    turnEvents: forwarder(async () => (await load()).turnEvents, TURN_EVENTS),
    meters: forwarder(async () => (await load()).meters, METERS),
    workspace: (scope) => forwarder(async () => (await load()).workspace(scope), WORKSPACE),
    memory: (scope) => forwarder(async () => (await load()).memory(scope), MEMORY),
  };
}

type Method = (...args: unknown[]) => unknown;

/** A store whose `methods` call the one `open` resolves to (opened once, on the first call). */
function forwarder<T extends object>(open: () => Promise<T>, methods: Methods<T>): T {
  let store: T | undefined;
  let opening: Promise<T> | undefined;
  const opened = (s: T) => {
    store = s;
    return s;
  };
  const call = (target: T, name: keyof T, args: unknown[]) => (target[name] as Method).apply(target, args);
  const out = {} as Record<keyof T, Method>;
  for (const name of Object.keys(methods) as Array<keyof T>) {
    out[name] = (...args) => {
      if (store) return call(store, name, args);
      opening ??= open().then(opened);
      return opening.then((s) => call(s, name, args));
    };
  }
  return out as T;
}
