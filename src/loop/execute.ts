// Running one tool: a tool that throws, hangs past its timeout or returns something that cannot be
// serialised becomes an error with a hint for the model. Nothing a tool does ends the turn.
import { boundedResult } from '../calls/bounded-result.ts';
import { delay } from '../delay.ts';
import { cut } from '../quote.ts';
import { takeDiffs } from '../tools/diffs.ts';
import { InputRequired } from '../tools/input.ts';
import type { Tool, ToolContext } from '../tools/types.ts';
import type { FileDiff } from '../vocabulary.ts';
import type { Execution } from '../calls/types.ts';

export async function executeTool(
  tool: Tool,
  args: Record<string, unknown>,
  ctx: Omit<ToolContext, 'signal'>,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<Execution> {
  // The tool's signal: the turn's, or the timeout's. `done` ends the wait once the race is decided.
  const timedOut = new AbortController();
  const done = new AbortController();
  const signal = AbortSignal.any([options.signal, timedOut.signal]);
  // Resolves on the timeout or on an abort, so a tool that ignores its signal cannot hold the turn.
  const timeout = delay(options.timeoutMs, { signal: AbortSignal.any([options.signal, done.signal]) }).then(() =>
    options.signal.aborted ? ('aborted' as const) : ('timeout' as const),
  );
  try {
    const outcome = await Promise.race([tool.run(args, { ...ctx, signal }), timeout]);
    if (outcome === 'timeout') {
      timedOut.abort(new Error('tool timeout'));
      return failure(`${tool.name} did not finish within ${options.timeoutMs} ms`, 'Retry with a smaller request, or continue without this result.', true);
    }
    if (outcome === 'aborted') return failure(`${tool.name} was stopped: the turn ended`, 'No action needed.', true);
    // Its MCP server asks the person first: handed on whole as the result (loop/turn.ts pauses the turn on
    // it; docs/approval.md § A server's question), never serialised or bounded.
    if (outcome instanceof InputRequired) return { ok: true, result: outcome, json: 'null' };
    // Diffs are taken only from this app's own tools: an MCP server's result is passed on as it came.
    if (tool.origin) return success(outcome, null);
    const { result, diffs } = takeDiffs(outcome);
    return success(result, diffs);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return failure(`${tool.name} failed: ${message}`, 'Read the error, correct the arguments and call the tool again, or choose another tool.');
  } finally {
    done.abort();
  }
}

function success(result: unknown, diffs: FileDiff[] | null): Execution {
  let json: string | undefined;
  try {
    json = JSON.stringify(result ?? null);
  } catch (err) {
    return failure(`the tool returned a result that cannot be serialised (${(err as Error).message})`, 'Report this to the user; the tool itself is faulty.');
  }
  // Bounded here, once: past this line no one holds more of a huge result than the model gets.
  const bounded = boundedResult(result ?? null, json ?? 'null'); // JSON.stringify(() => {}) is undefined
  return { ok: true, ...bounded, ...(diffs ? { diffs } : {}) };
}

/** Longest error the model, the event and the activity row get from a failed tool (a thrown 20 MB message is cut). */
const MAX_ERROR_CHARS = 2_000;

function failure(error: string, hint: string, timedOut = false): Execution {
  return { ok: false, error: cut(error, MAX_ERROR_CHARS), hint, timedOut };
}
