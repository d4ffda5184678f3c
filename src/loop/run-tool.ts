// Running one of the turn's tools, as the loop does for a call that passed the gate and for one a
// person approved (loop/pause.ts): the tool's context (the turn's scope, workspace, memory, the call's
// trace headers), its timeout and the turn's budget, the loop breaker told of a failure, and an MCP
// server's question to the person (MCP elicitation) told apart from a result.
import type { Execution } from '../calls/types.ts';
import type { MemoryStore, TurnRecord, WorkspaceStore } from '../store/types.ts';
import type { CallTrace } from '../telemetry/index.ts';
import { InputRequired, type InputReply } from '../tools/input.ts';
import type { Tool } from '../tools/types.ts';
import { executeTool } from './execute.ts';
import type { LoopBreaker } from './loop-breaker.ts';

/** What running a tool reads of the turn's run (loop/turn.ts's Run has it). */
export interface ToolRun {
  turn: Pick<TurnRecord, 'id' | 'sessionId' | 'userId'>;
  tools: Map<string, Tool>;
  /** The stop or the time budget: aborts the tool. */
  budget: AbortSignal;
  state: { breaker: Pick<LoopBreaker, 'failed'> };
  deps: { limits: { toolTimeoutMs: number } };
  workspace: WorkspaceStore;
  memory: MemoryStore;
}

/**
 * Runs a call that passed (or a person approved, or answered its server's question for: `input`) with
 * the turn's tool: its execution, and the loop breaker's escalation when it failed; `question` when the
 * tool's MCP server asked the person something first (handleCall pauses the turn on it; anywhere else it
 * is the failure it says). A tool gone since (its server did not list it when the turn went on) is a
 * failure the model can act on.
 */
export async function execute(run: ToolRun, name: string, args: Record<string, unknown>, trace?: CallTrace, input?: InputReply) {
  const tool = run.tools.get(name);
  const ran: Execution = tool
    ? await executeTool(
        tool,
        args,
        { ...toolContext(run, tool, trace), ...(input ? { input } : {}) },
        { timeoutMs: run.deps.limits.toolTimeoutMs, signal: run.budget },
      )
    : {
        ok: false,
        error: `${name} is not available any more (its server did not list it when the turn went on)`,
        hint: 'Continue without it, or tell the user.',
        timedOut: false,
      };
  const question = ran.ok && ran.result instanceof InputRequired ? ran.result.question : undefined;
  const execution: Execution = question
    ? {
        ok: false,
        error: `${name}: its MCP server asked the user a question (${JSON.stringify(question.message.slice(0, 200))}), which cannot be put to them at this point`,
        hint: 'Continue without it, or tell the user.',
        timedOut: false,
      }
    : ran;
  const escalation = execution.ok || question ? null : run.state.breaker.failed({ tool: name, category: 'execution_error', args });
  return { execution, escalation, question };
}

/** What a tool of the turn runs with. */
export function toolContext({ turn, workspace, memory }: Pick<ToolRun, 'turn' | 'workspace' | 'memory'>, tool: Tool, trace?: CallTrace) {
  const scope = { userId: turn.userId, sessionId: turn.sessionId, turnId: turn.id };
  // A tool that makes a request (an MCP server's) carries the call's trace context.
  return { scope, workspace, memory, traceHeaders: tool.origin && trace ? trace.headers : undefined };
}
