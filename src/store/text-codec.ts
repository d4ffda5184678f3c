// PostgreSQL cannot hold every JavaScript string: it refuses NUL (U+0000) in text and jsonb, refuses an
// unpaired UTF-16 surrogate in jsonb, and a driver's UTF-8 encoder silently turns one into U+FFFD in
// text. Models, users and tools produce both, so every text value is encoded here on its way into the
// database and decoded on its way out: history gives the model back exactly what it produced.
//
// The escape character is U+FDD0, a Unicode noncharacter ("for internal use", never assigned, so it
// practically never occurs in real text). Encoded: U+FDD0 followed by four lowercase hex digits stands
// for that UTF-16 code unit (NUL is `\uFDD0` `0000`, a lone surrogate `\uFDD0` `d800`), and U+FDD0
// itself is doubled. Every other character is stored as is, so a string without NUL, lone surrogates
// or U+FDD0 (nearly all of them) is stored unchanged, and found so by a quick native check first.
export const ESCAPE = '\uFDD0';

/** The characters that are rewritten: NUL, the escape, a high surrogate not followed by a low one, a low one not preceded by a high one. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is one of the characters PostgreSQL text cannot hold
const NEEDS_ESCAPE = /[\u0000\uFDD0]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const ESCAPED = /\uFDD0(\uFDD0|[0-9a-f]{4})/g;

// String.prototype.isWellFormed is ES2024 (Node 20, workerd, Deno); the project's TypeScript lib is ES2023.
const isWellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** True when `s` would be stored unchanged. Native scans only: about a millisecond per megabyte. */
export function isStorable(s: string): boolean {
  return s.indexOf('\u0000') === -1 && s.indexOf(ESCAPE) === -1 && isWellFormed(s);
}

/** A string PostgreSQL accepts in text and jsonb alike, from which decodeText gives `s` back exactly. */
export function encodeText(s: string): string {
  if (isStorable(s)) return s;
  return s.replace(NEEDS_ESCAPE, (c) => (c === ESCAPE ? ESCAPE + ESCAPE : ESCAPE + c.charCodeAt(0).toString(16).padStart(4, '0')));
}

/** Undoes encodeText. An escape character followed by anything else (a value written before the codec) is kept as is. */
export function decodeText(s: string): string {
  if (s.indexOf(ESCAPE) === -1) return s;
  return s.replace(ESCAPED, (_, code: string) => (code === ESCAPE ? ESCAPE : String.fromCharCode(Number.parseInt(code, 16))));
}

/** encodeText on every string in a JSON-shaped value, object keys included (jsonb refuses NUL in a key too). */
export function encodeDeep<T>(value: T): T {
  return mapStrings(value, encodeText) as T;
}

/** decodeText on every string in a JSON-shaped value, object keys included. */
export function decodeDeep<T>(value: T): T {
  return mapStrings(value, decodeText) as T;
}

function mapStrings(value: unknown, map: (s: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, map));
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    // fromEntries defines own properties: a key "__proto__" stays a key, it does not set a prototype.
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [map(k), mapStrings(v, map)]));
  }
  return value;
}
