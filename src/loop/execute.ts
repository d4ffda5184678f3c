// Running one tool: a tool that throws, hangs past its timeout or returns something that cannot be
// serialised becomes an error with a hint for the model. Nothing a tool does ends the turn.
import { delay } from '../delay.ts';
import { takeDiffs } from '../tools/diffs.ts';
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
  return { ok: true, result, json: json ?? 'null', ...(diffs ? { diffs } : {}) }; // JSON.stringify(() => {}) is undefined
}

function failure(error: string, hint: string, timedOut = false): Execution {
  return { ok: false, error, hint, timedOut };
}
