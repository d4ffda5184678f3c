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
//
// The template is also the SSE decoder's lane (sse-decode.ts): the runs of such chunks, each framed as
// an event of its own (`data: `, the chunk, a blank line), are read straight from the decoded read,
// without the decoder's lines, fields and messages for each (most of the allocations per token, so
// most of the loop's garbage), only where the decoder would have made exactly those events and match
// exactly that text of them. A run is handed out as its text and as its events' own text (SseRun): the
// gateway passes a run on as it came when nothing in it changes (src/gateway/held-stream.ts).

import { isPlainObject } from 'rebound-gate/internal';
import { DATA_FIELD, EVENT_END, type SseLane, type SseMessage, type SseRun } from './sse-decode.ts';

/** How many chunks in a row may fail to match before learning stops (providers that vary every chunk). */
const MAX_MISSES = 4;
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes control characters, so they are what this finds
const NEEDS_DECODING = /["\\\u0000-\u001f]/;

export class ContentTemplate implements SseLane {
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
  /**
   * The parse of the chunk the template was learned from (undefined: none learned): a chunk it matches is
   * this with another delta.content (and another value in the string it may leave open after it). The
   * lane hands it out with what it reads (SseMessage `like`).
   */
  private learnedFrom: unknown = undefined;
  /** The closing quote of the content string restAt found last, and whether no escape or control character is in it. */
  private close = 0;
  private readonly found = { plain: false };
  /**
   * The learned chunk framed as an event of its own (`take`): prefix and tail with the field and the
   * blank line around them, and the joint of two such events (a tail, then the next event's prefix).
   */
  private framedPrefix = '';
  private framedTail = '';
  private joint = '';
  private readonly learnable: (chunk: Record<string, unknown>) => boolean;
  /**
   * `learnable`: which of the chunks that only add text the template may be learned from, for a reader
   * that reads more of a chunk than adding its text (the gateway passes on as it came only a chunk whose
   * `error`, `usage` and `finish_reason` are absent or null: src/gateway/held-stream.ts). Default: all.
   */
  constructor(learnable: (chunk: Record<string, unknown>) => boolean = () => true) {
    this.learnable = learnable;
  }

  /** The events `take` read since the last `read()`: their text, each, and where each ends in `text` (SseRun). */
  private texts: string[] = [];
  private ends: number[] = [];
  private runText = '';
  private runStart = 0;

  /** The delta.content of `data` when it is the learned chunk with other strings in its open places, else undefined. */
  match(data: string): string | undefined {
    if (this.prefix === '') return undefined;
    if (!this.fits(data)) return this.miss();
    this.misses = 0;
    return this.content(data, this.prefix.length);
  }

  /**
   * SseLane (sse-decode.ts): from `pos`, at the start of an event, the run of events that are each a
   * chunk `match` reads, sent as `data: ` + the chunk + a blank line (what the decoder would hand out as
   * {event: null, data: chunk}); their text and where each ends are kept for `read`. The index after
   * the run (`pos`: none). Any other event, or one whose data is past `maxDataChars`, ends the run: the
   * decoder splits it.
   */
  take(text: string, pos: number, maxDataChars: number): number {
    const { framedPrefix, framedTail, joint } = this;
    if (framedPrefix === '' || !startsAt(text, framedPrefix, pos)) return pos;
    let at = pos;
    // Each event's tail is compared with the next event's prefix at once (the joint): one comparison
    // an event in a run; its tail alone ends the run.
    for (;;) {
      const rest = this.restAt(text, at + framedPrefix.length - 1);
      if (rest === -1) break;
      const next = startsAt(text, joint, rest);
      if (!next && !startsAt(text, framedTail, rest)) break;
      const end = rest + framedTail.length;
      if (end - at - DATA_FIELD.length - EVENT_END.length > maxDataChars) break;
      const content = this.content(text, at + framedPrefix.length);
      if (content === undefined) break;
      this.texts.push(content);
      this.ends.push(end - pos);
      at = end;
      if (!next) break;
    }
    if (at !== pos) {
      this.misses = 0;
      this.runText = text;
      this.runStart = pos;
    }
    return at;
  }

  /** SseLane: the message standing for the events `take` read since the last call: their text as its `lane`, the events as its `run`. */
  read(): SseMessage {
    const { texts, ends } = this;
    const run: SseRun = { raw: this.runText.slice(this.runStart, this.runStart + ends[ends.length - 1]!), texts, ends };
    this.texts = [];
    this.ends = [];
    this.runText = '';
    return { event: null, data: '', lane: texts.length === 1 ? texts[0]! : texts.join(''), run, like: this.learnedFrom };
  }

  /**
   * SseLane: an event the decoder made (one `take` did not read), in stream order, read as a chunk was
   * before the lane: a chunk `match` reads becomes its text (`lane`); any other is parsed and offered to
   * `learn` now, so the events after it, in this read too, are taken with the template it makes (the
   * parse handed over as the message's `parsed`). Its owner then reads what has no `lane` (openai.ts,
   * held-stream.ts). False where the model's reader fails the stream or stops reading (an `error`
   * event, a payload that is no JSON object, such as [DONE]): nothing more is taken in this read (the
   * gateway, which passes such events on, reads the rest of the read in full).
   */
  offer(message: SseMessage): boolean {
    if (message.event === 'error') return false;
    const content = this.match(message.data);
    if (content !== undefined) {
      message.lane = content;
      message.like = this.learnedFrom;
      return true;
    }
    // Nothing to learn from an empty payload (no chunk), nor once learning has stopped.
    if (message.data === '' || this.misses >= MAX_MISSES) return true;
    // Not an object ([DONE], garbage): never a template, and JSON.parse's throw costs microseconds a stream.
    if (message.data.charCodeAt(0) !== 123) return false;
    let chunk: unknown;
    try {
      chunk = JSON.parse(message.data);
    } catch {
      return false;
    }
    message.parsed = chunk;
    this.learn(message.data, chunk);
    return true;
  }

  /** `data` is the learned chunk with a string in each open place (`match` then reads it): no state changes. */
  private fits(data: string): boolean {
    if (!startsAt(data, this.prefix, 0)) return false;
    const rest = this.restAt(data, this.prefix.length - 1);
    return rest !== -1 && data.length - rest === this.tail.length && startsAt(data, this.tail, rest);
  }

  /**
   * Where the learned tail should start in `text`, for a chunk whose content string opens at `open` and
   * that has a string in each open place after it; -1 when it has not. The content string's closing
   * quote is left in `close` (and in `found.plain`, whether it needs no decoding).
   */
  private restAt(text: string, open: number): number {
    const close = this.closeOf(text, open);
    if (close === -1) return -1;
    this.close = close;
    const { middle } = this;
    if (middle === null) return close;
    if (!startsAt(text, middle, close)) return -1;
    const padOpen = close + middle.length - 1;
    const rest = stringEnd(text, padOpen);
    return rest === -1 || stringValue(text.slice(padOpen + 1, rest)) === undefined ? -1 : rest;
  }

  /** The content string whose body starts at `from` and ends at `close` (restAt's), decoded; undefined when JSON refuses it. */
  private content(text: string, from: number): string | undefined {
    const body = text.slice(from, this.close);
    return this.found.plain ? body : stringValue(body);
  }

  /** stringEnd, noting in `found.plain` whether the string has no backslash or control character (its body is its text). */
  private closeOf(text: string, open: number): number {
    return stringClose(text, open + 1, this.found);
  }

  /**
   * Offers a chunk that was parsed in full (`chunk` is its parse). It becomes the template when adding
   * its text is all it does and its content string can be located; learning stops after a few misses.
   * True when `data` is the template now.
   */
  learn(data: string, chunk: unknown): boolean {
    if (this.misses >= MAX_MISSES) return false;
    const content = contentOnly(chunk);
    // Not from a chunk that adds no text: the stream's first (the role chunk, `"role":"assistant","content":""`)
    // is rarely shaped as the text chunks after it, and a template learned from it cost a miss and a second
    // learning in every stream's first read (docs/benchmarks.md § The streaming paths at the physical limit).
    if (content === undefined || content === '' || !this.learnable(chunk as Record<string, unknown>)) return false;
    // Another string in a place: the one used is never the chunk's own, so a change is always seen.
    const probe = content === '\u0000' ? '\\u0001' : '\\u0000';
    const probed = content === '\u0000' ? '\u0001' : '\u0000';
    const first = data.indexOf('"content"');
    // Without a backslash in the text, every quote of valid JSON opens or closes a string spelled as it
    // reads (an escape is the only other spelling of a key, and after a closing quote no letter may
    // follow), so a chunk whose parse has a delta.content and whose text has one `"content"` string has
    // it there: the probe's re-parse would only confirm it.
    const sole = !data.includes('\\') && data.indexOf('"content"', first + 1) === -1;
    for (let key = first; key !== -1; key = data.indexOf('"content"', key + 1)) {
      const open = afterColon(data, key + '"content"'.length);
      if (open === -1 || data.charCodeAt(open) !== 34) continue;
      const close = stringEnd(data, open);
      if (close === -1) continue;
      // The same chunk with another string there: if delta.content changes, this token is it.
      if (!sole && reparsed(data.slice(0, open + 1) + probe + data.slice(close)) !== probed) continue;
      this.prefix = data.slice(0, open + 1);
      this.middle = null;
      this.tail = data.slice(close);
      // The last string after it, when it is a value that can change without changing what the chunk does.
      const last = lastStringValue(data, close + 1);
      if (last && reparsed(data.slice(0, last.open + 1) + probe + data.slice(last.close)) === content) {
        this.middle = data.slice(close, last.open + 1);
        this.tail = data.slice(last.close);
      }
      this.learnedFrom = chunk;
      this.frame();
      return true;
    }
    this.misses++; // no content string found where a template needs it: this costs a parse, so it counts
    return false;
  }

  /**
   * The learned chunk as an event of its own, for `take`: only when no line break is in its fixed text
   * (a chunk that came in several `data:` lines has one), so that the framed text is one line and its
   * blank line, split by the decoder exactly there. (A line break in a string is refused by stringValue.)
   */
  private frame(): void {
    const fixed = this.prefix + (this.middle ?? '') + this.tail;
    const oneLine = !fixed.includes('\n') && !fixed.includes('\r');
    this.framedPrefix = oneLine ? DATA_FIELD + this.prefix : '';
    this.framedTail = oneLine ? this.tail + EVENT_END : '';
    this.joint = this.framedTail + this.framedPrefix;
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
export function startsAt(data: string, text: string, at: number): boolean {
  return data.slice(at, at + text.length) === text;
}

/**
 * The closing quote of the JSON string whose body starts at `from` (its opening quote before it), or -1;
 * `into.plain` says whether its body is its text (no backslash, no control character).
 */
export function stringClose(text: string, from: number, into: { plain: boolean }): number {
  let plain = true;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      into.plain = plain;
      return i;
    }
    if (c === 92) {
      plain = false;
      i++;
    } else if (c < 32) plain = false;
  }
  return -1;
}

/** A JSON string body (the text between its quotes, no unescaped quote in it) decoded, or undefined when JSON refuses it. */
export function stringValue(body: string): string | undefined {
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

/** contentOnly of `text` parsed; undefined when JSON refuses it (a module function, not a closure per request: docs/benchmarks.md § The streaming paths at the physical limit) */
function reparsed(text: string): string | undefined {
  try {
    return contentOnly(JSON.parse(text));
  } catch {
    return undefined;
  }
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
