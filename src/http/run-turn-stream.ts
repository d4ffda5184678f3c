// Streams one claimed turn: loads the history, runs the loop, persists what the turn added and
// hands the activity flush to the platform's waitUntil. Shared by POST /v1/chat and the GET stream.
import type { Context } from 'hono';
import { runTurn } from '../loop/turn.ts';
import type { TurnRecord } from '../store/types.ts';
import type { TurnRow } from '../activity/types.ts';
import type { TurnEvent } from '../vocabulary.ts';
import type { AppDeps } from './deps.ts';
import { sseResponse } from './sse.ts';

/** The platform's waitUntil: the one handed to createApp (Supabase), else the request's execution context (Workers). */
export function waitUntilFor(c: Context, deps: AppDeps): ((promise: Promise<unknown>) => void) | undefined {
  if (deps.waitUntil) return deps.waitUntil;
  try {
    const ctx = c.executionCtx; // throws where the runtime has none (Node)
    return (promise) => ctx.waitUntil(promise);
  } catch {
    return undefined;
  }
}

export async function turnStream(deps: AppDeps, turn: TurnRecord, c: Context): Promise<Response> {
  const waitUntil = waitUntilFor(c, deps);
  const { storage, config, model, activity } = deps;
  const scope = { userId: turn.userId, sessionId: turn.sessionId, turnId: turn.id };
  const history = await storage.sessions.history(turn.sessionId);
  return sseResponse(
    async (send, signal) => {
      const started = new Date();
      send({ event: 'turn_start', data: { turnId: turn.id, sessionId: turn.sessionId, model: model.model, demo: model.demo } });
      // `done` is held back until the turn is persisted, so a client that sends the next message
      // as soon as it sees `done` always finds this turn in the history.
      let done: TurnEvent | null = null;
      const emit = (event: TurnEvent) => (event.event === 'done' ? (done = event) : send(event));
      let result;
      try {
        result = await runTurn(
          { turnId: turn.id, sessionId: turn.sessionId, userId: turn.userId, message: turn.message, history },
          {
            model,
            tools: deps.tools,
            activity,
            workspace: storage.workspace(scope),
            memory: storage.memory(scope),
            limits: { maxIterations: config.maxIterations, timeBudgetMs: config.timeBudgetMs, toolTimeoutMs: config.toolTimeoutMs, modelRetries: config.modelRetries },
            systemPrompt: deps.systemPrompt,
          },
          emit,
          signal,
        );
      } catch (err) {
        // A bug in the loop must still end the stream properly.
        console.error('rebound: turn failed', err);
        send({ event: 'agent_error', data: { message: 'The agent failed unexpectedly. Try again.', retryable: true } });
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
        console.error(`rebound: could not persist turn ${turn.id}`, err);
        send({ event: 'agent_error', data: { message: 'This turn could not be saved to the session history.', retryable: false } });
      }
      if (done) send(done);
      // The activity flush outlives the response where the platform allows it.
      const flushed = activity.flush().then((report) => {
        if (report.dropped > 0) console.error(`rebound: ${report.dropped} activity rows could not be written (${report.lastError ?? 'unknown error'})`);
      });
      waitUntil?.(flushed);
    },
    { keepaliveMs: config.keepaliveMs, requestSignal: c.req.raw.signal },
  );
}
