// One turn of the agent, owned from turn_start to done and written into a sink (the turn's log): the
// session's history, then model → gate → execute → nudge → … → final answer, then the turn saved (its
// outcome row, its messages, its end) and only then `done`, so a client that sends the next message as
// soon as it sees `done` finds this turn in the history. Whatever goes wrong becomes something the
// model or the user can act on; every turn ends with exactly one `done`. Its mutable state is a
// TurnState (turn-state.ts); the steps below read and tell it.
import type { ActivityWriter } from '../activity/types.ts';
import { gate, type GateContext, type ProposedCall, type ToolSpec, type Verdict } from 'rebound-gate';
import { bound, MAX_NAME } from 'rebound-gate/internal';
import { ModelError, type ModelClient } from '../model/types.ts';
import type { ApprovalRecord, MemoryStore, Storage, TurnRecord, WorkspaceStore } from '../store/types.ts';
import type { CallTrace, TurnTrace } from '../telemetry/index.ts';
import type { Tool } from '../tools/types.ts';
import type { ChatMessage, DoneReason, Emit } from '../vocabulary.ts';
import { activityRow } from '../calls/activity-row.ts';
import { costShares, isWasted, type ModelCallCost } from '../calls/wasted.ts';
import { categoryOf, toolMessage, toolResultEvent, type CallOutcome } from '../calls/call-outcome.ts';
import type { Batch, PausedLoop, WaitingCall } from './paused.ts';
import { answered, ask, DEFAULT_APPROVAL_TIMEOUT_MS, pause, question, type ApprovalPolicy, type TurnResume } from './pause.ts';
import { traceEnd } from './call-trace.ts';
import { turnRow } from './turn-row.ts';
import { flushActivity, save } from './turn-end.ts';
import { execute, toolContext } from './run-tool.ts';
import { abortAfter, BudgetExceeded } from './abort-after.ts';
import { CompletionAborted, streamCompletion, type Completion } from './completion.ts';
import { forcedSummary } from './forced-summary.ts';
import { NARRATION_NUDGE, continuationNudge, nextActionOf } from './nudges.ts';
import { DEFAULT_SYSTEM_PROMPT } from './prompt.ts';
import { TurnState, type TurnResult } from './turn-state.ts';
import { gateSpec } from './workspace-gate.ts';

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
  /**
   * Which calls wait for a person (docs/approval.md § Which calls): APPROVAL_TOOLS as a test of names (tools' own
   * needsApproval applies too) and APPROVAL_TIMEOUT_MS. Absent: no call waits.
   */
  approval?: ApprovalPolicy;
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
 * stops it (done{reason:"aborted"}). With calls that wait for a person (docs/approval.md § The pause is stored state) it pauses
 * instead: the turn's state is stored, `approval_required` sent for each, and it returns 'paused' with
 * no `done`; `resume` goes on from there, in this process or another, in the same log.
 */
export async function runTurn(
  turn: TurnInput,
  given: TurnDeps,
  { sink, signal, resume }: { sink: Emit; signal: AbortSignal; resume?: TurnResume },
): Promise<'paused' | undefined> {
  const started = resume ? new Date(resume.paused.startedAt) : new Date();
  // The log's seq of each event, counted here: a pause stores where its log stands.
  let seq = resume?.lastSeq ?? 0;
  const emit: Emit = (event) => {
    seq++;
    sink(event);
  };
  // Before anything that can wait: the client knows the turn started while tool sources are listed.
  if (!resume) emit({ event: 'turn_start', data: { turnId: turn.id, sessionId: turn.sessionId, model: given.model.model, demo: given.model.demo } });
  const opened = given.openTools ? await given.openTools(signal) : undefined;
  try {
    const deps = opened ? { ...given, tools: [...given.tools, ...opened.tools], activity: opened.activity } : given;
    return await runOpened(turn, deps, { sink: emit, signal, started, resume, position: () => seq });
  } finally {
    await opened?.close();
  }
}

async function runOpened(
  turn: TurnInput,
  deps: TurnDeps,
  { sink, signal, started, resume, position }: { sink: Emit; signal: AbortSignal; started: Date; resume?: TurnResume; position: () => number },
): Promise<'paused' | undefined> {
  const log = logOf(deps);
  let result: TurnResult;
  let runningMs = resume?.paused.elapsedMs ?? 0;
  const t0 = performance.now();
  try {
    const history = resume ? [] : await deps.storage.sessions.history(turn.sessionId);
    const played = await play(turn, deps, { history, emit: sink, signal, resume });
    runningMs += performance.now() - t0;
    if ('paused' in played) {
      const paused = { ...played.paused, startedAt: started.toISOString(), elapsedMs: runningMs };
      const timeoutMs = deps.approval?.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
      await pause(turn.id, { paused, sink, lastSeq: position() }, { approvals: deps.storage.approvals, timeoutMs, trace: deps.trace });
      flushActivity(deps, log);
      return 'paused';
    }
    result = played;
  } catch (err) {
    // A bug in the loop must still end the turn properly; what it did is not saved.
    log(`rebound: turn ${turn.id} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    sink({ event: 'agent_error', data: { message: 'The agent failed unexpectedly. Try again.', retryable: true } });
    result = { reason: 'error', iterations: 0, usage: { promptTokens: 0, completionTokens: 0 }, messages: [] };
    runningMs = (resume?.paused.elapsedMs ?? 0) + (performance.now() - t0);
  }
  deps.activity.recordTurn(turnRow({ turn, model: deps.model.model, result, started, finished: new Date(), runningMs }));
  deps.trace?.end({ reason: result.reason, iterations: result.iterations, usage: result.usage });
  await save(turn, result, { storage: deps.storage, sink, log });
  sink({ event: 'done', data: { reason: result.reason, iterations: result.iterations, usage: result.usage } });
  flushActivity(deps, log);
  return undefined;
}

/** Where the turn's log lines go: `deps.log`, else stderr. */
const logOf = (deps: TurnDeps): ((line: string) => void) => deps.log ?? ((line) => console.error(line));

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

/** What a turn's loop comes to: its end, or a pause with the batch whose calls wait. */
type Played = TurnResult | { paused: Omit<PausedLoop, 'startedAt' | 'elapsedMs'> };

/** The model loop over a fresh (or resumed) TurnState, within the time budget (less what ran before a pause). */
async function play(
  turn: TurnInput,
  deps: TurnDeps,
  { history, emit, signal, resume }: { history: ChatMessage[]; emit: Emit; signal: AbortSignal; resume?: TurnResume },
): Promise<Played> {
  const specs: ToolSpec[] = deps.tools.map(gateSpec);
  const state = resume
    ? new TurnState({ snapshot: resume.paused.state, tools: specs })
    : new TurnState({ systemPrompt: deps.systemPrompt ?? DEFAULT_SYSTEM_PROMPT, history, message: turn.message, tools: specs });
  const budget = abortAfter(Math.max(0, deps.limits.timeBudgetMs - (resume?.paused.elapsedMs ?? 0)), signal, () => new BudgetExceeded('time budget'));
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
    const resumed = resume && { batch: resume.paused.batch, decisions: new Map(resume.decisions.map((d) => [d.id, d])) };
    const end = await iterate(run, resumed);
    return typeof end === 'string' ? state.result(end) : { paused: { version: 1, state: state.snapshot(), batch: end.paused } };
  } finally {
    budget.dispose();
  }
}

/**
 * Iterations until an answer, the stop, an error or a budget (then the forced summary) ends them, or a
 * batch with calls that wait for a person pauses them. `resumed`: the paused batch and its decisions,
 * settled first.
 */
async function iterate(run: Run, resumed?: { batch: Batch; decisions: Map<string, ApprovalRecord> }): Promise<DoneReason | { paused: Batch }> {
  const { state, deps, signal, budget } = run;
  if (resumed) {
    const end = await endBatch(run, resumed.batch, resumed.decisions);
    if (end !== null) return end;
  }
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
    const batch: Batch = { visibleText: completion.visibleText ?? '', cost, marks: [], rows: [], directives: [], waiting: [] };
    for (const call of completion.toolCalls) {
      if (signal.aborted) {
        await endBatch(run, batch, new Map()); // calls that waited get their "stopped" results
        return 'aborted';
      }
      const context = await state.gateContext(async () => (await run.workspace.list()).map((f) => f.path));
      run.emit({ event: 'tool_call', data: { id: call.id, name: bound(call.name, MAX_NAME), arguments: call.arguments, iteration: state.iteration } });
      const span = deps.trace?.call(call);
      const handled = await handleCall(run, call, { embedded: completion.embedded, context, trace: span });
      if (handled.kind === 'waiting') {
        const { verdict: waited, input } = handled.waiting;
        // A server's question: the span says it was asked, and which MCP revision the server spoke.
        const origin = input ? run.tools.get(waited.call.name)?.origin : undefined;
        span?.end({
          outcome: 'awaiting_approval',
          category: waited.category,
          verdict: waited,
          escalation: null,
          ...(input ? { elicitation: 'asked' as const } : {}),
          ...(origin ? { tool: { name: waited.call.name, mcp: origin } } : {}),
        });
        batch.waiting.push(handled.waiting);
        continue;
      }
      settle(run, batch, handled, span);
    }
    const end = await endBatch(run, batch);
    if (end !== null) return end;
  }
}

/**
 * A batch whose calls all have outcomes, but those that wait: with `decisions` (a resumed turn, or a
 * stop: an empty map), the waiting calls are settled by them; without, a batch with waiting calls
 * pauses the turn. Then its rows are recorded and the loop decides how to go on: null for the next
 * iteration (after the nudge), or how the turn ends.
 */
async function endBatch(run: Run, batch: Batch, decisions?: Map<string, ApprovalRecord>): Promise<DoneReason | { paused: Batch } | null> {
  const { state, deps, signal } = run;
  if (batch.waiting.length > 0) {
    if (!decisions && !signal.aborted) return { paused: batch };
    for (const waiting of batch.waiting) {
      const span = deps.trace?.call(waiting.call);
      const outcome = await answered(waiting, decisions?.get(waiting.approvalId), {
        turnId: run.turn.id,
        trace: deps.trace,
        log: logOf(deps),
        execute: (approved, input) => execute(run, approved.call.name, approved.call.args, span, input),
      });
      settle(run, batch, outcome, span);
    }
    batch.waiting = [];
  }
  record(run, batch);
  if (signal.aborted) return 'aborted';
  // Only failures the model has already seen, NO_PROGRESS_ITERATIONS times running: asking again costs
  // a growing prompt and changes nothing, so the turn ends with a summary of what kept failing.
  const repeated = batch.marks.map((m) => m.repeated);
  if (state.batchEnded(repeated) >= (deps.limits.noProgressIterations ?? DEFAULT_NO_PROGRESS_ITERATIONS)) return forcedSummary(run, 'no_progress');
  state.nudge(continuationNudge(batch.directives, repeated.some(Boolean)));
  return null;
}

/** What one call's outcome tells: its span, the state, the client, the batch's row and marks, the model. */
function settle(run: Run, batch: Batch, outcome: CallOutcome, span: CallTrace | undefined): void {
  const { deps, state, turn } = run;
  span?.end(traceEnd(outcome, run.tools));
  if (outcome.kind !== 'withheld' && outcome.escalation) {
    deps.trace?.event('rebound.loop_breaker', {
      'gen_ai.tool.name': bound(outcome.call.name, MAX_NAME),
      'rebound.loop_breaker.repeats': outcome.escalation.repeats,
      'rebound.loop_breaker.withheld': outcome.escalation.withheld,
    });
  }
  state.called(outcome);
  batch.marks.push({ failed: outcome.kind !== 'executed' || !outcome.execution.ok, repeated: categoryOf(outcome) === 'repeated_failure' });
  run.emit(toolResultEvent(outcome));
  batch.rows.push(
    activityRow({ turnId: turn.id, sessionId: turn.sessionId, userId: turn.userId, iteration: state.iteration, model: deps.model.model }, outcome),
  );
  state.add(toolMessage(outcome));
  const directive = outcome.kind === 'executed' && outcome.execution.ok ? nextActionOf(outcome.execution.result) : null;
  if (directive) batch.directives.push(directive);
}

/** The batch's rows, each with its share of the model call's cost, known once every call has an outcome. */
function record({ deps, state }: Run, batch: Batch): void {
  const wasted = isWasted(
    batch.marks.map((m) => m.failed),
    batch.visibleText,
  );
  const shares = costShares(batch.cost, batch.rows.length, wasted);
  for (const [i, row] of batch.rows.entries()) deps.activity.recordCall({ ...row, ...shares[i] });
  batch.rows = [];
  if (wasted) state.wastedCall(batch.cost);
}

/**
 * Gates the call and runs it when it passes, unless the loop breaker withholds its tool, or it needs a
 * person's approval (docs/approval.md § Gate first): then it waits, with the preview of what it would change.
 */
async function handleCall(
  run: Run,
  call: ProposedCall,
  { embedded, context, trace }: { embedded: boolean; context: GateContext; trace?: CallTrace },
): Promise<CallOutcome | { kind: 'waiting'; waiting: WaitingCall }> {
  const { state, specs, tools, deps, budget } = run;
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
  const ctx = toolContext(run, tool, trace);
  const options = { policy: deps.approval, timeoutMs: deps.limits.toolTimeoutMs, signal: budget, startedAt: t0 };
  const waiting = await ask({ call, verdict, tool, ctx }, options);
  if (waiting) return { kind: 'waiting', waiting };
  const { execution, escalation, question: asked } = await execute(run, tool.name, verdict.call.args, trace);
  // Its MCP server asked the person first: the call waits for their answer as an approval does.
  if (asked) return { kind: 'waiting', waiting: await question({ call, verdict, question: asked }, { startedAt: t0 }) };
  return { kind: 'executed', call, verdict, execution, escalation, durationMs: performance.now() - t0 };
}

function describeModelError(err: unknown): string {
  if (err instanceof ModelError) return `The model could not answer: ${err.message}. Try again in a moment.`;
  return 'The model stream failed unexpectedly. Try again in a moment.';
}
