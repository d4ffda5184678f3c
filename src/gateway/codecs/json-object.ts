// The one reading of a JSON object the codecs need (a call's arguments, an upstream's event or body):
// the object the text holds, or null when it holds anything else or is not JSON. And the one reading
// of a Chat Completions body's or chunk's choice (the first that is an object), and of a client's value
// where a string belongs.
import { isPlainObject, jsonText } from 'rebound-gate/internal';

export function jsonObject(text: unknown): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(String(text ?? ''));
    return isPlainObject(v) ? v : null;
  } catch {
    return null;
  }
}

/** The first choice of a Chat Completions body or chunk that is an object, if any. */
export function firstChoice(body: Record<string, unknown>): Record<string, unknown> | undefined {
  return (Array.isArray(body.choices) ? body.choices : []).find(isPlainObject);
}

/**
 * A client's value where a string belongs (an id, a name, a role, arguments): a string as it is, another
 * scalar as String writes it, an object or array as its JSON text (String recurses through nested arrays
 * and overflows the stack at a few thousand levels: docs/configuration.md § Limits), null or absent as `absent`.
 */
export function stringOf(value: unknown, absent = ''): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return absent;
  return typeof value === 'object' ? jsonText(value) : String(value);
}
