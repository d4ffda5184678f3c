// One claimed turn from turn_start to done, persistence included: loads the history, runs the loop,
// records the outcome row, appends what the turn added to the session and marks it finished, and only
// then emits `done`, so a client that sends the next message as soon as it sees `done` always finds
// this turn in the history. The caller decides where the events go (a turn log) and when to stop.
import type { ActivityWriter, TurnRow } from '../activity/types.ts';
import type { ModelClient } from '../model/types.ts';
import type { Storage, TurnRecord } from '../store/types.ts';
import type { Tool } from '../tools/types.ts';
import type { Emit, TurnEvent } from '../vocabulary.ts';
import { runTurn, type TurnDeps } from './turn.ts';

export interface PersistedTurnDeps {
  storage: Storage;
  model: ModelClient;
  tools: Tool[];
  activity: ActivityWriter;
  limits: TurnDeps['limits'];
  systemPrompt?: string;
  /** Keeps the platform alive for the activity flush after the turn (waitUntil). */
  waitUntil?: (promise: Promise<unknown>) => void;
  log?: (line: string) => void;
}

export async function runPersistedTurn(turn: TurnRecord, deps: PersistedTurnDeps, emit: Emit, signal: AbortSignal): Promise<void> {
  const { storage, model, activity } = deps;
  const log = deps.log ?? ((line) => console.error(line));
  const scope = { userId: turn.userId, sessionId: turn.sessionId, turnId: turn.id };
  const started = new Date();
  emit({ event: 'turn_start', data: { turnId: turn.id, sessionId: turn.sessionId, model: model.model, demo: model.demo } });
  let done: TurnEvent | null = null;
  const hold: Emit = (event) => (event.event === 'done' ? (done = event) : emit(event));
  let result;
  try {
    const history = await storage.sessions.history(turn.sessionId);
    result = await runTurn(
      { turnId: turn.id, sessionId: turn.sessionId, userId: turn.userId, message: turn.message, history },
      {
        model,
        tools: deps.tools,
        activity,
        workspace: storage.workspace(scope),
        memory: storage.memory(scope),
        limits: deps.limits,
        systemPrompt: deps.systemPrompt,
      },
      hold,
      signal,
    );
  } catch (err) {
    // A bug in the loop must still end the turn properly.
    log(`rebound: turn ${turn.id} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    emit({ event: 'agent_error', data: { message: 'The agent failed unexpectedly. Try again.', retryable: true } });
    done = { event: 'done', data: { reason: 'error', iterations: 0, usage: { promptTokens: 0, completionTokens: 0 } } };
    result = null;
  }
  const finished = new Date();
  const row: TurnRow = {
    id: turn.id,
    session_id: turn.sessionId,
    user_id: turn.userId,
    model: model.model,
    outcome: result?.reason ?? 'error',
    iterations: result?.iterations ?? 0,
    tool_calls: result?.messages.filter((m) => m.role === 'tool').length ?? 0,
    prompt_tokens: result?.usage.promptTokens ?? null,
    completion_tokens: result?.usage.completionTokens ?? null,
    duration_ms: finished.getTime() - started.getTime(),
    started_at: started.toISOString(),
    finished_at: finished.toISOString(),
  };
  activity.recordTurn(row);
  try {
    if (result) await storage.sessions.appendMessages(turn.sessionId, turn.id, result.messages);
    await storage.sessions.finishTurn(turn.id);
  } catch (err) {
    log(`rebound: could not persist turn ${turn.id}: ${err instanceof Error ? err.message : String(err)}`);
    emit({ event: 'agent_error', data: { message: 'This turn could not be saved to the session history.', retryable: false } });
  }
  if (done) emit(done);
  // The activity flush outlives the turn where the platform allows it.
  const flushed = activity.flush().then((report) => {
    if (report.dropped > 0) log(`rebound: ${report.dropped} activity rows could not be written (${report.lastError ?? 'unknown error'})`);
  });
  deps.waitUntil?.(flushed);
}
