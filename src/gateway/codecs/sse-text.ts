// The Chat Completions events the gateway core writes, read back by a protocol codec (messages-out.ts,
// responses-out.ts): each `write` of the core (Delivery) is whole events, `data: …` with an optional
// `event:` line, ending in a blank line; `data: [DONE]` ends the answer. Most chunks do not come as
// text: the core hands a codec's channel the chunks it holds as objects (StreamChannel.chunk), and
// only what it passes on unread (its first chunks, errors, [DONE]) is read here. And the one way the
// codecs frame their own events.

import { jsonText } from 'rebound-gate/internal';
import type { StreamChannel } from '../stream.ts';
import { jsonObject } from './json-object.ts';

export type ChatEvent = { kind: 'chunk'; chunk: Record<string, unknown> } | { kind: 'done' } | { kind: 'other'; data: string };

/** The events in one write of the core: its chunks parsed, [DONE], anything else as it came. */
export function chatEvents(text: string): ChatEvent[] {
  const out: ChatEvent[] = [];
  for (const block of text.split('\n\n')) {
    if (block.trim() === '') continue;
    const data = blockData(block);
    if (data.trim() === '[DONE]') {
      out.push({ kind: 'done' });
      continue;
    }
    const chunk = jsonObject(data);
    out.push(chunk ? { kind: 'chunk', chunk } : { kind: 'other', data });
  }
  return out;
}

/** An event's data: its `data:` lines' values, joined by newlines; a block of one `data: ` line (what the core writes) read without splitting it. */
function blockData(block: string): string {
  if (block.startsWith('data: ') && !block.includes('\n')) return block.slice(6);
  return block
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
    .join('\n');
}

/** One named SSE event, as Anthropic's and OpenAI's Responses streams frame theirs (response.created echoes the request's tools: jsonText writes a schema of any depth). */
export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${jsonText(data)}\n\n`;
}

/** What JSON.stringify escapes in a string: a quote, a backslash, a control character, a surrogate (a lone one is escaped; a pair is left to it too). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes control characters, so they are what this finds
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * JSON.stringify(text) for a string: quoted as it is when nothing in it is escaped (a text delta's
 * usual token), without JSON.stringify's call, which costs ~3 times the check (sse-text.test.ts
 * compares the two over every UTF-16 code unit; docs/benchmarks.md § The streaming paths at the physical limit).
 */
export function jsonString(text: string): string {
  return ESCAPED.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/**
 * What a codec does with the core's stream: each chunk (as the core holds it, or read from its text), a
 * run of text chunks that repeat a learned one as their texts (StreamChannel.texts), and its end ([DONE]).
 */
export interface ChatEventHandlers {
  chunk(chunk: Record<string, unknown>): void;
  texts(like: Record<string, unknown>, texts: readonly string[], from: number, to: number): void;
  done(): void;
}

/**
 * A codec's channel over `out`: each event the core writes, as text or as a chunk object, goes to
 * `on` (text that is neither a chunk nor [DONE] is dropped: no codec writes it); draining and flushing are `out`'s.
 * Methods, not arrow functions made per request (under tsx, which ran npm start until af719b1, each such
 * function also had an Object.defineProperty for its name: docs/benchmarks.md § The streaming paths at the physical limit).
 */
export function eventChannel(out: StreamChannel, on: ChatEventHandlers): StreamChannel {
  return {
    drained() {
      return out.drained();
    },
    flush() {
      out.flush();
    },
    write(text) {
      for (const event of chatEvents(text)) {
        if (event.kind === 'chunk') on.chunk(event.chunk);
        else if (event.kind === 'done') on.done();
      }
    },
    chunk(chunk) {
      on.chunk(chunk);
    },
    texts(like, texts, from, to) {
      on.texts(like, texts, from, to);
    },
  };
}
