// What a turn leaves when it ends or pauses: what it added to the session saved and the turn marked
// finished (before `done`, so a client that sends the next message at once finds it in the history),
// and its activity rows flushed, outliving the turn where the platform allows it.
import type { ActivityWriter } from '../activity/types.ts';
import { quote } from '../quote.ts';
import type { Storage, TurnRecord } from '../store/types.ts';
import type { Emit } from '../vocabulary.ts';
import type { TurnResult } from './turn-state.ts';

/** The activity flush outlives the turn (or its pause) where the platform allows it. */
export function flushActivity(deps: { activity: ActivityWriter; waitUntil?: (promise: Promise<unknown>) => void }, log: (line: string) => void): void {
  const flushed = deps.activity.flush().then((report) => {
    if (report.dropped > 0) log(`rebound: ${report.dropped} activity rows could not be written (${quote(report.lastError ?? 'unknown error')})`);
  });
  deps.waitUntil?.(flushed);
}

/** Appends what the turn added to the session and marks the turn finished; a failure is told, not thrown. */
export async function save(
  turn: Pick<TurnRecord, 'id' | 'sessionId'>,
  result: Pick<TurnResult, 'messages'>,
  { storage, sink, log }: { storage: Storage; sink: Emit; log: (line: string) => void },
): Promise<void> {
  try {
    if (result.messages.length > 0) await storage.sessions.appendMessages(turn.sessionId, turn.id, result.messages);
    await storage.sessions.finishTurn(turn.id);
  } catch (err) {
    log(`rebound: could not persist turn ${turn.id}: ${quote(err instanceof Error ? err.message : err)}`);
    sink({ event: 'agent_error', data: { message: 'This turn could not be saved to the session history.', retryable: false } });
  }
}
