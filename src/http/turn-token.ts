// Short-lived, stateless stream tokens: an HMAC over (turn, user, expiry) so that any isolate can
// authorise the EventSource GET, which cannot carry an Authorization header.
import { base64url, fromBase64url } from './base64url.ts';

const encoder = new TextEncoder();

export type TokenCheck = { ok: true } | { ok: false; status: 401 | 403; message: string };

export class TurnTokens {
  private key: Promise<CryptoKey>;

  constructor(
    secret: string,
    private ttlSeconds: number,
  ) {
    this.key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  }

  async issue(turnId: string, userId: string | null, now = Date.now()): Promise<string> {
    const exp = Math.floor(now / 1000) + this.ttlSeconds;
    const sig = await crypto.subtle.sign('HMAC', await this.key, encoder.encode(payload(turnId, userId, exp)));
    return `${exp}.${base64url(new Uint8Array(sig))}`;
  }

  async verify(token: string | undefined, turnId: string, userId: string | null, now = Date.now()): Promise<TokenCheck> {
    if (!token) return { ok: false, status: 401, message: 'Missing stream token: use the streamUrl returned by POST /v1/turns.' };
    const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!match) return { ok: false, status: 401, message: 'Malformed stream token: use the streamUrl returned by POST /v1/turns unchanged.' };
    const exp = Number(match[1]);
    const sig = fromBase64url(match[2]!);
    const valid = await crypto.subtle.verify('HMAC', await this.key, sig, encoder.encode(payload(turnId, userId, exp)));
    if (!valid)
      return { ok: false, status: 403, message: 'This stream token is not valid for this turn: use the streamUrl that POST /v1/turns returned for it.' };
    if (exp * 1000 < now) return { ok: false, status: 401, message: 'The stream token has expired: start a new turn with POST /v1/turns.' };
    return { ok: true };
  }
}

function payload(turnId: string, userId: string | null, exp: number): string {
  return `rebound-turn-v1\n${turnId}\n${userId ?? ''}\n${exp}`;
}
