// Reads and validates a JSON request body: 415 for another content type, 413 past the size limit,
// 400 for text that is not JSON or fields that do not fit the schema, each with what to fix.
import type { Context } from 'hono';
import type * as z from 'zod';
import { ApiError } from './errors.ts';

export const MAX_BODY_BYTES = 256 * 1024;

export async function readJson<S extends z.ZodType>(c: Context, schema: S, maxBytes = MAX_BODY_BYTES): Promise<z.infer<S>> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
    throw new ApiError(
      415,
      'unsupported_media_type',
      `Send the body as JSON with "Content-Type: application/json" (got ${type ? `"${type}"` : 'no content type'}).`,
    );
  }
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const text = await readLimited(c.req.raw, maxBytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ApiError(400, 'malformed_json', `The body is not valid JSON (${(err as Error).message}). Send one JSON object such as {"message": "…"}.`, {
      cause: err,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new ApiError(400, 'invalid_request', `The body must be one JSON object such as {"message": "…"}, not ${got}.`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const details = parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`).join('; ');
    throw new ApiError(400, 'invalid_request', `Invalid request: ${details}.`);
  }
  return parsed.data;
}

function tooLarge(maxBytes: number) {
  return new ApiError(413, 'payload_too_large', `The body is larger than ${Math.round(maxBytes / 1024)} KB. Send a shorter message.`);
}

/** Reads at most maxBytes, without trusting Content-Length (chunked bodies have none). */
async function readLimited(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}
