import { jsonText } from 'rebound-gate/internal';
import { describe, expect, it } from 'vitest';
import { fitsResponsesBody, ResponsesBody, responsesToChat } from './responses-in.ts';

describe('fitsResponsesBody', () => {
  const base = {
    model: 'm',
    instructions: 'be brief',
    input: [
      { type: 'message', role: 'user', content: 'hi' },
      { type: 'function_call', call_id: 'c', name: 'a', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c', output: 'ok' },
    ],
    tools: [
      { type: 'function', name: 'a', description: 'd', parameters: { type: 'object' }, strict: false },
      { type: 'custom', name: 'apply_patch' },
      { type: 'web_search' },
    ],
    tool_choice: 'auto',
    stream: true,
    previous_response_id: null,
    max_output_tokens: 1024,
    temperature: 0.2,
    top_p: 1,
    parallel_tool_calls: true,
    store: false,
  };
  const paths = [
    'model',
    'instructions',
    'input',
    'input.0',
    'input.0.type',
    'input.1.type',
    'tools',
    'tools.0',
    'tools.0.type',
    'tools.0.name',
    'tools.2.name',
    'tool_choice',
    'stream',
    'previous_response_id',
    'conversation',
    'max_output_tokens',
    'temperature',
    'top_p',
    'parallel_tool_calls',
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
    'message',
    'function',
    true,
    false,
    [],
    [{}],
    [{ type: 'message' }],
    ['x'],
    {},
    { type: 'function', name: 'a' },
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
  const chatOf = (body: ResponsesBody) => {
    try {
      return responsesToChat(body);
    } catch (err) {
      return String(err);
    }
  };

  it('passes only what ResponsesBody passes, with the same data and the same tools echoed: every field given every kind of value, one and two at a time', () => {
    const bodies: Record<string, unknown>[] = [base];
    for (const path of paths) for (const value of values) bodies.push(withValue(base, path, value));
    // An own __proto__ key, which zod leaves out, at each object zod copies.
    for (const path of ['', 'input.0', 'tools.0']) {
      const marked = path === '' ? { __marker: 1, ...base } : withValue(base, `${path}.marker`, 1);
      bodies.push(JSON.parse(JSON.stringify(marked).replace(path === '' ? '"__marker":1' : '"marker":1', '"__proto__":{"x":1}')));
    }
    // A tool's keys in another order than zod writes them: the echo would differ.
    bodies.push({ ...base, tools: [{ name: 'a', type: 'function', parameters: {} }] });
    bodies.push({ ...base, tools: [{ type: 'function', parameters: {}, name: 'a' }] });
    // Two fields at a time, from a fixed seed.
    let seed = 7;
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
      const parsed = ResponsesBody.safeParse(body);
      if (parsed.success) passed++;
      if (!fitsResponsesBody(body)) continue;
      fit++;
      expect(parsed.success, JSON.stringify(body)).toBe(true);
      expect(parsed.data).toEqual(body);
      // The stream echoes the tools byte for byte as zod's copy wrote them.
      expect(jsonText(body.tools)).toBe(jsonText(parsed.data!.tools));
      // What the core is asked (or the 400 it refuses) is the same whichever read the body.
      expect(chatOf(body)).toEqual(chatOf(parsed.data!));
    }
    // What it passes is most of what zod passes here, the agents' usual bodies among them.
    expect(fit).toBeGreaterThan(passed * 0.8);
    expect(fitsResponsesBody({ model: 'm', input: 'hi' })).toBe(true);
    expect(fitsResponsesBody({ ...base, tools: [{ name: 'a', type: 'function' }] })).toBe(false);
  });
});
