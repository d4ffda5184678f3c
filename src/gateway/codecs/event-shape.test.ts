import { describe, expect, it } from 'vitest';
import { eventShape, INTEGER, STRING } from './event-shape.ts';

const TEXT_DELTA = eventShape('{"type":"content_block_delta","index":', INTEGER, ',"delta":{"type":"text_delta","text":', STRING, '}}');
const event = (index: unknown, text: unknown) => JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });

describe('eventShape', () => {
  it("reads an event written in the shape as JSON.parse reads it: the holes' values", () => {
    for (const [index, text] of [
      [0, 'Hello'],
      [12, ' there, '],
      [3, ''],
      [7, 'ünïcødé → 🙂'],
    ] as const) {
      const data = event(index, text);
      const parsed = JSON.parse(data) as { index: number; delta: { text: string } };
      const match = TEXT_DELTA(data)!;
      expect([Number(match[1]), match[2]]).toEqual([parsed.index, parsed.delta.text]);
    }
  });

  it('leaves anything else to JSON.parse: escapes, whitespace, other numbers, other keys or order, trailing text', () => {
    const refused = [
      event(0, 'say "hi"'), // an escaped quote
      event(0, 'a\nb'), // an escape JSON.parse decodes
      event(0, 'back\\slash'),
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\tb"}}', // a raw control character: invalid JSON
      event(-1, 'x'),
      event(1.5, 'x'),
      '{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"x"}}', // a leading zero: invalid JSON
      '{"type":"content_block_delta","index": 0,"delta":{"type":"text_delta","text":"x"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","extra":1}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}\n',
      '{"type":"content_block_delta","index":0,"delta":{"text":"x","type":"text_delta"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x',
      '{"type":"content_block_delta","index":',
      '',
    ];
    for (const data of refused) expect(TEXT_DELTA(data), data).toBeNull();
  });
});
