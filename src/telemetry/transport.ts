// The OTLP/HTTP transport: one POST per batch with plain fetch, the same on Node, workerd and Deno.
// The OTLP packages' own transports are node:http (Node) and a browser fetch that sets `mode` and
// `keepalive`, which workerd refuses. A failure is data (the export delegate counts it and the batch
// is dropped), never retried: a collector that is down costs one bounded request per batch, and the
// turn never waits for it.
import type { ExportResponse } from '@opentelemetry/otlp-exporter-base';

export interface TransportOptions {
  url: string;
  headers: Record<string, string>;
  contentType: string;
}

export function fetchTransport({ url, headers, contentType }: TransportOptions) {
  const requestHeaders = { ...headers, 'content-type': contentType };
  return {
    async send(data: Uint8Array, timeoutMillis: number): Promise<ExportResponse> {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMillis} ms`)), timeoutMillis);
      try {
        // Called without a receiver: workerd's fetch throws "Illegal invocation" as a method of another object.
        const post = fetch;
        const response = await post(url, { method: 'POST', headers: requestHeaders, body: data as Uint8Array<ArrayBuffer>, signal: controller.signal });
        // The body (a partial-success notice at most) is not read: the connection is freed either way.
        await response.body?.cancel().catch(() => {});
        if (response.ok) return { status: 'success' };
        return { status: 'failure', error: new Error(`the collector answered ${response.status}`) };
      } catch (err) {
        const cause = err instanceof Error && err.cause instanceof Error ? ` (${err.cause.message})` : '';
        return { status: 'failure', error: new Error(`${err instanceof Error ? err.message : String(err)}${cause}`) };
      } finally {
        clearTimeout(timer);
      }
    },
    shutdown() {},
  };
}
