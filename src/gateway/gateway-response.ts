// What the gateway answers, for the route to turn into an HTTP response: a JSON body or an SSE stream,
// with its status and headers. Its own module so that both answers, the completion (index.ts) and the
// model list (models.ts), name it without one importing the other.
export interface GatewayResponse {
  /** 'stream': an SSE body (the route adds the event-stream headers). */
  kind: 'json' | 'stream';
  status: number;
  headers: Record<string, string>;
  body: string | ReadableStream<Uint8Array>;
}
