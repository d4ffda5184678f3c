import { describe, expect, it } from 'vitest';
import { base64url } from './base64url.ts';
import { TurnTokens } from './turn-token.ts';

const SECRET = 'turn-token-test-secret-0123456789';
const now = Date.parse('2026-11-25T12:00:00.000Z');

/** A token as anyone holding the secret computes it offline (a publishable key set as the secret was such a secret). */
async function forge(turnId: string, userId: string | null, exp: number): Promise<string> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(SECRET), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const sig = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`rebound-turn-v1\n${turnId}\n${userId ?? ''}\n${exp}`));
  return `${exp}.${base64url(new Uint8Array(sig))}`;
}

describe('TurnTokens', () => {
  const tokens = new TurnTokens(SECRET, 300);

  it('verifies its own token for that turn and user until it expires', async () => {
    const token = await tokens.issue('turn-1', 'user-1', now);
    expect(await tokens.verify(token, 'turn-1', 'user-1', now)).toEqual({ ok: true });
    expect(await tokens.verify(token, 'turn-1', 'user-2', now)).toMatchObject({ ok: false, status: 403 });
    expect(await tokens.verify(token, 'turn-2', 'user-1', now)).toMatchObject({ ok: false, status: 403 });
    expect(await tokens.verify(token, 'turn-1', 'user-1', now + 301_000)).toMatchObject({ ok: false, status: 401, message: expect.stringMatching(/expired/) });
  });

  it('refuses a correctly signed token whose expiry lies further ahead than the server issues (exp 999999999999)', async () => {
    const forged = await forge('turn-1', 'user-1', 999_999_999_999);
    expect(await tokens.verify(forged, 'turn-1', 'user-1', now)).toEqual({
      ok: false,
      status: 403,
      message: expect.stringMatching(/expires later than this server issues any: it was not issued here/),
    });
    // The bound: the server's lifetime plus a minute of clock skew between isolates.
    const exp = Math.floor(now / 1000) + 300;
    expect(await tokens.verify(await forge('turn-1', 'user-1', exp + 60), 'turn-1', 'user-1', now)).toEqual({ ok: true });
    expect(await tokens.verify(await forge('turn-1', 'user-1', exp + 61), 'turn-1', 'user-1', now)).toMatchObject({ ok: false, status: 403 });
  });
});
