// Readers of a turn's stored log. followPersisted: for a turn that runs on another instance (or ran
// before a restart), it replays the stored log after a position, then polls it until `done`; the poll
// interval matches the writer's, so a reader here is at most about two intervals behind one attached
// to the producer. readThrough: for a turn running here, whose log holds only a window in memory
// (turn-log.ts), the events older than the window from the store, then the window and what follows.
import type { LoggedEvent } from '../vocabulary.ts';
import { unpackEvents, type TurnEventStore } from '../store/turn-events.ts';
import { delay } from '../delay.ts';
import type { TurnLog } from './turn-log.ts';

/** How long a reader waits for the store to show an event memory has let go of (it was stored first: only a slow replica lags). */
const CATCH_UP_RETRY_MS = 50;
/** Rows read per query when replaying from the store: with MAX_ROW_TEXT, at most about 2 MB of text at a time. */
const PAGE_ROWS = 8;

/**
 * The stored events after `afterSeq`, contiguous, read a page of rows at a time, until the store has no
 * more (or a gap: a row not visible yet) or `signal` aborts.
 */
export async function* storedEvents(store: TurnEventStore, turnId: string, afterSeq: number, signal?: AbortSignal): AsyncIterable<LoggedEvent> {
  let last = Math.max(0, Math.floor(afterSeq));
  for (;;) {
    const rows = await store.eventsAfter(turnId, last, { limit: PAGE_ROWS });
    for (const logged of unpackEvents(rows, last)) {
      // Contiguous only: a gap means a row is not visible yet; the caller waits for it rather than skip it.
      if (logged.seq !== last + 1 || signal?.aborted) return;
      last = logged.seq;
      yield logged;
    }
    if (rows.length < PAGE_ROWS) return;
  }
}

/**
 * The log after `afterSeq` until `done` (or until `signal` aborts): what memory no longer holds from
 * the store, the rest from memory, live; a reader that lags past the window goes back to the store
 * and rejoins. Every event memory lets go of was stored first, so nothing is skipped.
 */
export async function* readThrough(log: TurnLog, store: TurnEventStore, afterSeq: number, signal: AbortSignal): AsyncIterable<LoggedEvent> {
  let last = Math.max(0, Math.floor(afterSeq));
  while (!signal.aborted) {
    if (!log.holds(last + 1)) {
      let gained = false;
      // The store's pages to its end, memory's window included (they are read already): one catch-up, not one per event.
      for await (const logged of storedEvents(store, log.turnId, last, signal)) {
        last = logged.seq;
        gained = true;
        yield logged;
      }
      if (!gained && !log.holds(last + 1)) await delay(CATCH_UP_RETRY_MS, { signal });
      continue;
    }
    for await (const logged of log.read(last, signal)) {
      last = logged.seq;
      yield logged;
    }
    if (log.finished && last >= log.lastSeq) return;
  }
}

export interface FollowOptions {
  store: TurnEventStore;
  turnId: string;
  afterSeq: number;
  signal?: AbortSignal;
  pollMs?: number;
  /** Asked while nothing new arrives: false ends the reader (a turn closed without a logged done). */
  stillRunning?: () => Promise<boolean>;
}

export async function* followPersisted(options: FollowOptions): AsyncIterable<LoggedEvent> {
  const { store, turnId, signal } = options;
  const pollMs = options.pollMs ?? 250;
  let last = Math.max(0, Math.floor(options.afterSeq));
  while (!signal?.aborted) {
    let read = 0;
    for await (const logged of storedEvents(store, turnId, last, signal)) {
      last = logged.seq;
      read++;
      yield logged;
      if (logged.event.event === 'done') return;
    }
    if (read === 0 && options.stillRunning && !(await options.stillRunning())) return;
    await delay(pollMs, { signal });
  }
}
