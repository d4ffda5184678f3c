// A tool description from an MCP server is text written by someone else that goes into the model's
// prompt, so it is treated as untrusted: control characters and invisible formatting (bidi overrides,
// zero-width characters, Unicode tag characters that smuggle hidden ASCII) are removed, line breaks are
// kept (at most one blank line in a row), and the length is capped.

export const MAX_DESCRIPTION_CHARS = 1_000;

// C0 controls but tab and newline, DEL and C1; bidi embeddings, overrides and isolates; zero-width
// space/joiners, word joiner, invisible operators, BOM; tag characters (U+E0000–U+E007F).
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are among what is removed, on purpose
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF\uFFF9-\uFFFB]|\uDB40[\uDC00-\uDC7F]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function sanitiseDescription(text: unknown, max = MAX_DESCRIPTION_CHARS): string {
  if (typeof text !== 'string') return '';
  const clean = text
    .replace(/\r\n?|[\u2028\u2029\u0085]/g, '\n')
    .replace(INVISIBLE, '')
    .replace(LONE_SURROGATE, '')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (clean.length <= max) return clean;
  // Cut on a code-point boundary and say that something was cut.
  let cut = max - 1;
  if (/[\uD800-\uDBFF]/.test(clean[cut - 1] ?? '')) cut--;
  return `${clean.slice(0, cut).trimEnd()}…`;
}
