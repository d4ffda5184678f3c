// Short-lived, stateless stream tokens: an HMAC over (turn, user, expiry) so that any isolate can
// authorise the EventSource GET, which cannot carry an Authorization header. The expiry is bounded as
// well as checked: a token whose expiry lies further ahead than this server issues (its lifetime,
// TURN_TOKEN_TTL_S, at most a day, plus the clock skew between isolates) was not issued here, whatever
// its signature says, so a leaked or guessed secret cannot mint a token that never expires
// (docs/configuration.md § Keys).
import { base64url, fromBase64url } from './base64url.ts';

const encoder = new TextEncoder();

/** What two isolates' clocks may differ by: a token issued by one is not refused by the other for it. */
export const CLOCK_SKEW_S = 60;

export type TokenCheck = { ok: true } | { ok: false; status: 401 | 403; message: string };

export class TurnTokens {
  private key: Promise<CryptoKey>;

  private ttlSeconds: number;
  constructor(secret: string, ttlSeconds: number) {
    this.ttlSeconds = ttlSeconds;
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
    if (exp > Math.floor(now / 1000) + this.ttlSeconds + CLOCK_SKEW_S)
      return {
        ok: false,
        status: 403,
        message: 'This stream token expires later than this server issues any: it was not issued here. Use the streamUrl that POST /v1/turns returned.',
      };
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
