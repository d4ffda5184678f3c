// Turns a killed process left `running` ("zombies"): when a turn counts as interrupted, and what its
// session shows afterwards. The closing itself is SessionStore.closeInterrupted: one SQL function
// (agent_close_interrupted, migration 20261123000200) for PGlite and Supabase, mirrored in memory.ts.
// The policy lives here only, so that a turn lease with heartbeats (a later issue) changes one place:
// "claimed before the cutoff" becomes "lease expired".
//
// When it runs:
//   - at start-up on Node (closeAllRunning): the local server is one process, so every running turn
//     in its database was left by an earlier process;
//   - by age, on every runtime (closeStaleTurns), each time a turn is created: one bounded update that
//     a partial index on running turns keeps cheap, the new turn's own session first, so the
//     interrupted turn lands in the history before the new one. An edge isolate has no start-up
//     worth the name and no timer that outlives a request; turn creation is the one moment that
//     always comes again, and it is followed by a model call that costs far more.
import type { ChatMessage } from '../vocabulary.ts';
import type { CloseInterruptedOptions, SessionStore, TurnRecord } from './types.ts';

/** What the history shows in place of the answer the turn never gave; the model reads it on the next turn. */
export const INTERRUPTED_NOTE =
  'This turn was interrupted before it finished: the server stopped while it was running, so its answer was lost. ' +
  'Files it changed before that may have been saved. Ask again to continue.';

/** The messages a closed turn leaves in its session: the user's message, then the note. */
export function interruptedMessages(turn: Pick<TurnRecord, 'message'>): ChatMessage[] {
  return [
    { role: 'user', content: turn.message },
    { role: 'assistant', content: INTERRUPTED_NOTE },
  ];
}

/**
 * How long past TIME_BUDGET_MS a live turn may still run: the forced summary (20 s at most, see
 * src/loop/turn.ts) and saving the turn. A turn running longer than budget + margin has lost its process.
 */
export const INTERRUPT_MARGIN_MS = 60_000;

/** Turns claimed before this instant are zombies (by age). */
export function staleBefore(timeBudgetMs: number, now = Date.now()): string {
  return new Date(now - timeBudgetMs - INTERRUPT_MARGIN_MS).toISOString();
}

/** Turns one sweep on turn creation closes at most: bounds what a request does, whatever piled up. */
export const SWEEP_LIMIT = 20;

/**
 * The age-based sweep, run before a turn is created. Never throws: housekeeping must not fail the
 * user's turn; a failure is logged and the next turn creation tries again.
 */
export async function closeStaleTurns(sessions: SessionStore, options: { timeBudgetMs: number; sessionId?: string }): Promise<TurnRecord[]> {
  try {
    return await sessions.closeInterrupted({
      claimedBefore: staleBefore(options.timeBudgetMs),
      ...(options.sessionId ? { sessionId: options.sessionId } : {}),
      limit: SWEEP_LIMIT,
    });
  } catch (err) {
    console.error('rebound: could not close interrupted turns', err);
    return [];
  }
}

const STARTUP_BATCH = 500;

/** Start-up of a single-process server: every turn still running was left by an earlier process. Closes them all. */
export async function closeAllRunning(sessions: SessionStore, startedAt = new Date()): Promise<TurnRecord[]> {
  const closed: TurnRecord[] = [];
  const options: CloseInterruptedOptions = { claimedBefore: startedAt.toISOString(), limit: STARTUP_BATCH };
  for (;;) {
    const batch = await sessions.closeInterrupted(options);
    closed.push(...batch);
    if (batch.length < STARTUP_BATCH) return closed;
  }
}

/** The `done` a closed turn's stored log ends with (appended by agent_close_interrupted; memory.ts does the same). */
export const INTERRUPTED_DONE = { event: 'done', data: { reason: 'interrupted', iterations: 0, usage: { promptTokens: 0, completionTokens: 0 } } } as const;
