// Where each runtime runs a claimed turn (turns/placement.ts), chosen by its entry. In this process:
// Node (`npm start`), Deno and Supabase (under EdgeRuntime.waitUntil), a Worker isolate without the
// TURNS binding. In the turn's Durable Object (turn-object.ts): the object stays in memory until the
// turn has settled, however long after its last reader left.
import { LiveTurns } from '../turns/live-turns.ts';
import type { TurnPlacement } from '../turns/placement.ts';

/** Turns run in this process, as long as the platform lets it live (the start's waitUntil). */
export function inThisProcess(): TurnPlacement {
  return new LiveTurns();
}

/** Turns run in this Durable Object, which each one holds (keepAliveUntil) until it has settled. */
export function inTurnObject(keepAliveUntil: (promise: Promise<unknown>) => void): TurnPlacement {
  const turns = new LiveTurns();
  return {
    start: (options) => {
      const live = turns.start(options);
      keepAliveUntil(live.settled);
      return live;
    },
    get: (turnId) => turns.get(turnId),
  };
}
