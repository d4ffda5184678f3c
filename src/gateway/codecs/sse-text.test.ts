import { describe, expect, it } from 'vitest';
import { textDelta } from './messages-out.ts';
import { outputTextDelta } from './responses-out.ts';
import { sseEvent } from './sse-text.ts';

const TEXTS = ['', 'Hello ', 'say "hi"', 'a\nb\tc\\d', 'ünïcødé → 🙂', 'lone \ud800 surrogate', 'line\u2028separator', '</script>'];

describe("the codecs' text deltas, written without an object", () => {
  it('are byte for byte what sseEvent writes for the same event', () => {
    for (const text of TEXTS) {
      expect(textDelta(3, text)).toBe(sseEvent('content_block_delta', { type: 'content_block_delta', index: 3, delta: { type: 'text_delta', text } }));
      const fields = { item_id: `msg_${text}`, output_index: 2, content_index: 0, delta: text, logprobs: [] };
      expect(outputTextDelta(41, `msg_${text}`, 2, text)).toBe(
        sseEvent('response.output_text.delta', { type: 'response.output_text.delta', sequence_number: 41, ...fields }),
      );
    }
  });
});
