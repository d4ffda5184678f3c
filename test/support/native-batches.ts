// A native upstream's answer (codecs/native-stream.ts) as the batches of chunks the gateway core reads,
// from an SSE body given as text and split into reads at chosen byte offsets: for the tests of the
// native lane and of what HeldStream makes of its runs, without a server.
import { anthropicCall } from '../../src/gateway/codecs/anthropic-upstream.ts';
import { responsesCall } from '../../src/gateway/codecs/responses-upstream.ts';
import type { ChatChunks } from '../../src/gateway/upstream.ts';

type Batch = ChatChunks extends AsyncIterable<infer B> ? B : never;

/** The batches of `protocol`'s translation for the SSE body `stream`, read in pieces cut at the byte offsets `cuts` (ascending). */
export async function nativeBatches(protocol: 'anthropic' | 'responses', stream: string, cuts: number[]): Promise<Batch[]> {
  const bytes = new TextEncoder().encode(stream);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    pieces.push(bytes.subarray(from, cut));
    from = cut;
  }
  const fetch = (async () =>
    new Response(new ReadableStream<Uint8Array>({ pull: (c) => (pieces.length ? c.enqueue(pieces.shift()!) : c.close()) }), {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
    })) as unknown as typeof globalThis.fetch;
  const call =
    protocol === 'anthropic'
      ? anthropicCall({ baseURL: 'http://up', apiKey: 'k', timeoutMs: 10_000, headers: {}, fetch }, { model: 'm', messages: [] }, 0)
      : responsesCall({ baseURL: 'http://up', apiKey: 'k', timeoutMs: 10_000, fetch }, { model: 'm', input: 'x' }, 0, new Set());
  const result = await call({ model: 'm', messages: [] }, { signal: new AbortController().signal });
  if (!result.ok || !result.chunks) throw new Error(`the ${protocol} translation gave no chunks`);
  const out: Batch[] = [];
  for await (const batch of result.chunks) out.push(batch);
  return out;
}
