// Most events of a native upstream's stream are text deltas that differ from the one before only in
// their text (and a counter or two): Anthropic's `content_block_delta` / `text_delta`, the Responses
// API's `response.output_text.delta`. JSON.parse of each was the largest item of a native upstream's
// CPU per token (docs/benchmarks.md § issue 34), so such an event is read by matching its text against
// the exact shape the provider writes: fixed text, and in its holes a plain string or an integer.
//
// Why this is exact: a shape is JSON with no whitespace, no duplicate key and no hole but a string or
// a non-negative integer; text that is the fixed text with such tokens in the holes parses to that
// object with those values, and nothing else does. A string with a backslash or a control character
// in it (an escape JSON.parse would decode, or text it refuses) does not match: the caller then parses
// the event as before. Anything else the provider sends (other events, other key orders, extra fields)
// does not match either.

/** A hole of a shape: a JSON string (no escapes in it) or a non-negative integer. */
export const STRING = Symbol('string');
export const INTEGER = Symbol('integer');
type Piece = string | typeof STRING | typeof INTEGER;

// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes control characters; a raw one is an error JSON.parse reports
const NOT_PLAIN = /[\\\u0000-\u001f]/;

/** A matcher of `pieces` (fixed text and holes): the holes' values in order when `data` is exactly that shape, else undefined. */
export function eventShape(...pieces: Piece[]): (data: string) => Array<string | number> | undefined {
  return (data) => {
    const values: Array<string | number> = [];
    let at = 0;
    for (const piece of pieces) {
      if (piece === STRING) {
        if (data.charCodeAt(at) !== 34) return undefined;
        const close = data.indexOf('"', at + 1);
        if (close === -1) return undefined;
        const body = data.slice(at + 1, close);
        if (NOT_PLAIN.test(body)) return undefined;
        values.push(body);
        at = close + 1;
      } else if (piece === INTEGER) {
        let end = at;
        while (end < data.length && data.charCodeAt(end) >= 48 && data.charCodeAt(end) <= 57) end++;
        // No digits, or a leading zero (JSON has none): not this shape.
        if (end === at || (end - at > 1 && data.charCodeAt(at) === 48) || end - at > 15) return undefined;
        values.push(Number(data.slice(at, end)));
        at = end;
      } else {
        if (data.slice(at, at + piece.length) !== piece) return undefined;
        at += piece.length;
      }
    }
    return at === data.length ? values : undefined;
  };
}
