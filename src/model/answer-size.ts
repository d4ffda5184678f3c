// The most one upstream answer may be, however it comes: a whole JSON answer is read no further
// (src/gateway/complete.ts, native-stream.ts), and a stream is stopped past it (sse-decode.ts: the
// agent loop's model, the gateway's chat and native upstreams alike). No model writes an answer this
// long; an upstream that streams on past it would otherwise hold its request and the memory of what
// is kept of it until the client left (docs/configuration.md § Limits).

/** 32 MB: far above any model's output limit, well below what would strain the server. */
export const MAX_COMPLETION_BYTES = 32 * 1024 * 1024;
