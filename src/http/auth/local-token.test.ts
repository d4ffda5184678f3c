import { describe, expect, it } from 'vitest';
import { AuthError } from '../../auth-error.ts';
import { localTokenAuth } from './local-token.ts';

const TOKEN = 'f'.repeat(31) + '0'.repeat(33);
const call = (authorization?: string) => new Request('http://127.0.0.1:8787/v1/chat', { method: 'POST', headers: authorization ? { authorization } : {} });
const refusal = async (authorization?: string) => {
  const err = await localTokenAuth(TOKEN, 'in the test')
    .authenticate(call(authorization))
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AuthError);
  expect((err as AuthError).status).toBe(401);
  return (err as AuthError).message;
};

describe('localTokenAuth', () => {
  it('lets the local token in as the anonymous local user, marked local for the Host and Origin guards', async () => {
    const auth = localTokenAuth(TOKEN, 'in the test');
    expect(auth.local).toBe(true);
    await expect(auth.authenticate(call(`Bearer ${TOKEN}`))).resolves.toEqual({ userId: null });
    await expect(auth.authenticate(call(`bearer   ${TOKEN} `))).resolves.toEqual({ userId: null });
  });

  it('refuses no credential, another token, a prefix or an extension of it, and says where the token is', async () => {
    expect(await refusal()).toMatch(/^Missing credentials: .*local access token.*in the test.*\?token=/);
    for (const wrong of [`Bearer ${TOKEN.slice(0, -1)}`, `Bearer ${TOKEN}0`, `Bearer ${TOKEN.toUpperCase()}`, TOKEN, `Basic ${TOKEN}`]) {
      expect(await refusal(wrong)).toMatch(/not this server's local access token|Missing credentials/);
    }
    // The refusal never repeats the token.
    expect(await refusal('Bearer nope')).not.toContain(TOKEN);
  });

  it('refuses to be made with a token too short to be a secret', () => {
    expect(() => localTokenAuth('short', 'in a hand-written file')).toThrow(/32 characters or more \(it is in a hand-written file\)/);
  });
});
