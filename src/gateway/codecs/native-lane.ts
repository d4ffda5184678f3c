// A native upstream's text events as the SSE decoder's lane (src/model/sse-decode.ts SseLane), as the
// content template is for a Chat Completions upstream (src/model/content-template.ts). Most events of
// an Anthropic or Responses stream are text deltas that differ from the one before only in their text
// and a counter: `event: content_block_delta` / `text_delta`, `event: response.output_text.delta`. The
// decoder's lines, fields and message for each, then a regular expression over its data (event-shape.ts),
// were most of a native answer's CPU per token beside the bytes (docs/benchmarks.md § The streaming
// paths at the physical limit). The lane learns such an event's exact text from one the decoder made,
// and reads a run of repeats straight from the read: one message for the run, with each event's text.
//
// Why this is exact: the lane learns only from an event whose data the shape's expression matched (JSON
// with no whitespace, no duplicate key, holes that are plain strings or integers: event-shape.ts), and
// keeps its text but for the holes that may vary: the text, and the holes named free (a counter, a
// padding string). An event it takes is `event: <name>` (when the learned one had it), `data: `, the
// learned data with a JSON string or integer in each of those holes, and a blank line, "\n" line breaks:
// exactly what the decoder would make {event: name, data} of, and data that parses to the learned event
// with other values in those holes. A string with an escape is decoded by JSON.parse; one it refuses, a
// number JSON would refuse (a leading zero), a CR, any other byte that differs ends the run, and the
// decoder reads the event in full. The events with plain strings (most) are matched as a run by one
// sticky expression of the template (its fixed text escaped, the slots as the shapes' holes), which V8
// compares faster than slices compared with ===; one with an escape in a string is read alone, its
// strings decoded, and the run goes on. What the holes mean (a block index that must be an open text block)
// is the translation's to check when it reads the run (native-stream.ts), as it would for each event.
import { startsAt, stringClose, stringValue } from '../../model/content-template.ts';
import { EVENT_END, type SseLane, type SseMessage, type SseRun } from '../../model/sse-decode.ts';
import { eventShape, type INTEGER, STRING } from './event-shape.ts';

type Piece = string | typeof STRING | typeof INTEGER;

/** A text event's shape: its pieces (event-shape.ts), which hole is the text, which others may differ from event to event. */
export interface TextEventSpec {
  pieces: readonly Piece[];
  /** The text's hole (holes are numbered from 0 in order). */
  text: number;
  /** Holes whose value may differ from the learned one (a sequence number, padding); every other hole is part of the template. */
  free: readonly number[];
}

/** A text event the lane read (or matched): the holes' values as the shape's expression gave them, and its text. */
export interface TextEvent {
  holes: RegExpExecArray;
  text: string;
}

/**
 * What the lane learned an event from, handed out with each run (SseMessage `like`): the event's holes,
 * which hold the template's fixed values (a run's events differ from it only in the free holes and the
 * text), and how its events are framed.
 */
export interface LearnedEvent {
  holes: RegExpExecArray;
  event: string | null;
  /** The text before an event's data: its `event:` line and `data: `. */
  head: string;
}

/** What a template's slot holds (a const object, not an enum: erasable syntax only, for Node's own type stripping). */
const Slot = { Int: 0, Text: 1, Free: 2 } as const;
type Slot = (typeof Slot)[keyof typeof Slot];

interface Template {
  spec: TextEventSpec;
  /** The fixed text between the slots (slots + 1 of them): the first with the event's head, the last with its blank line. */
  fixed: string[];
  slots: Slot[];
  /**
   * A run of such events with an integer or a plain JSON string in each slot, as one sticky expression
   * (V8 compares its fixed text several characters at a time, where a slice compared with === goes one by one).
   * Made once the template has read EXPRESSION_AFTER events (`plainSource` until then).
   */
  plainRun: RegExp | null;
  plainSource: string;
  /** The events read with this template so far. */
  read: number;
  /** The characters of an event that are not its data: its head and its blank line. */
  framing: number;
  learned: LearnedEvent;
}

/** A text event's shape, its expression made once (a translation's are made with the module: native-stream.ts). */
export interface TextShape {
  spec: TextEventSpec;
  match: (data: string) => RegExpExecArray | null;
}

export function textShape(spec: TextEventSpec): TextShape {
  return { spec, match: eventShape(...spec.pieces) };
}

export class NativeTextLane implements SseLane {
  private template: Template | null = null;
  private texts: string[] = [];
  private ends: number[] = [];
  private runText = '';
  private runStart = 0;
  /** Whether the string `readOne` read last needs no decoding (stringClose). */
  private readonly found = { plain: true };

  private readonly shapes: readonly TextShape[];
  /** The events a template reads one by one before its run expression is made (EXPRESSION_AFTER; a test may say 0). */
  private readonly expressionAfter: number;

  constructor(shapes: readonly TextShape[], expressionAfter = EXPRESSION_AFTER) {
    this.shapes = shapes;
    this.expressionAfter = expressionAfter;
  }

  /**
   * A message the decoder made (offered, or not offered: made at the stream's end) as a text event of
   * one of the shapes, else undefined. An offered one was matched when offered (`offer` sets its `lane`
   * and `like`).
   */
  textOf(message: SseMessage): TextEvent | undefined {
    if (message.lane !== undefined) return { holes: message.like as RegExpExecArray, text: message.lane };
    for (const { spec, match } of this.shapes) {
      const holes = match(message.data);
      if (holes) return { holes, text: holes[spec.text + 1]! };
    }
    return undefined;
  }

  /** SseLane: an event the decoder made. One of the shapes is read as such (`lane`, `like`: its holes) and learned from when the template differs. */
  offer(message: SseMessage): boolean {
    if (message.event === 'error') return true;
    for (const { spec, match } of this.shapes) {
      const holes = match(message.data);
      if (!holes) continue;
      message.lane = holes[spec.text + 1]!;
      message.like = holes;
      this.learn(spec, holes, message.event);
      return true;
    }
    return true;
  }

  /**
   * SseLane: from `pos`, at an event's start, the run of events that are the template with other values
   * in its slots: as many as the template's expression takes at once (its strings plain), then one with an
   * escape in a string read alone, and so on.
   */
  take(text: string, pos: number, maxDataChars: number): number {
    const template = this.template;
    if (template === null) return pos;
    const before = this.texts.length;
    let at = pos;
    for (;;) {
      const plain = this.expression(template);
      if (plain !== null) plain.lastIndex = at;
      if (plain?.test(text)) {
        const end = plain.lastIndex;
        const read = this.readPlain(template, text, at, end, pos, maxDataChars);
        at = read;
        if (read !== end) break;
      }
      const next = this.readOne(template, text, at, pos, maxDataChars);
      if (next === at) break;
      at = next;
    }
    if (at !== pos) {
      this.runText = text;
      this.runStart = pos;
      template.read += this.texts.length - before;
    }
    return at;
  }

  /** The template's run expression once it has read `expressionAfter` events, else null: its events are read one by one. */
  private expression(template: Template): RegExp | null {
    if (template.read < this.expressionAfter) return null;
    template.plainRun ??= new RegExp(template.plainSource, 'y');
    return template.plainRun;
  }

  /**
   * The events from `at` to `end`, which the template's expression matched: each the template with an
   * integer or a plain string (no escape, no control character) in each slot, so each slot ends where
   * the next fixed text starts. Returns where they end, or the start of one past `maxDataChars`.
   */
  private readPlain(template: Template, text: string, at: number, end: number, pos: number, maxDataChars: number): number {
    const { fixed, slots, framing } = template;
    while (at < end) {
      let i = at + fixed[0]!.length;
      let content = '';
      for (let k = 0; k < slots.length; k++) {
        const slot = slots[k]!;
        if (slot === Slot.Int) {
          while (isDigit(text.charCodeAt(i))) i++;
        } else {
          const close = text.indexOf('"', i);
          if (slot === Slot.Text) content = text.slice(i, close);
          i = close;
        }
        i += fixed[k + 1]!.length;
      }
      if (i - at - framing > maxDataChars) return at;
      this.texts.push(content);
      this.ends.push(i - pos);
      at = i;
    }
    return at;
  }

  /** The event at `at` when it is the template with a value in each slot (a string with escapes decoded): where it ends, else `at`. */
  private readOne(template: Template, text: string, at: number, pos: number, maxDataChars: number): number {
    const { fixed, slots, framing } = template;
    const found = this.found;
    let i = at;
    let content: string | undefined;
    for (let k = 0; k <= slots.length; k++) {
      const before = fixed[k]!;
      if (!startsAt(text, before, i)) return at;
      i += before.length;
      if (k === slots.length) break;
      const slot = slots[k]!;
      if (slot === Slot.Int) {
        i = integerEnd(text, i);
        if (i === -1) return at;
        continue;
      }
      const close = stringClose(text, i, found);
      if (close === -1) return at;
      if (slot === Slot.Text) {
        content = found.plain ? text.slice(i, close) : stringValue(text.slice(i, close));
        if (content === undefined) return at;
      } else if (!found.plain && stringValue(text.slice(i, close)) === undefined) return at;
      i = close;
    }
    if (content === undefined || i - at - framing > maxDataChars) return at;
    this.texts.push(content);
    this.ends.push(i - pos);
    return i;
  }

  /** SseLane: the message standing for the run `take` read: its events (`run`), and what the template was learned from (`like`, a LearnedEvent). */
  read(): SseMessage {
    const { texts, ends } = this;
    const learned = this.template!.learned;
    const run: SseRun = { raw: this.runText.slice(this.runStart, this.runStart + ends[ends.length - 1]!), texts, ends };
    this.texts = [];
    this.ends = [];
    this.runText = '';
    // No `lane` (the texts joined): the reader takes the run's texts one by one (native-stream.ts).
    return { event: learned.event, data: '', run, like: learned };
  }

  /** A run's events as the decoder would have made them, for a reader that does not take them as text. */
  static events(message: SseMessage): SseMessage[] {
    const run = message.run!;
    const { event, head } = message.like as LearnedEvent;
    return run.ends.map((end, i) => ({ event, data: run.raw.slice((i === 0 ? 0 : run.ends[i - 1]!) + head.length, end - EVENT_END.length) }));
  }

  /** The template of `holes`'s event (the shape's fixed text, its fixed holes' values), unless it is the one held. */
  private learn(spec: TextEventSpec, holes: RegExpExecArray, event: string | null): void {
    // Events with a line break in their name or data are never the decoder's of one line each; no such data matches a shape.
    if (event !== null && (event.includes('\n') || event.includes('\r'))) return;
    // Most offered text events are the template's, split by a read's end: the same shape, name and fixed holes.
    const held = this.template;
    if (held && held.spec === spec && held.learned.event === event && sameFixedHoles(spec, held.learned.holes, holes)) return;
    const head = `${event === null ? '' : `event: ${event}\n`}data: `;
    const fixed = [head];
    const slots: Slot[] = [];
    let hole = 0;
    for (const piece of spec.pieces) {
      if (typeof piece === 'string') {
        fixed[fixed.length - 1] += piece;
        continue;
      }
      const value = holes[hole + 1]!;
      const slot = hole === spec.text ? Slot.Text : spec.free.includes(hole) ? (piece === STRING ? Slot.Free : Slot.Int) : null;
      hole++;
      if (slot === null) fixed[fixed.length - 1] += piece === STRING ? `"${value}"` : value;
      else if (slot === Slot.Int) {
        slots.push(slot);
        fixed.push('');
      } else {
        // A string slot: the fixed text ends with its opening quote; the next begins with its closing one.
        fixed[fixed.length - 1] += '"';
        slots.push(slot);
        fixed.push('"');
      }
    }
    fixed[fixed.length - 1] += EVENT_END;
    // An integer's end is where a digit is not: the text after it must not start with one (no shape has such a hole).
    if (slots.some((slot, k) => slot === Slot.Int && (fixed[k + 1] === '' || isDigit(fixed[k + 1]!.charCodeAt(0))))) return;
    let one = escapeRegExp(fixed[0]!);
    for (const [k, slot] of slots.entries()) one += (slot === Slot.Int ? INTEGER_SOURCE : PLAIN_STRING_SOURCE) + escapeRegExp(fixed[k + 1]!);
    this.template = {
      spec,
      fixed,
      slots,
      plainRun: null,
      plainSource: `(?:${one})+`,
      read: 0,
      framing: head.length + EVENT_END.length,
      learned: { holes, event, head },
    };
  }
}

/**
 * The events a template reads one by one (readOne) before its run expression is made. The expression
 * holds the template's fixed text, a Responses item id among it, which OpenAI makes new with each
 * response: V8 compiles each new expression on its first runs, ~50 µs, which fell on the first read, the
 * answer's first byte. A short answer now reads its few events without it; a long one compiles it after
 * these, and reads the rest of its run as before (docs/benchmarks.md § The streaming paths at the
 * physical limit).
 */
const EXPRESSION_AFTER = 32;

/** An integer as JSON writes it (the shapes' INTEGER hole), and a string body without escape or control character. */
const INTEGER_SOURCE = '(?:0|[1-9][0-9]{0,14})';
const PLAIN_STRING_SOURCE = '[^"\\\\\\u0000-\\u001f]*';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const isDigit = (c: number) => c >= 48 && c <= 57;

/** Whether two events of `spec`'s shape have the same values in the holes a template fixes. */
function sameFixedHoles(spec: TextEventSpec, a: RegExpExecArray, b: RegExpExecArray): boolean {
  for (let hole = 0; hole + 1 < a.length; hole++) {
    if (hole !== spec.text && !spec.free.includes(hole) && a[hole + 1] !== b[hole + 1]) return false;
  }
  return true;
}

/** The index after a JSON integer at `from` as the shapes' INTEGER hole reads one (no sign, no leading zero, at most 15 digits), or -1. */
function integerEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && i - from <= 15) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) break;
    i++;
  }
  const digits = i - from;
  if (digits === 0 || digits > 15 || (digits > 1 && text.charCodeAt(from) === 48)) return -1;
  return i;
}
