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
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
      .join('\n');
    if (data.trim() === '[DONE]') {
      out.push({ kind: 'done' });
      continue;
    }
    const chunk = jsonObject(data);
    out.push(chunk ? { kind: 'chunk', chunk } : { kind: 'other', data });
  }
  return out;
}

/** One named SSE event, as Anthropic's and OpenAI's Responses streams frame theirs (response.created echoes the request's tools: jsonText writes a schema of any depth). */
export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${jsonText(data)}\n\n`;
}

/**
 * What a codec does with the core's stream: each chunk (as the core holds it, or read from its text), a
 * text chunk that repeats a learned one as its text (StreamChannel.text), and its end ([DONE]).
 */
export interface ChatEventHandlers {
  chunk(chunk: Record<string, unknown>): void;
  text(like: Record<string, unknown>, content: string): void;
  done(): void;
}

/**
 * A codec's channel over `out`: each event the core writes, as text or as a chunk object, goes to
 * `on` (text that is neither a chunk nor [DONE] is dropped: no codec writes it); draining and flushing are `out`'s.
 */
export function eventChannel(out: StreamChannel, on: ChatEventHandlers): StreamChannel {
  return {
    drained: () => out.drained(),
    flush: () => out.flush(),
    write(text) {
      for (const event of chatEvents(text)) {
        if (event.kind === 'chunk') on.chunk(event.chunk);
        else if (event.kind === 'done') on.done();
      }
    },
    chunk: (chunk) => on.chunk(chunk),
    text: (like, content) => on.text(like, content),
  };
}
