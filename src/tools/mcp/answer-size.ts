// What one answer of an MCP server may cost before the SDK parses it (docs/configuration.md § Limits).
// The MCP client reads a whole answer, JSON or an SSE stream, into memory and parses it before handing
// it over, so a server could make one tools/list or tools/call cost memory and parse time in the size
// of what it sends. Every response the client's fetch gets is read through `bound`: past
// MAX_MCP_ANSWER_BYTES (or a Content-Length above it) its body fails and is not read on, and the
// operation waiting on it (the handshake, tools/list, tools/call: `run`) fails with McpAnswerTooLarge,
// which source.ts turns into the reason the model (or GET /v1/tools) is given. Kept apart from sdk.ts
// so that source.ts can tell this error without loading the SDK.

/** 32 MB, as much as a model's answer (MAX_COMPLETION_BYTES): far above a tool result the model is given (40,000 characters). */
export const MAX_MCP_ANSWER_BYTES = 32 * 1024 * 1024;

export class McpAnswerTooLarge extends Error {
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super(`sent an answer larger than ${(maxBytes / 1024 / 1024).toLocaleString('en-US')} MB (MAX_MCP_ANSWER_BYTES); it was not read past that`);
    this.maxBytes = maxBytes;
    this.name = 'McpAnswerTooLarge';
  }
}

/** One session's answers, bounded. A session runs one operation at a time (a turn's calls to a server are sequential). */
export class AnswerCap {
  /** Aborted with McpAnswerTooLarge when an answer the operation in flight waits on passes the cap. */
  private current: AbortController | null = null;

  private readonly maxBytes: number;
  constructor(maxBytes: number = MAX_MCP_ANSWER_BYTES) {
    this.maxBytes = maxBytes;
  }

  /** `op` with a signal that also aborts when its answer passes the cap; it then fails with McpAnswerTooLarge, whatever the SDK made of that. */
  async run<T>(signal: AbortSignal | undefined, op: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const own = new AbortController();
    this.current = own;
    try {
      return await op(signal ? AbortSignal.any([signal, own.signal]) : own.signal);
    } catch (err) {
      throw own.signal.reason instanceof McpAnswerTooLarge ? own.signal.reason : err;
    } finally {
      if (this.current === own) this.current = null;
    }
  }

  /**
   * `response` with a body that fails past the cap, unread beyond it. `answers`: a POST's response, which
   * carries the answer the operation in flight waits on (it fails too); the server's own stream (GET) only ends.
   */
  bound(response: Response, answers: boolean): Response {
    if (!response.ok || !response.body) return response;
    const max = this.maxBytes;
    const over = (): McpAnswerTooLarge => {
      const err = new McpAnswerTooLarge(max);
      if (answers) this.current?.abort(err);
      return err;
    };
    const reader = response.body.getReader();
    const fail = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
      const err = over();
      await reader.cancel(err).catch(() => {});
      controller.error(err);
    };
    // An answer that says it is larger is not read at all.
    let size = Number(response.headers.get('content-length') ?? 0) > max ? max + 1 : 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (size > max) return fail(controller);
        const { done, value } = await reader.read();
        if (done) return controller.close();
        size += value.byteLength;
        if (size > max) return fail(controller);
        controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }
}
