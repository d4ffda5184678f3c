import { jsonText } from 'rebound-gate/internal';
import { describe, expect, it } from 'vitest';
import type { StreamChannel } from '../stream.ts';
import { messagesChannel, textDeltas } from './messages-out.ts';
import { outputTextDeltas, responseJson, responsesChannel } from './responses-out.ts';
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

  it('a text chunk handed over as the learned one and its text writes what the same chunk does (StreamChannel.text)', () => {
    const like = {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta: { content: 'x' }, logprobs: null, finish_reason: null }],
    };
    const withText = (content: string) => ({ ...like, choices: [{ ...like.choices[0]!, delta: { ...like.choices[0]!.delta, content } }] });
    const run = (open: (out: StreamChannel) => StreamChannel, asText: boolean) => {
      const written: string[] = [];
      const channel = open({
        write: (t) => {
          written.push(t);
        },
        drained: async () => {},
        flush: () => {},
      });
      // The first chunk (as a message of its own or as the learned one), texts, a call between, the finish.
      for (const content of ['Hi ', '', 'say "x"\n', 'é 🙂']) {
        if (asText) channel.text!(like, content);
        else channel.chunk!(withText(content));
      }
      channel.chunk!({
        ...like,
        choices: [
          { index: 0, delta: { tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, finish_reason: null },
        ],
      });
      if (asText) channel.text!(like, 'after');
      else channel.chunk!(withText('after'));
      channel.chunk!({ ...like, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 1, completion_tokens: 2 } });
      channel.write('data: [DONE]\n\n');
      return written
        .join('')
        .replace(/(resp|msg|fc)_[0-9a-f]{32}/g, '$1_X')
        .replace(/"created_at":\d+/g, '"created_at":T');
    };
    const codecs = [(out: StreamChannel) => messagesChannel(out, 'm'), (out: StreamChannel) => responsesChannel(out, { model: 'm', freeform: new Set() })];
    for (const open of codecs) {
      const asChunks = run(open, false);
      expect(asChunks).toContain('after');
      expect(run(open, true)).toBe(asChunks);
    }
  });
});
