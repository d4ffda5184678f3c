import { describe, expect, it } from 'vitest';
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
  const values: unknown[] = [
    undefined,
    null,
    0,
    2,
    1.5,
    -1,
    2 ** 53,
    Number.POSITIVE_INFINITY,
    '',
    'x',
    'user',
    'system',
    'assistant',
    'tool',
    'any',
    'custom',
    true,
    false,
    [],
    [{}],
    [{ type: 'text' }],
    ['x'],
    {},
    { name: 'a' },
  ];
  /** The body (a JSON copy, so an own `__proto__` key stays one) with the value at path; undefined deletes it. */
  const withValue = (body: unknown, path: string, value: unknown): Record<string, unknown> => {
    const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
    const keys = path.split('.');
    let at = copy as Record<string, unknown>;
    for (const key of keys.slice(0, -1)) {
      if (typeof at[key] !== 'object' || at[key] === null) return copy;
      at = at[key] as Record<string, unknown>;
    }
    if (value === undefined) delete at[keys.at(-1)!];
    // Infinity is what JSON.parse makes of a number past the doubles (1e400).
    else at[keys.at(-1)!] = value === Number.POSITIVE_INFINITY ? JSON.parse('1e400') : JSON.parse(JSON.stringify(value));
    return copy;
  };

  const chatOf = (body: MessagesBody) => {
    try {
      return messagesToChat(body);
    } catch (err) {
      return String(err);
    }
  };

  it('passes only what MessagesBody passes, with the same data: every field given every kind of value, one and two at a time', () => {
    const bodies: Record<string, unknown>[] = [base];
    for (const path of paths) for (const value of values) bodies.push(withValue(base, path, value));
    // An own __proto__ key, which zod leaves out, at each object zod copies.
    for (const path of ['', 'system.0', 'messages.0', 'messages.1.content.0', 'tools.0', 'tools.0.input_schema', 'tool_choice']) {
      const marked = path === '' ? { __marker: 1, ...base } : withValue(base, `${path}.marker`, 1);
      bodies.push(JSON.parse(JSON.stringify(marked).replace(path === '' ? '"__marker":1' : '"marker":1', '"__proto__":{"x":1}')));
    }
    // Two fields at a time, from a fixed seed.
    let seed = 11;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 3000; i++) {
      const one = withValue(base, paths[next(paths.length)]!, values[next(values.length)]);
      bodies.push(withValue(one, paths[next(paths.length)]!, values[next(values.length)]));
    }
    let fit = 0;
    let passed = 0;
    for (const body of bodies) {
      const parsed = MessagesBody.safeParse(body);
      if (parsed.success) passed++;
      if (!fitsMessagesBody(body)) continue;
      fit++;
      expect(parsed.success, JSON.stringify(body)).toBe(true);
      expect(parsed.data).toEqual(body);
      // What the core is asked (or the 400 it refuses) is the same whichever read the body.
      expect(chatOf(body)).toEqual(chatOf(parsed.data!));
    }
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
