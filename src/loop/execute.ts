// Running one tool: a tool that throws, hangs past its timeout or returns something that cannot be
// serialised becomes an {error, hint} result for the model. Nothing a tool does ends the turn.
import type { Tool, ToolContext } from '../tools/types.ts';

export type Execution =
  | { ok: true; result: unknown; content: string }
  | { ok: false; error: string; hint: string; content: string; timedOut: boolean };

const MAX_RESULT_CHARS = 40_000;

export async function executeTool(
  tool: Tool,
  args: Record<string, unknown>,
  ctx: Omit<ToolContext, 'signal'>,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<Execution> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort = () => {};
  // Resolves on the timeout or on an abort, so a tool that ignores its signal cannot hold the turn.
  const timeout = new Promise<'timeout' | 'aborted'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
    onAbort = () => {
      controller.abort(options.signal.reason);
      resolve('aborted');
    };
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const outcome = await Promise.race([tool.run(args, { ...ctx, signal: controller.signal }), timeout]);
    if (outcome === 'timeout') {
      controller.abort(new Error('tool timeout'));
      return failure(`${tool.name} did not finish within ${options.timeoutMs} ms`, 'Retry with a smaller request, or continue without this result.', true);
    }
    if (outcome === 'aborted') return failure(`${tool.name} was stopped: the turn ended`, 'No action needed.', true);
    return success(outcome);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return failure(`${tool.name} failed: ${message}`, 'Read the error, correct the arguments and call the tool again, or choose another tool.');
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
  }
}

function success(result: unknown): Execution {
  let content: string;
  try {
    content = typeof result === 'string' ? result : JSON.stringify(result ?? null);
  } catch (err) {
    return failure(`the tool returned a result that cannot be serialised (${(err as Error).message})`, 'Report this to the user; the tool itself is faulty.');
  }
  if (content === undefined) content = 'null'; // JSON.stringify(() => {}) is undefined
  if (content.length > MAX_RESULT_CHARS) content = `${content.slice(0, MAX_RESULT_CHARS)}\n[truncated: ${content.length} characters in all]`;
  return { ok: true, result, content };
}

function failure(error: string, hint: string, timedOut = false): Execution {
  return { ok: false, error, hint, content: JSON.stringify({ error, hint }), timedOut };
}
