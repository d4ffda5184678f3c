// Reads and validates a JSON request body, the one way every route does: 415 for another content type,
// 413 past the size limit, 400 for text that is not JSON or fields that do not fit the schema, each with
// what to fix. The work a body can cause is bounded before it is parsed (json-scan.ts): the counts a
// route documents (the gateway's messages, tools and content parts), the values in the whole body, and
// the arrays of which only the last member is read (useChat's conversation). The error lists the first
// problems and how many more, so its size does not grow with the body's.
import type { Context } from 'hono';
import type * as z from 'zod';
import { cut } from '../quote.ts';
import { ApiError } from './errors.ts';
import { type JsonBounds, scanJson } from './json-scan.ts';
import { assertNever } from '../vocabulary.ts';

export const MAX_BODY_BYTES = 256 * 1024;

/** Most values (objects, arrays and their members) a body may hold: no field, read or forwarded, makes its parse long. */
export const MAX_BODY_VALUES = 100_000;

/** Most problems an invalid body's error lists; it says how many more there were. */
export const MAX_PROBLEMS = 10;

export interface BodyOptions extends JsonBounds {
  /** The body's byte cap (default 256 KB). */
  maxBytes?: number;
  /** The 413's message (default: the size and "Send a shorter message"). */
  tooLarge?: string;
  /** The body a 400 for a non-object shows as an example (default: a turn's `{"message": "…"}`). */
  example?: string;
}

export interface SchemaOptions<T> extends BodyOptions {
  /**
   * A hand check that passes only what the schema certainly passes, with the same data: a body it passes
   * is returned as it is, without the schema's copy (the gateway's fitsChatBody); the schema reads the
   * rest, and its errors are the client's.
   */
  fits?: (body: Record<string, unknown>) => body is T & Record<string, unknown>;
}

export async function readJson<S extends z.ZodType>(c: Context, schema: S, options: SchemaOptions<z.infer<S>> = {}): Promise<z.infer<S>> {
  return (await readJsonBody(c, schema, options)).body;
}

/** A body readJsonBody read: the value, and with `membersOf` its array's members' text (json-scan.ts Scan `members`). */
export interface ReadBody<T> {
  body: T;
  members?: string[] | undefined;
}

/** readJson, with what the scan found besides the value (`membersOf`). */
export async function readJsonBody<S extends z.ZodType>(c: Context, schema: S, options: SchemaOptions<z.infer<S>> = {}): Promise<ReadBody<z.infer<S>>> {
  const maxBytes = options.maxBytes ?? MAX_BODY_BYTES;
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
    throw new ApiError(
      415,
      'unsupported_media_type',
      `Send the body as JSON with "Content-Type: application/json" (got ${type ? cut(`"${type}"`, 100) : 'no content type'}).`,
    );
  }
  const length = c.req.header('content-length');
  if (Number(length ?? '0') > maxBytes) throw tooLarge(maxBytes, options);
  const framed = length !== undefined && /^\d+$/.test(length);
  const text = (framed ? receivedWhole(c, Number(length)) : undefined) ?? (framed ? await c.req.raw.text() : await readLimited(c.req.raw, maxBytes, options));
  // A request whose body is not held to its Content-Length (one made in process) is still held to maxBytes, in characters (at most its bytes).
  if (text.length > maxBytes) throw tooLarge(maxBytes, options);
  const scan = scanJson(text, { maxValues: MAX_BODY_VALUES, ...options });
  if (!scan.ok) throw scanError(scan);
  let value: unknown;
  try {
    value = JSON.parse(scan.text);
  } catch (err) {
    throw new ApiError(
      400,
      'malformed_json',
      `The body is not valid JSON (${cut((err as Error).message, 200)}). Send one JSON object such as {"message": "…"}.`,
      {
        cause: err,
      },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new ApiError(400, 'invalid_request', `The body must be one JSON object such as ${options.example ?? '{"message": "…"}'}, not ${got}.`);
  }
  const body = value as Record<string, unknown>;
  if (options.fits?.(body)) return { body, members: scan.members };
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    // The kept member of a keepLast array is its first in the parsed text: name it by its index in the body.
    const at = (path: PropertyKey[]): PropertyKey[] =>
      scan.skipped > 0 && path[0] === options.keepLast && path[1] === 0 ? [path[0] as PropertyKey, scan.skipped, ...path.slice(2)] : path;
    throw new ApiError(400, 'invalid_request', `Invalid request: ${problems(parsed.error.issues.map((i) => ({ path: at(i.path), message: i.message })))}.`);
  }
  return { body: parsed.data, members: scan.members };
}

/**
 * The 413 past `maxBytes`. A module function, not a closure made per request (docs/benchmarks.md § The
 * streaming paths at the physical limit).
 */
function tooLarge(maxBytes: number, options: BodyOptions): ApiError {
  return new ApiError(413, 'payload_too_large', options.tooLarge ?? `The body is larger than ${Math.round(maxBytes / 1024)} KB. Send a shorter message.`);
}

/** The first MAX_PROBLEMS problems, each cut, then how many more: the message stays a few KB whatever the body. */
function problems(issues: Array<{ path: PropertyKey[]; message: string }>): string {
  const listed = issues.slice(0, MAX_PROBLEMS).map((i) => `${i.path.length ? cut(i.path.map(String).join('.'), 120) : 'body'}: ${cut(i.message, 200)}`);
  const more = issues.length > MAX_PROBLEMS ? `; and ${issues.length - MAX_PROBLEMS} more problems, not listed` : '';
  return listed.join('; ') + more;
}

function scanError(scan: Exclude<ReturnType<typeof scanJson>, { ok: true }>): ApiError {
  switch (scan.kind) {
    case 'malformed':
      return new ApiError(400, 'malformed_json', `The body is not valid JSON (${scan.reason}). Send one JSON object such as {"message": "…"}.`);
    case 'values':
      return new ApiError(
        400,
        'invalid_request',
        `Invalid request: the body holds more than ${scan.max.toLocaleString('en')} JSON values (objects, arrays and their members), the most a request may (docs/configuration.md § Limits). Send a smaller request.`,
      );
    case 'items':
      return new ApiError(
        400,
        'invalid_request',
        `Invalid request: ${scan.path.replaceAll('.*', '[]')} has more than ${scan.max.toLocaleString('en')} items, the most this route reads (docs/configuration.md § Limits). Send at most ${scan.max.toLocaleString('en')}.`,
      );
    default:
      return assertNever(scan, 'JSON scan result');
  }
}

/** What receivedWhole reads of Node's IncomingMessage (node:http's, or node:http2's compatibility request). */
interface NodeIncoming {
  readableDidRead: boolean;
  readableFlowing: boolean | null;
  readableEncoding: string | null;
  readableLength: number;
  read(): unknown;
  resume(): unknown;
}

const UTF8 = new TextDecoder();

/**
 * On Node (@hono/node-server, whose env holds the IncomingMessage), a body whose every byte, as its
 * Content-Length counts them, the server has already received: taken from the stream's buffer in one read.
 * Node's parser hands the body over before it says the message is complete, and the route's work runs
 * in between, so `text()`, which waits for the end, waited for the route's own work, then for its
 * listeners and three turns of the microtask queue (~70 µs of a gateway request's first byte under load,
 * docs/benchmarks.md § The streaming paths at the physical limit). The stream is then let flow, so that
 * it ends when the parser says so (nothing of it is left to read). Decoded as `text()` decodes (UTF-8,
 * a leading BOM dropped). Anything else (another runtime, a body still arriving, one read before, an
 * empty one): undefined, and the body is read as before.
 */
function receivedWhole(c: Context, length: number): string | undefined {
  const incoming = (c.env as { incoming?: Partial<NodeIncoming> } | undefined)?.incoming;
  if (
    !incoming ||
    length === 0 ||
    incoming.readableLength !== length ||
    incoming.readableDidRead !== false ||
    incoming.readableFlowing === true ||
    incoming.readableEncoding !== null ||
    typeof incoming.read !== 'function' ||
    typeof incoming.resume !== 'function'
  ) {
    return undefined;
  }
  const bytes = incoming.read();
  incoming.resume();
  return bytes instanceof Uint8Array ? UTF8.decode(bytes) : undefined;
}

/**
 * Reads at most maxBytes of a body that has no Content-Length (a chunked one). A body with one, no more
 * than maxBytes (checked before), is framed by it and read whole with text(): on Node the server's own
 * read, without the Request and the web stream this reader costs (~0.1 ms of a gateway request's first
 * byte, docs/benchmarks.md § The streaming paths at the physical limit).
 */
async function readLimited(request: Request, maxBytes: number, options: BodyOptions): Promise<string> {
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
      throw tooLarge(maxBytes, options);
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
