// A reader for a turn that runs on another instance (or ran before a restart): replays the stored log
// after a position, then polls it until `done`. The poll interval matches the writer's, so a reader
// here is at most about two intervals behind one attached to the producer.
import type { LoggedEvent } from '../vocabulary.ts';
import { unpackEvents, type TurnEventStore } from '../store/turn-events.ts';
import { delay } from '../delay.ts';

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
    const events = unpackEvents(await store.eventsAfter(turnId, last), last);
    for (const logged of events) {
      // Contiguous only: a gap means a row is not visible yet; wait for it rather than skip it.
      if (logged.seq !== last + 1) break;
      last = logged.seq;
      yield logged;
      if (logged.event.event === 'done') return;
    }
    if (events.length === 0 && options.stillRunning && !(await options.stillRunning())) return;
    await delay(pollMs, { signal });
  }
}
