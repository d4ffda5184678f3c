import { describe, expect, it } from 'vitest';
import type { StreamChannel } from '../stream.ts';
import { messagesChannel } from './messages-out.ts';
import { sseEvent } from './sse-text.ts';

type Json = Record<string, unknown>;

/** Strings JSON escapes, or that look like what the codec reads (a chat id's prefix). */
const ODD = ['plain', 'say "x"', 'a\nb\\c', 'é 🙂', 'lone \ud800', '\u2028', '</script>', 'chatcmpl-', 'chatcmpl-x'];

const chunk = (id: unknown, delta: Json, finish: string | null = null, extra: Json = {}) => ({
  id,
  object: 'chat.completion.chunk',
  created: 1,
  model: 'x',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  ...extra,
});

/** The message_start event as sseEvent writes it: a message with no content yet and zero usage. */
const messageStart = (id: unknown, model: string) =>
  sseEvent('message_start', {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    },
  });

function written(model: string, feed: (channel: StreamChannel) => void): string {
  const out: string[] = [];
  feed(messagesChannel({ write: (t) => void out.push(t), drained: async () => {}, flush: () => {} }, model));
  return out.join('');
}

describe('the Messages stream', () => {
  it("the events the gateway makes itself are byte for byte what sseEvent writes for their objects: the message's start, a text block's start and stop, a call's events, the end", () => {
    for (const model of ODD) {
      for (const id of [...ODD, '', undefined, 7]) {
        const name = `${model}-name`;
        const args = '{ "q" : "a\\"b", "n": [1, 2.50, 1e3], "s": "\u2028é" }';
        const text = written(model, (channel) => {
          channel.write(`data: ${JSON.stringify(chunk(id, { role: 'assistant', content: '' }))}\n\n`);
          channel.texts!(chunk(id, { content: 'x' }), ['', 'Hi ', 'there'], 0, 3);
          channel.chunk!(chunk(id, { tool_calls: [{ index: 0, id: `${model}-id`, type: 'function', function: { name, arguments: args } }] }));
          channel.chunk!(chunk(id, { tool_calls: [{ index: 1, id: 9, function: { name: 'f', arguments: 'not json' } }, 'x'] }));
          channel.chunk!(chunk(id, {}, 'tool_calls', { usage: { prompt_tokens: 3, completion_tokens: 1e21 } }));
          channel.chunk!({ id, choices: [], rebound: { attempts: 2, verdict: `${model}-verdict` } });
          channel.write('data: [DONE]\n\n');
        });
        const msgId = typeof id === 'string' && id !== '' ? `msg_${id.replace(/^chatcmpl-/, '')}` : (/"id":"(msg_[0-9a-f]{32})"/.exec(text)?.[1] ?? 'no id');
        const usage = { input_tokens: 3, output_tokens: 1e21 };
        const expected = [
          messageStart(msgId, model),
          sseEvent('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
          sseEvent('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi ' } }),
          sseEvent('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'there' } }),
          sseEvent('content_block_stop', { type: 'content_block_stop', index: 0 }),
          sseEvent('content_block_start', {
            type: 'content_block_start',
            index: 1,
            content_block: { type: 'tool_use', id: `${model}-id`, name, input: {} },
          }),
          sseEvent('content_block_delta', {
            type: 'content_block_delta',
            index: 1,
            delta: { type: 'input_json_delta', partial_json: JSON.stringify(JSON.parse(args)) },
          }),
          sseEvent('content_block_stop', { type: 'content_block_stop', index: 1 }),
          // A call whose id is a number and whose arguments are no JSON object: its string, and {}.
          sseEvent('content_block_start', { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: '9', name: 'f', input: {} } }),
          sseEvent('content_block_delta', { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{}' } }),
          sseEvent('content_block_stop', { type: 'content_block_stop', index: 2 }),
          sseEvent('message_delta', {
            type: 'message_delta',
            delta: { stop_reason: 'tool_use', stop_sequence: null },
            usage,
            rebound: { attempts: 2, verdict: `${model}-verdict` },
          }),
          sseEvent('message_stop', { type: 'message_stop' }),
        ];
        expect(text, `model ${JSON.stringify(model)}, id ${JSON.stringify(id)}`).toBe(expected.join(''));
      }
    }
  });

  it('a stream with nothing but its end is a message with no block; its finish and usage as they came, none: end_turn and zeros', () => {
    const text = written('m', (channel) => channel.write('data: [DONE]\n\n'));
    const id = /"id":"(msg_[0-9a-f]{32})"/.exec(text)?.[1];
    expect(id).toBeDefined();
    expect(text).toBe(
      messageStart(id, 'm') +
        sseEvent('message_delta', {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { input_tokens: 0, output_tokens: 0 },
        }) +
        sseEvent('message_stop', { type: 'message_stop' }),
    );
  });
});
