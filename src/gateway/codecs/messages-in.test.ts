import { describe, expect, it } from 'vitest';
import { bodyVariants, expectFitsWithin, JSON_KINDS } from '../../../test/support/body-variants.ts';
import { fitsMessagesBody, MessagesBody, messagesToChat } from './messages-in.ts';

describe('fitsMessagesBody', () => {
  const base = {
    model: 'm',
    max_tokens: 1024,
    system: [{ type: 'text', text: 'be brief' }],
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'a', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] },
    ],
    tools: [{ name: 'a', description: 'd', input_schema: { type: 'object' } }],
    tool_choice: { type: 'tool', name: 'a', disable_parallel_tool_use: true },
    stream: true,
    stop_sequences: ['END'],
    temperature: 0.2,
    top_p: 1,
    metadata: { user_id: 'u' },
  };
  const paths = [
    'model',
    'max_tokens',
    'system',
    'system.0',
    'system.0.type',
    'messages',
    'messages.0',
    'messages.0.role',
    'messages.0.content',
    'messages.1.content',
    'messages.1.content.0',
    'messages.1.content.0.type',
    'tools',
    'tools.0',
    'tools.0.name',
    'tools.0.type',
    'tools.0.description',
    'tools.0.input_schema',
    'tool_choice',
    'tool_choice.type',
    'tool_choice.name',
    'tool_choice.disable_parallel_tool_use',
    'stream',
    'stop_sequences',
    'stop_sequences.0',
    'temperature',
    'top_p',
  ];
  // Every kind of JSON value, and the words this schema reads.
  const values: unknown[] = [...JSON_KINDS, 'user', 'system', 'assistant', 'tool', 'any', 'custom', [{ type: 'text' }], { name: 'a' }];
  const chatOf = (body: MessagesBody) => {
    try {
      return messagesToChat(body);
    } catch (err) {
      return String(err);
    }
  };

  it('passes only what MessagesBody passes, with the same data: every field given every kind of value, one and two at a time', () => {
    const protoAt = ['', 'system.0', 'messages.0', 'messages.1.content.0', 'tools.0', 'tools.0.input_schema', 'tool_choice'];
    const bodies = bodyVariants(base, { paths, values, protoAt, pairs: 3000, seed: 11 });
    const { fit, passed } = expectFitsWithin(bodies, MessagesBody, fitsMessagesBody, (body, parsed) => {
      // What the core is asked (or the 400 it refuses) is the same whichever read the body.
      expect(chatOf(body as MessagesBody)).toEqual(chatOf(parsed));
    });
    // What it passes is most of what zod passes here, the agents' usual bodies among them.
    expect(fit).toBeGreaterThan(passed * 0.8);
    expect(fitsMessagesBody({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] })).toBe(true);
  });
});

describe('messagesToChat', () => {
  it("a message's string content reads as its one text block", () => {
    const body = (content: unknown) =>
      MessagesBody.parse({
        model: 'm',
        max_tokens: 1,
        messages: ['system', 'user', 'assistant'].map((role) => ({ role, content })),
      });
    for (const text of ['', 'hi', 'a\nb']) {
      expect(messagesToChat(body(text))).toEqual(messagesToChat(body([{ type: 'text', text }])));
    }
  });
});
