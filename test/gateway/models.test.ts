// GET /v1/models, which OpenWebUI and other clients call before they chat, through the openai package:
// the upstream's list under the names a client can send (GATEWAY_MODELS in reverse), behind the same
// auth as the chat completions, and the upstream's errors as an OpenAI client reads them.
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createJwtAuthenticator } from '../../src/http/auth/jwt.ts';
import type { AppDeps } from '../../src/http/deps.ts';
import { startApp, type TestApp } from '../support/app-server.ts';
import { TEST_JWT_SECRET, userToken } from '../support/jwt.ts';
import { startScriptedOpenAI, type ScriptedOptions, type ScriptedServer } from '../support/scripted-openai.ts';
import { ASK } from './harness.ts';

let upstream: ScriptedServer | undefined;
let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  await upstream?.close();
  app = upstream = undefined;
});

const KEY = 'gw-key-0123456789abcdef';

async function start(models: ScriptedOptions['models'], env: Record<string, string> = {}, overrides: Partial<AppDeps> = {}) {
  upstream = await startScriptedOpenAI(() => ({ text: 'ok' }), { models });
  app = await startApp({ OPENAI_API_KEY: 'sk-upstream-secret', OPENAI_BASE_URL: upstream.url, ...env }, overrides);
  return { upstream, client: (apiKey = 'sk-client') => new OpenAI({ apiKey, baseURL: `${app!.url}/v1`, maxRetries: 0 }) };
}

async function listIds(client: OpenAI): Promise<string[]> {
  const ids: string[] = [];
  for await (const model of client.models.list()) ids.push(model.id);
  return ids;
}

describe('GET /v1/models', () => {
  it("lists the upstream's models as they are without GATEWAY_MODELS; the upstream is asked with the server's key", async () => {
    const { upstream, client } = await start(['up-small', 'up-large']);
    const page = await client().models.list();
    expect(page.data).toEqual([
      { id: 'up-small', object: 'model', created: 1700000000, owned_by: 'scripted' },
      { id: 'up-large', object: 'model', created: 1700000000, owned_by: 'scripted' },
    ]);
    expect(upstream.modelListAuthorizations).toEqual(['Bearer sk-upstream-secret']);
  });

  it('with GATEWAY_MODELS, lists the names a client can send, and each one reaches the model it was listed as', async () => {
    const { upstream, client } = await start(['up-small', 'up-large', 'up-old'], {
      GATEWAY_MODELS: 'fast=up-small,smart=up-large,up-old=up-large,gone=up-missing',
    });
    const page = await client().models.list();
    // up-old is sent as up-large, so it is listed only as a name of up-large; gone's model is not upstream.
    expect(page.data.map((m) => [m.id, m.owned_by])).toEqual([
      ['up-small', 'scripted'],
      ['fast', 'scripted'],
      ['up-large', 'scripted'],
      ['smart', 'scripted'],
      ['up-old', 'scripted'],
    ]);
    for (const name of ['fast', 'up-old']) await client().chat.completions.create({ model: name, messages: ASK });
    expect(upstream.requests.map((r) => r.model)).toEqual(['up-small', 'up-large']);
  });

  it('with "*=name", only that model keeps its own name besides the mapped ones', async () => {
    const { client } = await start(['up-small', 'up-large', 'up-other'], { GATEWAY_MODELS: 'big=up-large,*=up-small' });
    expect(await listIds(client())).toEqual(['up-small', 'big']);
  });

  it('with GATEWAY_MODELS_ONLY, lists and serves only the names GATEWAY_MODELS lists: another is a 403 naming them, and never reaches the upstream', async () => {
    const { upstream, client } = await start(['up-mini', 'o1-pro', 'up-large'], { GATEWAY_MODELS: 'up-mini,fast=up-mini', GATEWAY_MODELS_ONLY: 'true' });
    expect(await listIds(client())).toEqual(['up-mini', 'fast']);
    const refused = await client()
      .chat.completions.create({ model: 'o1-pro', messages: ASK })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(refused).toMatchObject({ status: 403, code: 'model_not_allowed', param: 'model' });
    expect((refused as Error).message).toMatch(/The model "o1-pro" is not served by this gateway \(GATEWAY_MODELS_ONLY\): send one of "up-mini", "fast"/);
    expect(upstream.requests).toEqual([]);
    await client().chat.completions.create({ model: 'fast', messages: ASK });
    await client().chat.completions.create({ model: 'up-mini', messages: ASK });
    expect(upstream.requests.map((r) => r.model)).toEqual(['up-mini', 'up-mini']);
  });

  it('takes the gateway auth: a gateway key or a user token GATEWAY_USERS admits, no credential is an AuthenticationError', async () => {
    const { upstream, client } = await start(
      ['up-small'],
      { GATEWAY_KEYS: KEY, GATEWAY_USERS: 'authenticated' },
      { auth: createJwtAuthenticator({ secret: TEST_JWT_SECRET }) },
    );
    const refused = await client('not-a-key')
      .models.list()
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((refused as Error).message).toMatch(/GATEWAY_KEYS/);
    expect(upstream.modelListAuthorizations).toEqual([]);
    expect(await listIds(client(KEY))).toEqual(['up-small']);
    expect(await listIds(client(await userToken('user-1')))).toEqual(['up-small']);
    expect(upstream.modelListAuthorizations).toEqual(['Bearer sk-upstream-secret', 'Bearer sk-upstream-secret']);
  });

  it("with GATEWAY_FORWARD_CLIENT_KEY the upstream is asked with the client's own key", async () => {
    const { upstream, client } = await start(['up-small'], { GATEWAY_FORWARD_CLIENT_KEY: 'true' });
    expect(await listIds(client('sk-users-own-key'))).toEqual(['up-small']);
    expect(upstream.modelListAuthorizations).toEqual(['Bearer sk-users-own-key']);
  });

  it("the upstream's errors pass through OpenAI-shaped, with their status", async () => {
    const { client } = await start({ status: 429, message: 'Rate limit reached for requests' }, { GATEWAY_MODELS: 'fast=up-small' });
    const limited = await client()
      .models.list()
      .catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect((limited as Error).message).toMatch(/Rate limit reached for requests/);
    await app!.close();
    await upstream!.close();

    // An upstream without a model list (the scripted server without one answers 404).
    const bare = await start(undefined);
    const missing = await bare
      .client()
      .models.list()
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
  });
});
