import { jsonText } from 'rebound-gate/internal';
import { describe, expect, it } from 'vitest';
import { textDeltas } from './messages-out.ts';
import { outputTextDeltas, responseJson } from './responses-out.ts';
import { sseEvent } from './sse-text.ts';

const TEXTS = ['', 'Hello ', 'say "hi"', 'a\nb\tc\\d', 'ünïcødé → 🙂', 'lone \ud800 surrogate', 'line\u2028separator', '</script>'];

describe("the codecs' events, written without an object", () => {
  it('text deltas are byte for byte what sseEvent writes for the same event', () => {
    for (const text of TEXTS) {
      expect(textDeltas(3)(text)).toBe(sseEvent('content_block_delta', { type: 'content_block_delta', index: 3, delta: { type: 'text_delta', text } }));
      const fields = { item_id: `msg_${text}`, output_index: 2, content_index: 0, delta: text, logprobs: [] };
      expect(outputTextDeltas(`msg_${text}`, 2)(41, text)).toBe(
        sseEvent('response.output_text.delta', { type: 'response.output_text.delta', sequence_number: 41, ...fields }),
      );
    }
  });

  it("a response with its output items given as text is jsonText's of the whole", () => {
    const items = [
      { id: 'msg_1', type: 'message', content: [{ type: 'output_text', text: TEXTS.join('') }] },
      { id: 'fc_1', type: 'function_call', arguments: '{}' },
    ];
    const tails = [{ parallel_tool_calls: true, tools: [{ type: 'function', name: 'f "x"' }], usage: { input_tokens: 1 } }, {}];
    for (const tail of tails) {
      for (const output of [items, items.slice(0, 1), []]) {
        const response = { id: 'resp_1', object: 'response', instructions: TEXTS.join(''), skipped: undefined, output: [], ...tail };
        expect(responseJson(response, output.map(jsonText))).toBe(jsonText({ ...response, output }));
      }
    }
  });
});
