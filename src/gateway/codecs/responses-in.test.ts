import { jsonText } from 'rebound-gate/internal';
import { describe, expect, it } from 'vitest';
import { bodyVariants, expectFitsWithin, JSON_KINDS } from '../../../test/support/body-variants.ts';
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
  // Every kind of JSON value, and the words this schema reads.
  const values: unknown[] = [...JSON_KINDS, 'message', 'function', [{ type: 'message' }], { type: 'function', name: 'a' }];
  const chatOf = (body: ResponsesBody) => {
    try {
      return responsesToChat(body);
    } catch (err) {
      return String(err);
    }
  };

  it('passes only what ResponsesBody passes, with the same data and the same tools echoed: every field given every kind of value, one and two at a time', () => {
    const bodies = bodyVariants(base, { paths, values, protoAt: ['', 'input.0', 'tools.0'], pairs: 3000, seed: 7 });
    // A tool's keys in another order than zod writes them: the echo would differ.
    bodies.push({ ...base, tools: [{ name: 'a', type: 'function', parameters: {} }] });
    bodies.push({ ...base, tools: [{ type: 'function', parameters: {}, name: 'a' }] });
    const { fit, passed } = expectFitsWithin(bodies, ResponsesBody, fitsResponsesBody, (body, parsed) => {
      // The stream echoes the tools byte for byte as zod's copy wrote them.
      expect(jsonText(body.tools)).toBe(jsonText(parsed.tools));
      // What the core is asked (or the 400 it refuses) is the same whichever read the body.
      expect(chatOf(body as ResponsesBody)).toEqual(chatOf(parsed));
    });
    // What it passes is most of what zod passes here, the agents' usual bodies among them.
    expect(fit).toBeGreaterThan(passed * 0.8);
    expect(fitsResponsesBody({ model: 'm', input: 'hi' })).toBe(true);
    expect(fitsResponsesBody({ ...base, tools: [{ name: 'a', type: 'function' }] })).toBe(false);
  });
});
