// One turn of the agent, owned from turn_start to done and written into a sink (the turn's log): the
// session's history, then model → gate → execute → nudge → … → final answer, then the turn saved (its
// outcome row, its messages, its end) and only then `done`, so a client that sends the next message as
// soon as it sees `done` finds this turn in the history. Whatever goes wrong becomes something the
// model or the user can act on; every turn ends with exactly one `done`. Its mutable state is a
// TurnState (turn-state.ts); the steps below read and tell it.
import type { ActivityRow, ActivityWriter } from '../activity/types.ts';
import { quote } from '../quote.ts';
import { bound, gate, type GateContext, MAX_NAME, type ProposedCall, type ToolSpec, type Verdict } from 'rebound-gate';
import { ModelError, type ModelClient } from '../model/types.ts';
import type { MemoryStore, Storage, TurnRecord, WorkspaceStore } from '../store/types.ts';
import type { CallTrace, TurnTrace } from '../telemetry/index.ts';
import type { Tool } from '../tools/types.ts';
import type { ChatMessage, DoneReason, Emit, SummaryReason } from '../vocabulary.ts';
import { activityRow } from '../calls/activity-row.ts';
import { costShares, isWasted, type ModelCallCost } from '../calls/wasted.ts';
import { categoryOf, toolMessage, toolResultEvent, type CallOutcome } from '../calls/call-outcome.ts';
import { traceEnd } from './call-trace.ts';
import { turnRow } from './turn-row.ts';
import { CompletionAborted, streamCompletion, type Completion } from './completion.ts';
import { executeTool } from './execute.ts';
import { NARRATION_NUDGE, continuationNudge, nextActionOf } from './nudges.ts';
import { DEFAULT_SYSTEM_PROMPT } from './prompt.ts';
import { fallbackSummary } from './summary.ts';
import { TurnState, type TurnResult } from './turn-state.ts';

/** The claimed turn: who asked what, in which session. */
export type TurnInput = Pick<TurnRecord, 'id' | 'sessionId' | 'userId' | 'message'>;

export interface TurnLimits {
  maxIterations: number;
  timeBudgetMs: number;
  toolTimeoutMs: number;
  modelRetries: number;
  summaryTimeoutMs?: number;
  /** Batches in a row whose every call repeats a failure before the forced summary `no_progress` (NO_PROGRESS_ITERATIONS; default 2). */
  noProgressIterations?: number;
}

export const DEFAULT_NO_PROGRESS_ITERATIONS = 2;

export interface TurnDeps {
  /** The session's history and where the turn is saved; the workspace and memory the tools use. */
  storage: Storage;
  model: ModelClient;
  tools: Tool[];
  activity: ActivityWriter;
  limits: TurnLimits;
  systemPrompt?: string;
  /** Keeps the platform alive for the activity flush after the turn (waitUntil). */
  waitUntil?: (promise: Promise<unknown>) => void;
  log?: (line: string) => void;
  /** The turn's `invoke_agent` span, started by whoever started the turn (tracing on): runTurn ends it. */
  trace?: TurnTrace;
  /**
   * More tools, asked for once turn_start is out (MCP servers: their listing may take up to
   * MCP_LIST_TIMEOUT_MS): added to `tools`, with the activity writer the turn then uses, and closed when
   * the turn ends (src/turns/turn-tools.ts).
   */
  openTools?: (signal: AbortSignal) => Promise<OpenedTools>;
}

/** What `openTools` gave a turn. */
export interface OpenedTools {
  tools: Tool[];
  activity: ActivityWriter;
  close(): Promise<void>;
}

/**
 * Runs one claimed turn into `sink`, turn_start to done: how it ended is the `done` event's. `signal`
 * stops it (done{reason:"aborted"}).
 */
export async function runTurn(turn: TurnInput, given: TurnDeps, { sink, signal }: { sink: Emit; signal: AbortSignal }): Promise<void> {
  const started = new Date();
  // Before anything that can wait: the client knows the turn started while tool sources are listed.
  sink({ event: 'turn_start', data: { turnId: turn.id, sessionId: turn.sessionId, model: given.model.model, demo: given.model.demo } });
  const opened = given.openTools ? await given.openTools(signal) : undefined;
  try {
    const deps = opened ? { ...given, tools: [...given.tools, ...opened.tools], activity: opened.activity } : given;
    await runOpened(turn, deps, { sink, signal, started });
  } finally {
    await opened?.close();
  }
}

async function runOpened(turn: TurnInput, deps: TurnDeps, { sink, signal, started }: { sink: Emit; signal: AbortSignal; started: Date }): Promise<void> {
  const log = deps.log ?? ((line: string) => console.error(line));
  let result: TurnResult;
  try {
    const history = await deps.storage.sessions.history(turn.sessionId);
    result = await play(turn, deps, { history, emit: sink, signal });
  } catch (err) {
    // A bug in the loop must still end the turn properly; what it did is not saved.
    log(`rebound: turn ${turn.id} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    sink({ event: 'agent_error', data: { message: 'The agent failed unexpectedly. Try again.', retryable: true } });
    result = { reason: 'error', iterations: 0, usage: { promptTokens: 0, completionTokens: 0 }, messages: [] };
  }
  deps.activity.recordTurn(turnRow({ turn, model: deps.model.model, result, started, finished: new Date() }));
  deps.trace?.end({ reason: result.reason, iterations: result.iterations, usage: result.usage });
  await save(turn, result, { storage: deps.storage, sink, log });
  sink({ event: 'done', data: { reason: result.reason, iterations: result.iterations, usage: result.usage } });
  // The activity flush outlives the turn where the platform allows it.
  const flushed = deps.activity.flush().then((report) => {
    if (report.dropped > 0) log(`rebound: ${report.dropped} activity rows could not be written (${quote(report.lastError ?? 'unknown error')})`);
  });
  deps.waitUntil?.(flushed);
}

/** Appends what the turn added to the session and marks the turn finished; a failure is told, not thrown. */
async function save(turn: TurnInput, result: TurnResult, { storage, sink, log }: { storage: Storage; sink: Emit; log: (line: string) => void }): Promise<void> {
  try {
    if (result.messages.length > 0) await storage.sessions.appendMessages(turn.sessionId, turn.id, result.messages);
    await storage.sessions.finishTurn(turn.id);
  } catch (err) {
    log(`rebound: could not persist turn ${turn.id}: ${quote(err instanceof Error ? err.message : err)}`);
    sink({ event: 'agent_error', data: { message: 'This turn could not be saved to the session history.', retryable: false } });
  }
}

/** What every step of a turn reads besides its state. */
interface Run {
  turn: TurnInput;
  deps: TurnDeps;
  emit: Emit;
  /** The stop. */
  signal: AbortSignal;
  /** The stop or the time budget, whichever comes first: aborts whatever is in flight (model stream or tool). */
  budget: AbortSignal;
  state: TurnState;
  specs: ToolSpec[];
  tools: Map<string, Tool>;
  workspace: WorkspaceStore;
  memory: MemoryStore;
}

class BudgetExceeded extends Error {}

/** The model loop over a fresh TurnState, within the time budget. */
async function play(
  turn: TurnInput,
  deps: TurnDeps,
  { history, emit, signal }: { history: ChatMessage[]; emit: Emit; signal: AbortSignal },
): Promise<TurnResult> {
  const specs: ToolSpec[] = deps.tools.map(({ run: _run, ...spec }) => spec);
  const state = new TurnState({ systemPrompt: deps.systemPrompt ?? DEFAULT_SYSTEM_PROMPT, history, message: turn.message, tools: specs });
  const budget = abortAfter(deps.limits.timeBudgetMs, signal, () => new BudgetExceeded('time budget'));
  const scope = { userId: turn.userId, sessionId: turn.sessionId, turnId: turn.id };
  const run: Run = {
    turn,
    deps,
    emit,
    signal,
    budget: budget.signal,
    state,
    specs,
    tools: new Map(deps.tools.map((t) => [t.name, t])),
    workspace: deps.storage.workspace(scope),
    memory: deps.storage.memory(scope),
  };
  try {
    return state.result(await iterate(run));
  } finally {
    budget.dispose();
  }
}

/** Iterations until an answer, the stop, an error or a budget (then the forced summary) ends them. */
async function iterate(run: Run): Promise<DoneReason> {
  const { state, deps, signal, budget } = run;
  for (;;) {
    if (signal.aborted) return 'aborted';
    if (state.iteration >= deps.limits.maxIterations) return forcedSummary(run, 'iteration_limit');
    if (budget.aborted) return forcedSummary(run, 'time_budget');
    state.iteration++;

    let completion: Completion;
    const cost: ModelCallCost = { promptTokens: 0, completionTokens: 0, ms: 0 };
    const asked = performance.now();
    try {
      completion = await streamCompletion(deps.model, state.request(budget), {
        retries: deps.limits.modelRetries,
        emit: run.emit,
        addUsage: (u) => {
          state.addUsage(u);
          cost.promptTokens += u?.promptTokens ?? 0;
          cost.completionTokens += u?.completionTokens ?? 0;
        },
        trace: deps.trace,
      });
      cost.ms = performance.now() - asked;
    } catch (err) {
      // What the user already read of a cut answer stays in the history, for them and the model.
      if (err instanceof CompletionAborted && err.shownText.trim()) state.add({ role: 'assistant', content: err.shownText });
      if (signal.aborted) return 'aborted';
      if (budget.aborted) return forcedSummary(run, 'time_budget');
      run.emit({ event: 'agent_error', data: { message: describeModelError(err), retryable: err instanceof ModelError && err.retryable } });
      return 'error';
    }

    if (completion.toolCalls.length === 0) {
      state.add({ role: 'assistant', content: completion.text });
      if (!state.takeNarrationNudge(completion.text)) return 'completed';
      state.nudge(NARRATION_NUDGE);
      continue;
    }

    state.add({
      role: 'assistant',
      content: completion.visibleText || null,
      tool_calls: completion.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
    });
    const directives: string[] = [];
    const outcomes: CallOutcome[] = [];
    const rows: ActivityRow[] = [];
    // The batch's rows carry their share of this model call's cost, known once every call has an outcome.
    const record = () => {
      const failed = outcomes.map((o) => o.kind !== 'executed' || !o.execution.ok);
      const wasted = isWasted(failed, completion.visibleText);
      const shares = costShares(cost, rows.length, wasted);
      for (const [i, row] of rows.entries()) deps.activity.recordCall({ ...row, ...shares[i] });
      if (wasted) state.wastedCall(cost);
    };
    for (const call of completion.toolCalls) {
      if (signal.aborted) {
        record();
        return 'aborted';
      }
      const context = await state.gateContext(async () => (await run.workspace.list()).map((f) => f.path));
      run.emit({ event: 'tool_call', data: { id: call.id, name: bound(call.name, MAX_NAME), arguments: call.arguments, iteration: state.iteration } });
      const span = deps.trace?.call(call);
      const outcome = await handleCall(run, call, { embedded: completion.embedded, context, trace: span });
      span?.end(traceEnd(outcome, run.tools));
      if (outcome.kind !== 'withheld' && outcome.escalation) {
        deps.trace?.event('rebound.loop_breaker', {
          'gen_ai.tool.name': bound(call.name, MAX_NAME),
          'rebound.loop_breaker.repeats': outcome.escalation.repeats,
          'rebound.loop_breaker.withheld': outcome.escalation.withheld,
        });
      }
      state.called(outcome);
      outcomes.push(outcome);
      run.emit(toolResultEvent(outcome));
      rows.push(
        activityRow(
          { turnId: run.turn.id, sessionId: run.turn.sessionId, userId: run.turn.userId, iteration: state.iteration, model: deps.model.model },
          outcome,
        ),
      );
      state.add(toolMessage(outcome));
      const directive = outcome.kind === 'executed' && outcome.execution.ok ? nextActionOf(outcome.execution.result) : null;
      if (directive) directives.push(directive);
    }
    record();
    if (signal.aborted) return 'aborted';
    // Only failures the model has already seen, NO_PROGRESS_ITERATIONS times running: asking again costs
    // a growing prompt and changes nothing, so the turn ends with a summary of what kept failing.
    if (state.batchEnded(outcomes) >= (deps.limits.noProgressIterations ?? DEFAULT_NO_PROGRESS_ITERATIONS)) return forcedSummary(run, 'no_progress');
    state.nudge(
      continuationNudge(
        directives,
        outcomes.some((o) => categoryOf(o) === 'repeated_failure'),
      ),
    );
  }
}

/** Gates the call and runs it when it passes, unless the loop breaker withholds its tool. */
async function handleCall(
  { state, specs, tools, turn, deps, workspace, memory, budget }: Run,
  call: ProposedCall,
  { embedded, context, trace }: { embedded: boolean; context: GateContext; trace?: CallTrace },
): Promise<CallOutcome> {
  const t0 = performance.now();
  let verdict: Verdict = gate(call, specs, context);
  if (embedded && verdict.verdict !== 'blocked') {
    // The call was valid but written into the text: record that, run it anyway.
    verdict = {
      ...verdict,
      verdict: 'repaired',
      category: 'text_embedded_call',
      repairs: [{ kind: 'extracted_from_text', path: '$', category: 'text_embedded_call' }, ...(verdict.verdict === 'repaired' ? verdict.repairs : [])],
    };
  }
  const { breaker } = state;
  const target = verdict.verdict === 'blocked' ? call.name : verdict.call.name;
  if (breaker.isWithheld(target)) return { kind: 'withheld', call, refusal: breaker.refusal(target), durationMs: performance.now() - t0 };
  if (verdict.verdict === 'blocked') {
    const escalation = breaker.failed({ tool: call.name, category: verdict.category, args: call.arguments });
    return { kind: 'blocked', call, verdict, escalation, durationMs: performance.now() - t0 };
  }
  const tool = tools.get(verdict.call.name)!;
  const scope = { userId: turn.userId, sessionId: turn.sessionId, turnId: turn.id };
  // A tool that makes a request (an MCP server's) carries the call's trace context.
  const traceHeaders = tool.origin && trace ? trace.headers : undefined;
  const execution = await executeTool(
    tool,
    verdict.call.args,
    { scope, workspace, memory, traceHeaders },
    { timeoutMs: deps.limits.toolTimeoutMs, signal: budget },
  );
  const escalation = execution.ok ? null : breaker.failed({ tool: tool.name, category: 'execution_error', args: verdict.call.args });
  return { kind: 'executed', call, verdict, execution, escalation, durationMs: performance.now() - t0 };
}

/** A budget ran out: one last call with no tools allowed writes the summary, or a fixed text says what is known. */
async function forcedSummary({ state, deps, emit, signal }: Run, reason: SummaryReason): Promise<DoneReason> {
  emit({ event: 'forced_summary', data: { reason } });
  deps.trace?.event('rebound.forced_summary', { 'rebound.summary.reason': reason, 'rebound.turn.iterations': state.iteration });
  const timeout = abortAfter(deps.limits.summaryTimeoutMs ?? 20_000, signal, () => new BudgetExceeded('summary timeout'));
  let text = '';
  try {
    const request = state.summaryRequest(reason, timeout.signal);
    text = (await streamCompletion(deps.model, request, { retries: 0, emit, addUsage: (u) => state.addUsage(u), trace: deps.trace })).text;
  } catch (err) {
    if (signal.aborted) {
      if (err instanceof CompletionAborted && err.shownText.trim()) state.add({ role: 'assistant', content: err.shownText });
      return 'aborted';
    }
  } finally {
    timeout.dispose();
  }
  if (!text.trim()) {
    text = fallbackSummary(reason, state.stats, state.repeatedFailures());
    emit({ event: 'text_delta', data: { text } });
  }
  state.add({ role: 'assistant', content: text });
  return reason;
}

/** A signal that aborts after `ms`, or with `parent` (the stop). `dispose` clears the timer and the listener. */
function abortAfter(ms: number, parent: AbortSignal, reason: () => Error): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(reason()), ms);
  const onAbort = () => controller.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      parent.removeEventListener('abort', onAbort);
    },
  };
}

function describeModelError(err: unknown): string {
  if (err instanceof ModelError) return `The model could not answer: ${err.message}. Try again in a moment.`;
  return 'The model stream failed unexpectedly. Try again in a moment.';
}
