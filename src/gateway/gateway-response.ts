// What the gateway answers, for the route to turn into an HTTP response: a JSON body or an SSE stream,
// with its status and headers. Its own module so that both answers, the completion (index.ts) and the
// model list (models.ts), name it without one importing the other.
export type GatewayResponse = JsonResponse | { kind: 'stream'; status: number; headers: Record<string, string>; body: StreamedBody };

/** A whole answer (the model list's is passed on as the upstream's body stream). */
export interface JsonResponse {
  kind: 'json';
  status: number;
  headers: Record<string, string>;
  body: string | ReadableStream<Uint8Array>;
}

/**
 * An SSE answer (the route adds the event-stream headers), as the route's SSE writer holds it
 * (src/http/sse.ts SseStream, handed down as OpenStream): it makes the HTTP response itself, a web
 * ReadableStream's or, on Node, the one it writes to.
 */
export interface StreamedBody {
  response(status: number, headers: Record<string, string>): Response;
}
