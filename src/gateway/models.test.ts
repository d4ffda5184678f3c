import { describe, expect, it } from 'vitest';
import { clientModelList, listModels } from './models.ts';
import { upstreamModel } from './request.ts';

const entry = (id: string) => ({ id, object: 'model', created: 1700000000, owned_by: 'upstream' });
const list = (...ids: string[]) => ({ object: 'list', data: ids.map(entry) });
const ids = (mapped: Record<string, unknown> | null) => (mapped!.data as Array<{ id: string }>).map((m) => m.id);

describe('clientModelList: GATEWAY_MODELS in reverse', () => {
  it('lists each model under every name that reaches it: its own, then the client names mapped to it', () => {
    const mapped = clientModelList(list('gpt-4o-mini', 'gpt-4o'), { fast: 'gpt-4o-mini', cheap: 'gpt-4o-mini' });
    expect(mapped).toEqual({
      object: 'list',
      data: [entry('gpt-4o-mini'), { ...entry('gpt-4o-mini'), id: 'fast' }, { ...entry('gpt-4o-mini'), id: 'cheap' }, entry('gpt-4o')],
    });
  });

  it('leaves out an upstream name the mapping sends elsewhere, and a client name whose model is not listed', () => {
    expect(ids(clientModelList(list('gpt-4o-mini', 'gpt-4o'), { 'gpt-4o': 'gpt-4o-mini', smart: 'o3' }))).toEqual(['gpt-4o-mini', 'gpt-4o']);
  });

  it('with "*", only the model every other name reaches keeps its own name', () => {
    const models = { '*': 'qwen2.5-coder', big: 'llama3.3' };
    expect(ids(clientModelList(list('llama3.3', 'qwen2.5-coder', 'mistral'), models))).toEqual(['big', 'qwen2.5-coder']);
    // Every name listed is one the client can send and that reaches that very model.
    for (const m of clientModelList(list('llama3.3', 'qwen2.5-coder', 'mistral'), models)!.data as Array<{ id: string }>) {
      expect(['llama3.3', 'qwen2.5-coder']).toContain(upstreamModel(m.id, models));
    }
  });

  it('keeps the other fields of the list, passes entries without an id as they are, and is null for what is not a list', () => {
    expect(clientModelList({ object: 'list', data: [{ name: 'x' }, entry('a')], has_more: false }, { b: 'a' })).toEqual({
      object: 'list',
      data: [{ name: 'x' }, entry('a'), { ...entry('a'), id: 'b' }],
      has_more: false,
    });
    for (const bad of [null, 'list', [], { data: 'x' }, { models: [] }]) expect(clientModelList(bad, { b: 'a' })).toBeNull();
  });

  it('with only (GATEWAY_MODELS_ONLY), lists a model under the listed names alone, its own name only when listed', () => {
    expect(ids(clientModelList(list('gpt-4o-mini', 'gpt-4o', 'o1-pro'), { 'gpt-4o-mini': 'gpt-4o-mini', fast: 'gpt-4o-mini', smart: 'gpt-4o' }, true))).toEqual(
      ['gpt-4o-mini', 'fast', 'smart'],
    );
  });

  it('an upstream model named like an Object property is not mapped by the prototype', () => {
    expect(upstreamModel('constructor', { a: 'b' })).toBe('constructor');
    expect(ids(clientModelList(list('constructor', 'toString'), { a: 'constructor' }))).toEqual(['constructor', 'a', 'toString']);
  });
});

describe('listModels', () => {
  const upstream = (reply: () => Response) => ({
    baseURL: 'http://upstream.test/v1',
    apiKey: 'sk-up',
    timeoutMs: 1_000,
    fetch: (async () => reply()) as typeof fetch,
  });
  const signal = new AbortController().signal;
  const body = async (r: { body: string | ReadableStream<Uint8Array> }) => (typeof r.body === 'string' ? r.body : new Response(r.body).text());

  it('without GATEWAY_MODELS passes the upstream answer on as it came', async () => {
    const raw = '{"object":"list","data":[{"id":"m","object":"model"}],"extra":1}';
    const res = await listModels(
      upstream(() => new Response(raw, { headers: { 'content-type': 'application/json; charset=utf-8' } })),
      { models: {}, signal },
    );
    expect([res.status, res.headers['content-type'], await body(res)]).toEqual([200, 'application/json; charset=utf-8', raw]);
  });

  it('an upstream answer that is not a list is a 502 that says so, when there is a mapping to apply', async () => {
    const res = await listModels(
      upstream(() => new Response('<html>nope</html>')),
      { models: { a: 'b' }, signal },
    );
    expect(res.status).toBe(502);
    expect(JSON.parse(await body(res)).error).toMatchObject({ code: 'upstream_error', type: 'upstream_error' });
    expect(JSON.parse(await body(res)).error.message).toMatch(/not a model list .*GATEWAY_MODELS.*<html>nope/);
  });

  it('an upstream error passes through with its status, body and rate-limit headers', async () => {
    const error = { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } };
    const res = await listModels(
      upstream(() => Response.json(error, { status: 401, headers: { 'retry-after': '3' } })),
      { models: { a: 'b' }, signal },
    );
    expect([res.status, res.headers['retry-after'], JSON.parse(await body(res))]).toEqual([401, '3', error]);
  });
});
