// Most chunks of a streamed completion are the previous chunk with another `delta.content` string:
// the same id, model, fingerprint and choice, only the text differs. JSON.parse of every ~200-byte
// chunk was most of the loop's CPU per token (bench:stream), so a chunk that is the learned one with
// another string in that place is read by comparing the text around the string and decoding only the
// string; anything else is parsed as before. OpenAI adds a random `obfuscation` string to every
// chunk, so one more string value after the content may differ too, when it does not matter.
//
// Why this is exact: a template is learned only from a chunk whose parse did nothing but add text (no
// usage, no error, one choice with index 0, no tool calls, no finish reason). The string token found
// after a `"content":` key is confirmed to be delta.content's by parsing the chunk again with another
// string in its place (only the value at that token changes); the later string is confirmed not to
// matter the same way (with another, non-empty string there the chunk still only adds the same text).
// JSON is tokenised left to right, so text equal to the learned one outside those string tokens parses
// to the same chunk with other strings there. A string body that is not plainly valid (a backslash or
// a control character in it) is decoded by JSON.parse; one it refuses goes to the full parse, which
// reports it as before.

import { isPlainObject } from 'rebound-gate/internal';

/** How many chunks in a row may fail to match before learning stops (providers that vary every chunk). */
const MAX_MISSES = 4;
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes control characters, so they are what this finds
const NEEDS_DECODING = /["\\\u0000-\u001f]/;

export class ContentTemplate {
  /** The text up to and including the opening quote of the content string ('' while none is learned). */
  private prefix = '';
  /**
   * When a string value after the content varies from chunk to chunk without mattering (OpenAI's
   * `obfuscation` padding): the text from the content's closing quote to that string's opening quote.
   */
  private middle: string | null = null;
  /** The text after the last string the template leaves open, to the end. */
  private tail = '';
  private misses = 0;

  /** The delta.content of `data` when it is the learned chunk with other strings in its open places, else undefined. */
  match(data: string): string | undefined {
    const { prefix, middle, tail } = this;
    if (prefix === '') return undefined;
    if (!startsAt(data, prefix, 0)) return this.miss();
    const close = stringEnd(data, prefix.length - 1);
    if (close === -1) return this.miss();
    let rest = close;
    if (middle !== null) {
      if (!startsAt(data, middle, close)) return this.miss();
      const open = close + middle.length - 1;
      rest = stringEnd(data, open);
      if (rest === -1 || stringValue(data.slice(open + 1, rest)) === undefined) return this.miss();
    }
    if (data.length - rest !== tail.length || !startsAt(data, tail, rest)) return this.miss();
    this.misses = 0;
    return stringValue(data.slice(prefix.length, close));
  }

  /**
   * Offers a chunk that was parsed in full (`chunk` is its parse). It becomes the template when adding
   * its text is all it does and its content string can be located; learning stops after a few misses.
   * True when `data` is the template now.
   */
  learn(data: string, chunk: unknown): boolean {
    if (this.misses >= MAX_MISSES) return false;
    const content = contentOnly(chunk);
    if (content === undefined) return false;
    // Another string in a place: the one used is never the chunk's own, so a change is always seen.
    const probe = content === '\u0000' ? '\\u0001' : '\\u0000';
    const probed = content === '\u0000' ? '\u0001' : '\u0000';
    const reparse = (text: string) => {
      try {
        return contentOnly(JSON.parse(text));
      } catch {
        return undefined;
      }
    };
    for (let key = data.indexOf('"content"'); key !== -1; key = data.indexOf('"content"', key + 1)) {
      const open = afterColon(data, key + '"content"'.length);
      if (open === -1 || data.charCodeAt(open) !== 34) continue;
      const close = stringEnd(data, open);
      if (close === -1) continue;
      // The same chunk with another string there: if delta.content changes, this token is it.
      if (reparse(data.slice(0, open + 1) + probe + data.slice(close)) !== probed) continue;
      this.prefix = data.slice(0, open + 1);
      this.middle = null;
      this.tail = data.slice(close);
      // The last string after it, when it is a value that can change without changing what the chunk does.
      const last = lastStringValue(data, close + 1);
      if (last && reparse(data.slice(0, last.open + 1) + probe + data.slice(last.close)) === content) {
        this.middle = data.slice(close, last.open + 1);
        this.tail = data.slice(last.close);
      }
      return true;
    }
    this.misses++; // no content string found where a template needs it: this costs a parse, so it counts
    return false;
  }

  private miss(): undefined {
    this.misses++;
    return undefined;
  }
}

/**
 * `data` has `text` at `at`. Not String.prototype.startsWith: V8 compares character by character there,
 * ~1 µs for a 175-character prefix (most of the loop's CPU per token, bench:stream); a slice compared
 * with === is a memory compare, ~15× faster.
 */
function startsAt(data: string, text: string, at: number): boolean {
  return data.slice(at, at + text.length) === text;
}

/** A JSON string body (the text between its quotes, no unescaped quote in it) decoded, or undefined when JSON refuses it. */
function stringValue(body: string): string | undefined {
  if (!NEEDS_DECODING.test(body)) return body;
  try {
    const text: unknown = JSON.parse(`"${body}"`);
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}

/** The last string token at or after `from` (quotes included at open and close), when it is a value (after a colon). */
function lastStringValue(data: string, from: number): { open: number; close: number } | undefined {
  let last: { open: number; close: number } | undefined;
  for (let open = data.indexOf('"', from); open !== -1; ) {
    const close = stringEnd(data, open);
    if (close === -1) return undefined;
    last = { open, close };
    open = data.indexOf('"', close + 1);
  }
  if (!last) return undefined;
  let i = last.open - 1;
  while (i >= 0 && isJsonSpace(data.charCodeAt(i))) i--;
  return data.charCodeAt(i) === 58 ? last : undefined;
}

/** delta.content of a chunk that only adds text (and so may be a template), else undefined. */
function contentOnly(chunk: unknown): string | undefined {
  if (!isPlainObject(chunk) || chunk.error || chunk.usage) return undefined;
  const choices = chunk.choices;
  if (!Array.isArray(choices) || choices.length !== 1) return undefined;
  const choice: unknown = choices[0];
  if (!isPlainObject(choice) || (choice.index ?? 0) !== 0) return undefined;
  if (typeof choice.finish_reason === 'string' && choice.finish_reason) return undefined;
  const delta = choice.delta;
  if (!isPlainObject(delta) || Array.isArray(delta.tool_calls)) return undefined;
  return typeof delta.content === 'string' ? delta.content : undefined;
}

/** The index after `:` and the JSON whitespace around it, starting at `i`; -1 when no colon is there. */
function afterColon(data: string, i: number): number {
  while (isJsonSpace(data.charCodeAt(i))) i++;
  if (data.charCodeAt(i) !== 58) return -1;
  i++;
  while (isJsonSpace(data.charCodeAt(i))) i++;
  return i;
}

function isJsonSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** The index of the quote that closes the string opened at `open`, or -1. */
function stringEnd(data: string, open: number): number {
  for (let i = open + 1; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i;
  }
  return -1;
}
