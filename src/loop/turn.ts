// One turn of the agent: model → gate → execute → nudge → … → final answer, as a stream of
// TurnEvents. Whatever goes wrong becomes something the model or the user can act on; every turn
// ends with a final answer and exactly one `done`.
import { gate } from '../gate/index.ts';
import { buildPathIndex } from '../gate/paths.ts';
import { extractTextCalls } from '../gate/text-calls.ts';
import type { GateContext, ProposedCall, ToolSpec, Verdict } from '../gate/types.ts';
import type { ActivityWriter } from '../activity/types.ts';
import { streamWithRetry } from '../model/retry.ts';
import { ModelError, type AssembledToolCall, type ModelClient, type ModelRequest } from '../model/types.ts';
import type { MemoryStore, WorkspaceStore } from '../store/types.ts';
import type { Tool } from '../tools/types.ts';
import { activityRow } from './activity-row.ts';
import { toolMessage, toolResultEvent, type CallOutcome } from './call-outcome.ts';
import type { ChatMessage, DoneReason, Emit, Usage } from '../vocabulary.ts';
import { executeTool } from './execute.ts';
import { LoopBreaker } from './loop-breaker.ts';
import { NARRATION_NUDGE, continuationNudge, isNarratedAction, nextActionOf } from './nudges.ts';
import { DEFAULT_SYSTEM_PROMPT } from './prompt.ts';
import { fallbackSummary, summaryRequest, type SummaryReason } from './summary.ts';
import { TextHold } from './text-hold.ts';

export interface TurnInput {
  turnId: string;
  sessionId: string;
  userId: string | null;
  message: string;
  history: ChatMessage[];
}

export interface TurnDeps {
  model: ModelClient;
  tools: Tool[];
  activity: ActivityWriter;
  workspace: WorkspaceStore;
  memory: MemoryStore;
  limits: { maxIterations: number; timeBudgetMs: number; toolTimeoutMs: number; modelRetries: number; summaryTimeoutMs?: number };
  systemPrompt?: string;
}

export interface TurnResult {
  reason: DoneReason;
  iterations: number;
  usage: Usage;
  /** What to append to the session's history: the user message, assistant messages, tool results. */
  messages: ChatMessage[];
}

class BudgetExceeded extends Error {}

export async function runTurn(input: TurnInput, deps: TurnDeps, emit: Emit, signal: AbortSignal): Promise<TurnResult> {
  const started = Date.now();
  const usage: Usage = { promptTokens: 0, completionTokens: 0 };
  const stats = { calls: 0, failed: 0 };
  const specs: ToolSpec[] = deps.tools.map(({ run: _run, ...spec }) => spec);
  const byName = new Map(deps.tools.map((t) => [t.name, t]));
  const needsPaths = deps.tools.some((t) => t.pathParams?.length);
  // Repeated identical failures escalate, up to withholding the tool for the rest of the turn.
  const breaker = new LoopBreaker(specs);
  const userMessage: ChatMessage = { role: 'user', content: input.message };
  const persisted: ChatMessage[] = [userMessage];
  const prompt: ChatMessage[] = [{ role: 'system', content: deps.systemPrompt ?? DEFAULT_SYSTEM_PROMPT }, ...input.history, userMessage];
  const turnStart = prompt.length - 1;
  let iteration = 0;
  let narrationNudged = false;
  let gateContext: GateContext | null = null;

  // The time budget aborts whatever is in flight (model stream or tool) and leads to the summary.
  const budget = new AbortController();
  const budgetTimer = setTimeout(() => budget.abort(new BudgetExceeded('time budget')), deps.limits.timeBudgetMs);
  const onClientAbort = () => budget.abort(signal.reason);
  signal.addEventListener('abort', onClientAbort, { once: true });

  const finish = (reason: DoneReason): TurnResult => {
    emit({ event: 'done', data: { reason, iterations: iteration, usage } });
    return { reason, iterations: iteration, usage, messages: persisted };
  };
  const push = (message: ChatMessage, persist = true) => {
    prompt.push(message);
    if (persist) persisted.push(message);
  };

  try {
    for (;;) {
      if (signal.aborted) return finish('aborted');
      if (iteration >= deps.limits.maxIterations) return await forcedSummary('iteration_limit');
      if (budget.signal.aborted) return await forcedSummary('time_budget');
      iteration++;

      let completion: Completion;
      try {
        completion = await streamCompletion(deps.model, { messages: prompt, tools: breaker.offered(), toolChoice: 'auto', signal: budget.signal, turnStart }, { retries: deps.limits.modelRetries, emit, usage });
      } catch (err) {
        if (signal.aborted) return finish('aborted');
        if (budget.signal.aborted) return await forcedSummary('time_budget');
        emit({ event: 'agent_error', data: { message: describeModelError(err), retryable: err instanceof ModelError && err.retryable } });
        return finish('error');
      }

      const { text, toolCalls, embedded } = completion;
      if (toolCalls.length === 0) {
        if (!narrationNudged && isNarratedAction(text)) {
          narrationNudged = true;
          push({ role: 'assistant', content: text });
          push({ role: 'user', content: NARRATION_NUDGE }, false);
          continue;
        }
        push({ role: 'assistant', content: text });
        return finish('completed');
      }

      push({
        role: 'assistant',
        content: completion.visibleText || null,
        tool_calls: toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      });
      const directives: string[] = [];
      for (const call of toolCalls) {
        if (signal.aborted) return finish('aborted');
        if (needsPaths && !gateContext) gateContext = { paths: buildPathIndex((await deps.workspace.list()).map((f) => f.path)) };
        emit({ event: 'tool_call', data: { id: call.id, name: call.name, arguments: call.arguments, iteration } });
        stats.calls++;
        const outcome = await handleCall(call, embedded, gateContext ?? {});
        if (outcome.kind !== 'executed' || !outcome.execution.ok) stats.failed++;
        emit(toolResultEvent(outcome));
        deps.activity.recordCall(activityRow({ turnId: input.turnId, sessionId: input.sessionId, userId: input.userId, iteration, model: deps.model.model }, outcome));
        push(toolMessage(outcome));
        if (outcome.kind === 'executed') {
          // A tool that ran may have changed the workspace: rebuild the path index before the next gate.
          gateContext = null;
          const directive = outcome.execution.ok ? nextActionOf(outcome.execution.result) : null;
          if (directive) directives.push(directive);
        }
      }
      if (signal.aborted) return finish('aborted');
      push({ role: 'user', content: continuationNudge(directives) }, false);
    }
  } finally {
    clearTimeout(budgetTimer);
    signal.removeEventListener('abort', onClientAbort);
  }

  /** Gates the call and runs it when it passes, unless the loop breaker withholds its tool. */
  async function handleCall(call: ProposedCall, embedded: boolean, context: GateContext): Promise<CallOutcome> {
    const t0 = performance.now();
    let verdict: Verdict = gate(call, specs, context);
    if (embedded && verdict.verdict !== 'blocked') {
      // The call was valid but written into the text: record that, run it anyway.
      verdict = { ...verdict, verdict: 'repaired', category: 'text_embedded_call', repairs: [{ kind: 'extracted_from_text', path: '$', category: 'text_embedded_call' }, ...(verdict.verdict === 'repaired' ? verdict.repairs : [])] };
    }
    const target = verdict.verdict === 'blocked' ? call.name : verdict.call.name;
    if (breaker.isWithheld(target)) return { kind: 'withheld', call, refusal: breaker.refusal(target), durationMs: performance.now() - t0 };
    if (verdict.verdict === 'blocked') {
      const escalation = breaker.failed({ tool: call.name, category: verdict.category, args: call.arguments });
      return { kind: 'blocked', call, verdict, escalation, durationMs: performance.now() - t0 };
    }
    const tool = byName.get(verdict.call.name)!;
    const execution = await executeTool(tool, verdict.call.args, { scope: { userId: input.userId, sessionId: input.sessionId, turnId: input.turnId }, workspace: deps.workspace, memory: deps.memory }, { timeoutMs: deps.limits.toolTimeoutMs, signal: budget.signal });
    const escalation = execution.ok ? null : breaker.failed({ tool: tool.name, category: 'execution_error', args: verdict.call.args });
    return { kind: 'executed', call, verdict, execution, escalation, durationMs: performance.now() - t0 };
  }

  async function forcedSummary(reason: SummaryReason): Promise<TurnResult> {
    emit({ event: 'forced_summary', data: { reason } });
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(new BudgetExceeded('summary timeout')), deps.limits.summaryTimeoutMs ?? 20_000);
    const request: ChatMessage[] = [...prompt, { role: 'user', content: summaryRequest(reason) }];
    let text = '';
    try {
      const completion = await streamCompletion(deps.model, { messages: request, tools: breaker.offered(), toolChoice: 'none', signal: controller.signal, turnStart }, { retries: 0, emit, usage });
      text = completion.text;
    } catch {
      if (signal.aborted) return finish('aborted');
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
    if (!text.trim()) {
      text = fallbackSummary(reason, stats);
      emit({ event: 'text_delta', data: { text } });
    }
    persisted.push({ role: 'assistant', content: text });
    return finish(reason);
  }
}

interface Completion {
  text: string;
  visibleText: string;
  toolCalls: AssembledToolCall[];
  /** True when the calls were extracted from the text rather than sent as tool_calls. */
  embedded: boolean;
}

async function streamCompletion(model: ModelClient, request: ModelRequest, { retries, emit, usage }: { retries: number; emit: Emit; usage: Usage }): Promise<Completion> {
  const { tools, toolChoice, signal } = request;
  const hold = new TextHold();
  let toolCalls: AssembledToolCall[] = [];
  for await (const event of streamWithRetry(model, request, { retries })) {
    if (event.type === 'text') {
      const shown = hold.push(event.text);
      if (shown) emit({ event: 'text_delta', data: { text: shown } });
    } else {
      toolCalls = event.toolCalls;
      if (event.usage) {
        usage.promptTokens += event.usage.promptTokens;
        usage.completionTokens += event.usage.completionTokens;
      }
    }
  }
  if (signal.aborted) throw signal.reason ?? new Error('aborted');
  const text = hold.full;
  // A call written into the text counts only where calls are allowed (not in the forced summary).
  if (toolCalls.length === 0 && toolChoice === 'auto' && tools.length > 0) {
    const extracted = extractTextCalls(text, tools);
    if (extracted.calls.length > 0) {
      const rest = hold.release(extracted.visibleText);
      if (rest) emit({ event: 'text_delta', data: { text: rest } });
      const calls = extracted.calls.map((c, i) => ({ id: `text_call_${Date.now().toString(36)}_${i}`, name: c.name, arguments: JSON.stringify(c.arguments) }));
      return { text, visibleText: extracted.visibleText, toolCalls: calls, embedded: true };
    }
  }
  const rest = hold.release();
  if (rest) emit({ event: 'text_delta', data: { text: rest } });
  return { text, visibleText: text, toolCalls, embedded: false };
}

function describeModelError(err: unknown): string {
  if (err instanceof ModelError) return `The model could not answer: ${err.message}. Try again in a moment.`;
  return 'The model stream failed unexpectedly. Try again in a moment.';
}

