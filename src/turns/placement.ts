// Where a claimed turn's producer runs: "run this turn there". The entry chooses it
// (src/entries/placement.ts): in this process (Node, Deno, a Worker isolate without Durable Objects),
// or in the turn's Durable Object, which the turn keeps alive until it has settled. LiveTurns is the
// producer registry both use; the service (service.ts) starts turns through this and asks it whether a
// turn runs here, and never learns which platform it is on.
import type { LiveTurn, StartTurnOptions } from './live-turns.ts';

export interface TurnPlacement {
  /** Starts a claimed turn's producer; it runs to its end whatever its readers do. */
  start(options: StartTurnOptions): LiveTurn;
  /** The turn, when its producer runs here (or ran here a moment ago: it stays readable for a while). */
  get(turnId: string): LiveTurn | undefined;
}
