// A value a client or an upstream sent where a string belongs (an id, a name, a role, arguments, a
// finish_reason, an error's message), as the text the gateway writes for it. String() recurses through
// nested arrays (Array.prototype.join) and overflows the stack at a few thousand levels, as
// JSON.stringify does; a line of an upstream's stream or a request body holds far more
// (docs/configuration.md § Limits). An object or array is written as its JSON text, by the iterative
// serialiser.
import { jsonText } from 'rebound-gate/internal';

/** A string as it is, another scalar as String writes it, an object or array as its JSON text, null or absent as `absent`. */
export function stringOf(value: unknown, absent = ''): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return absent;
  return typeof value === 'object' ? jsonText(value) : String(value);
}
