// A value that a client, a model or an MCP server controls, made safe to put in a log line or an error
// message. Control characters (newlines, ANSI escapes, C1), bidi overrides, zero-width and line
// separators are written as `\uXXXX`, so one value is one visible run of text that can neither forge a
// log line nor recolour a terminal; and it is cut, with its length, so a 2 MB tool name writes a short
// line. Every place the server logs or answers with such a value quotes it through here.

/** The longest value quoted whole (characters, before escaping). */
export const MAX_QUOTED = 200;

/**
 * The longest error message an API error carries (characters): with JSON's escaping (at most 6 bytes a
 * character) and the envelope, every 4xx body stays under 16 KB.
 */
export const MAX_ERROR_MESSAGE = 2_500;

// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it finds
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"\\]/g;

const escapeUnit = (ch: string) => (ch === '"' ? '\\"' : ch === '\\' ? '\\\\' : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The value in double quotes, escaped, and cut to `max` characters with its length: `"read_fi…" (2097152 chars)`. */
export function quote(value: unknown, max = MAX_QUOTED): string {
  const text = typeof value === 'string' ? value : String(value);
  if (text.length <= max) return `"${text.replace(UNSAFE, escapeUnit)}"`;
  return `"${cutAt(text, max).replace(UNSAFE, escapeUnit)}…" (${text.length} chars)`;
}

/** Text that is already the server's own but may hold long quoted parts: cut to `max` characters, with its length. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${cutAt(text, max)}… (${text.length} chars)`;
}

/** The first `max` characters, not splitting a surrogate pair. */
function cutAt(text: string, max: number): string {
  const end = max > 0 && /[\ud800-\udbff]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return text.slice(0, end);
}
