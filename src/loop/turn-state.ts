// The mutable state of one turn, in one object: what the model is sent and what the session keeps,
// the iteration, the token usage and call counts, the gate's path index and the loop breaker (which
// also decides the tools still offered). It does no I/O; runTurn (turn.ts) reads as a sequence of
// steps that ask it and tell it what happened.
import type { GateContext, ToolSpec } from 'rebound-gate';
import type { ModelRequest } from '../model/types.ts';
import type { ChatMessage, DoneReason, SummaryReason, Usage } from '../vocabulary.ts';
import { type CallOutcome, categoryOf } from '../calls/call-outcome.ts';
import { LoopBreaker, type LoopBreakerMemory } from './loop-breaker.ts';
import { isNarratedAction } from './nudges.ts';
import { workspaceContext } from './workspace-gate.ts';
import { type RepeatedFailure, summaryRequest } from './summary.ts';

export interface TurnResult {
  reason: DoneReason;
  iterations: number;
  usage: Usage;
  /** What to append to the session's history: the user message, assistant messages, tool results. */
  messages: ChatMessage[];
  /** The wasted model calls (src/calls/wasted.ts); absent on a turn that failed before its loop. */
  wasted?: { calls: number; promptTokens: number; completionTokens: number; ms: number };
}

export interface TurnStateOptions {
  systemPrompt: string;
  /** The session's conversation before this turn. */
  history: ChatMessage[];
  /** The user's message that opens the turn. */
  message: string;
  tools: ToolSpec[];
}

/**
 * A TurnState as JSON, for a turn paused for approval (src/loop/paused.ts): everything but the gate's
 * path index, which is rebuilt on the next gate (the workspace may have changed meanwhile).
 */
export interface TurnStateSnapshot {
  prompt: ChatMessage[];
  persisted: ChatMessage[];
  turnStart: number;
  iteration: number;
  usage: Usage;
  stats: { calls: number; failed: number };
  wasted: { calls: number; promptTokens: number; completionTokens: number; ms: number };
  narrationNudged: boolean;
  repeats: RepeatedFailure[];
  stalled: number;
  breaker: LoopBreakerMemory;
}

export class TurnState {
  /** Model calls made so far (the forced summary's excepted). */
  iteration = 0;
  readonly usage: Usage = { promptTokens: 0, completionTokens: 0 };
  readonly stats = { calls: 0, failed: 0 };
  /** The turn's wasted model calls (src/calls/wasted.ts): how many, their tokens and ms. */
  readonly wasted = { calls: 0, promptTokens: 0, completionTokens: 0, ms: 0 };
  /** Repeated identical failures escalate, up to withholding the tool for the rest of the turn. */
  readonly breaker: LoopBreaker;
  /** What the model is sent: the system prompt, the history, this turn's messages and the loop's nudges. */
  private readonly prompt: ChatMessage[];
  /** What the session keeps of this turn: the user's message, the replies and the tool results. */
  private readonly persisted: ChatMessage[];
  /** Where the turn begins in `prompt`: the index of the user's message. */
  private readonly turnStart: number;
  /** The turn's tools as the gate reads them. */
  private readonly tools: readonly ToolSpec[];
  private gate: GateContext | null = null;
  private narrationNudged = false;
  /** The failures the model repeated, by tool and kind, for the no-progress summary. */
  private readonly repeats = new Map<string, RepeatedFailure>();
  /** Batches in a row whose every call repeated a failure of this turn. */
  private stalled = 0;

  constructor(options: TurnStateOptions | { snapshot: TurnStateSnapshot; tools: ToolSpec[] }) {
    this.breaker = new LoopBreaker(options.tools);
    this.tools = options.tools;
    if ('snapshot' in options) {
      const s = structuredClone(options.snapshot);
      this.prompt = s.prompt;
      this.persisted = s.persisted;
      this.turnStart = s.turnStart;
      this.iteration = s.iteration;
      Object.assign(this.usage, s.usage);
      Object.assign(this.stats, s.stats);
      Object.assign(this.wasted, s.wasted);
      this.narrationNudged = s.narrationNudged;
      for (const r of s.repeats) this.repeats.set(JSON.stringify([r.tool, r.what]), r);
      this.stalled = s.stalled;
      this.breaker.restore(s.breaker);
      return;
    }
    const userMessage: ChatMessage = { role: 'user', content: options.message };
    this.prompt = [{ role: 'system', content: options.systemPrompt }, ...options.history, userMessage];
    this.turnStart = this.prompt.length - 1;
    this.persisted = [userMessage];
  }

  /** Everything a paused turn needs to go on in another process (see TurnStateSnapshot). */
  snapshot(): TurnStateSnapshot {
    return structuredClone({
      prompt: this.prompt,
      persisted: this.persisted,
      turnStart: this.turnStart,
      iteration: this.iteration,
      usage: this.usage,
      stats: this.stats,
      wasted: this.wasted,
      narrationNudged: this.narrationNudged,
      repeats: [...this.repeats.values()],
      stalled: this.stalled,
      breaker: this.breaker.memory(),
    });
  }

  /** A message of the turn: sent to the model from now on and kept in the session. */
  add(message: ChatMessage): void {
    this.prompt.push(message);
    this.persisted.push(message);
  }

  /** A user-role message for the model only: the loop's nudges are never stored in the history. */
  nudge(content: string): void {
    this.prompt.push({ role: 'user', content });
  }

  /** The request for the next completion, with the tools still offered. */
  request(signal: AbortSignal): ModelRequest {
    return { messages: this.prompt, tools: this.breaker.offered(), toolChoice: 'auto', signal, turnStart: this.turnStart };
  }

  /** The forced summary's request: the same prompt and tools (the provider's prompt cache holds), no calls allowed. */
  summaryRequest(reason: SummaryReason, signal: AbortSignal): ModelRequest {
    const messages: ChatMessage[] = [...this.prompt, { role: 'user', content: summaryRequest(reason, this.repeatedFailures()) }];
    return { messages, tools: this.breaker.offered(), toolChoice: 'none', signal, turnStart: this.turnStart };
  }

  addUsage(usage: Usage | null): void {
    if (!usage) return;
    this.usage.promptTokens += usage.promptTokens;
    this.usage.completionTokens += usage.completionTokens;
  }

  /** True once per turn, for a reply that announces an action instead of calling a tool: it gets a nudge. */
  takeNarrationNudge(text: string): boolean {
    if (this.narrationNudged || !isNarratedAction(text)) return false;
    this.narrationNudged = true;
    return true;
  }

  /** What the gate consults: the workspace's path index when a tool names paths, built on first need. */
  async gateContext(listPaths: () => Promise<string[]>): Promise<GateContext> {
    this.gate ??= await workspaceContext(this.tools, listPaths);
    return this.gate;
  }

  /** Counts a call by its outcome. A tool that ran may have changed the workspace: the path index is rebuilt before the next gate. */
  called(outcome: CallOutcome): void {
    this.stats.calls++;
    if (outcome.kind !== 'executed' || !outcome.execution.ok) this.stats.failed++;
    if (outcome.kind === 'executed') this.gate = null;
    if (categoryOf(outcome) !== 'repeated_failure') return;
    const tool = outcome.kind === 'executed' ? outcome.verdict.call.name : outcome.call.name;
    const what =
      outcome.kind === 'withheld' ? 'withheld after failing' : outcome.kind === 'executed' ? 'the tool failed' : failureWords(outcome.verdict.category);
    const key = JSON.stringify([tool, what]);
    const times = outcome.kind === 'withheld' ? (this.repeats.get(key)?.times ?? 0) + 1 : (outcome.escalation?.repeats ?? 2);
    this.repeats.set(key, { tool, what, times });
  }

  /**
   * A batch of calls has ended (`repeated`: each call's category was repeated_failure): the number of batches in a row, this one included, that made no
   * progress (every call repeated a failure already seen in this turn). A batch with one call that
   * ran, or failed in a new way, resets it: a model varying its attempts is not stopped.
   */
  batchEnded(repeated: readonly boolean[]): number {
    const stuck = repeated.length > 0 && repeated.every(Boolean);
    this.stalled = stuck ? this.stalled + 1 : 0;
    return this.stalled;
  }

  /** A model call that was wasted: its cost is added to the turn's. */
  wastedCall(cost: { promptTokens: number; completionTokens: number; ms: number }): void {
    this.wasted.calls++;
    this.wasted.promptTokens += cost.promptTokens;
    this.wasted.completionTokens += cost.completionTokens;
    this.wasted.ms += cost.ms;
  }

  /** What the model kept repeating, most repeated first. */
  repeatedFailures(): RepeatedFailure[] {
    return [...this.repeats.values()].sort((a, b) => b.times - a.times);
  }

  result(reason: DoneReason): TurnResult {
    return { reason, iterations: this.iteration, usage: this.usage, messages: this.persisted, wasted: this.wasted };
  }
}

function failureWords(category: string): string {
  return category === 'phantom_tool' ? 'no such tool' : `blocked: ${category}`;
}
