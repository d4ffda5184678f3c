import { describe, expect, it } from 'vitest';
import { bodyVariants, expectFitsWithin, JSON_KINDS } from '../../test/support/body-variants.ts';
import { ChatCompletionsBody, fitsChatBody, toGatewayRequest } from './request.ts';
import { GatewayError } from './errors.ts';

const tool = (name: string, properties: Record<string, unknown> = { a: { type: 'string' } }) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties } },
});
const parse = (body: Record<string, unknown>, models: Record<string, string> = {}, only = false) =>
  toGatewayRequest(ChatCompletionsBody.parse({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...body }), { models, only });

describe('toGatewayRequest', () => {
  it('gates against the tools tool_choice leaves: all, none, one, the allowed ones', () => {
    const tools = [tool('a'), tool('b'), tool('c')];
    expect(parse({ tools }).toolset.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(parse({ tools, tool_choice: 'required' }).toolset).toHaveLength(3);
    const none = parse({ tools, tool_choice: 'none' });
    expect(none.toolset).toEqual([]);
    expect(none.extractTextCalls).toBe(false);
    expect(parse({ tools, tool_choice: { type: 'function', function: { name: 'b' } } }).toolset.map((t) => t.name)).toEqual(['b']);
    const allowed = {
      type: 'allowed_tools',
      allowed_tools: {
        mode: 'auto',
        tools: [
          { type: 'function', function: { name: 'c' } },
          { type: 'function', function: { name: 'a' } },
        ],
      },
    };
    expect(parse({ tools, tool_choice: allowed }).toolset.map((t) => t.name)).toEqual(['a', 'c']);
    expect(parse({}).extractTextCalls).toBe(false);
  });

  it("reads the tools keyed by the request's text of each (the route's scan) as without it, and ignores texts that do not pair with the tools", () => {
    const tools = [tool('a'), tool('b', { path: { type: 'string', 'x-rebound-path': true }, body: { type: 'string', 'x-rebound-code': true } })];
    const texts = tools.map((t) => JSON.stringify(t));
    const body = ChatCompletionsBody.parse({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools });
    const plain = toGatewayRequest(body, { models: {} });
    const keyed = toGatewayRequest(body, { models: {} }, texts);
    expect(keyed).toEqual(plain);
    expect(keyed.toolset[1]).toMatchObject({ name: 'b', codeParams: ['body'], pathParams: ['path'] });
    // The same text again: the same read; a list of another length is not used (each tool keyed by its JSON).
    expect(toGatewayRequest(body, { models: {} }, texts).toolset[0]).toBe(keyed.toolset[0]);
    expect(toGatewayRequest(body, { models: {} }, texts.slice(1)).toolset).toEqual(plain.toolset);
  });

  it('reads x-rebound-code as a code parameter and removes it from what goes upstream', () => {
    const marked = tool('write', { path: { type: 'string' }, body: { type: 'string', 'x-rebound-code': true } });
    const plain = tool('read');
    const request = parse({ tools: [marked, plain] });
    expect(request.toolset[0]!.codeParams).toEqual(['body']);
    expect(request.toolset[1]!.codeParams).toBeUndefined();
    const sent = request.upstreamBody.tools as Array<typeof marked>;
    expect(sent[0]!.function.parameters.properties).toEqual({ path: { type: 'string' }, body: { type: 'string' } });
    expect(sent[1]).toEqual(plain);
    // Without the extension, the client's tools go upstream as they came.
    const untouched = [tool('read')];
    expect(parse({ tools: untouched }).upstreamBody.tools).toEqual(untouched);
  });

  it('maps the model, keeps every other field, and asks for usage when streaming', () => {
    const request = parse(
      { model: 'gpt-4o', stream: true, temperature: 0.3, seed: 7, stream_options: { include_usage: false } },
      { 'gpt-4o': 'llama', '*': 'other' },
    );
    expect(request.model).toBe('llama');
    expect(request.upstreamBody).toMatchObject({ model: 'llama', temperature: 0.3, seed: 7, stream: true, stream_options: { include_usage: true } });
    expect(request.includeUsage).toBe(false);
    expect(parse({ model: 'x' }, { '*': 'other' }).model).toBe('other');
    expect(parse({ model: 'x' }).upstreamBody).not.toHaveProperty('stream_options');
  });

  it('with only (GATEWAY_MODELS_ONLY), refuses a name the mapping does not list, prototype names included, with a 403 listing the served ones', () => {
    const models = { 'gpt-4o-mini': 'gpt-4o-mini', fast: 'gpt-4o-mini' };
    expect(parse({ model: 'fast' }, models, true).model).toBe('gpt-4o-mini');
    for (const model of ['o1-pro', 'constructor', '*']) {
      let refused: unknown;
      try {
        parse({ model }, models, true);
      } catch (err) {
        refused = err;
      }
      expect(refused).toBeInstanceOf(GatewayError);
      expect(refused).toMatchObject({ status: 403, code: 'model_not_allowed', param: 'model' });
      expect((refused as Error).message).toContain('send one of "gpt-4o-mini", "fast"');
    }
  });

  it('refuses what it cannot serve with the parameter named', () => {
    const refused = (body: Record<string, unknown>) => {
      try {
        parse(body);
      } catch (err) {
        return err instanceof GatewayError ? [err.status, err.param] : err;
      }
      return 'accepted';
    };
    expect(refused({ n: 2 })).toEqual([400, 'n']);
    expect(parse({ n: 1 }).upstreamBody.n).toBe(1);
    expect(refused({ audio: { voice: 'alloy' } })).toEqual([400, 'audio']);
    expect(refused({ modalities: ['audio'] })).toEqual([400, 'modalities']);
    expect(refused({ function_call: 'auto' })).toEqual([400, 'function_call']);
    expect(refused({ tools: [{ type: 'function' }] })).toEqual([400, 'tools[0].function']);
  });
});

describe('fitsChatBody', () => {
  const base = {
    model: 'm',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
    tools: [{ type: 'function', function: { name: 'a', description: 'd', parameters: { type: 'object' }, strict: false } }],
    tool_choice: { type: 'function', function: { name: 'a' } },
    n: 1,
    temperature: 0.2,
  };
  const paths = [
    'model',
    'messages',
    'messages.0',
    'messages.0.role',
    'stream',
    'stream_options',
    'stream_options.include_usage',
    'tools',
    'tools.0',
    'tools.0.type',
    'tools.0.function',
    'tools.0.function.name',
    'tools.0.function.description',
    'tools.0.function.parameters',
    'tools.0.function.strict',
    'tool_choice',
    'tool_choice.type',
    'tool_choice.function',
    'tool_choice.function.name',
    'n',
  ];
  // Every kind of JSON value, and the words this schema reads.
  const values: unknown[] = [...JSON_KINDS, 'function', 'none', 'auto', [{ role: 'user' }], { name: 'a' }];

  it('passes only what ChatCompletionsBody passes, with the same data: every field given every kind of value, one and two at a time', () => {
    const protoAt = ['', 'messages.0', 'stream_options', 'tools.0', 'tools.0.function', 'tools.0.function.parameters', 'tool_choice'];
    const bodies = bodyVariants(base, { paths, values, protoAt, pairs: 2000, seed: 7 });
    const { fit, passed } = expectFitsWithin(bodies, ChatCompletionsBody, fitsChatBody);
    // What it passes is most of what zod passes here, the agents' usual bodies among them.
    expect(fit).toBeGreaterThan(passed * 0.8);
    for (const tool_choice of [undefined, 'auto', 'none', 'required', { type: 'function', function: { name: 'a' } }]) {
      expect(fitsChatBody({ ...base, tool_choice })).toBe(true);
    }
    expect(fitsChatBody({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] })).toBe(true);
  });
});
