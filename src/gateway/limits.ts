// The gateway's limits per caller (docs/deploy.md § Gateway users and limits): GATEWAY_RPM requests a
// minute and GATEWAY_TOKENS_PER_DAY tokens a UTC day, for each gateway key, each Supabase user and the
// local user (GatewayCaller.subject). The counts are the store's (MeterStore: one conditional statement
// in Postgres), so they hold across isolates and processes; the memory store's hold in one process.
//
// A request is admitted before the upstream is asked: while the day's tokens are under the limit, and
// then while the minute's requests are (that check counts it). Its tokens are counted after each
// upstream attempt, from the usage the upstream reported, so the request that crosses the day's limit
// is served whole and the next one is refused. Past a limit: 429 with Retry-After, until the window's end.
//
// When the store cannot answer, a limited gateway refuses (503 limits_unavailable), rather than serving
// without limits: a limit is there because the key's spending matters. Counting tokens after the answer
// cannot refuse anything any more: a failure there is logged.
import type { MeterKind, MeterStore } from '../store/types.ts';
import { GatewayError } from './errors.ts';

export interface LimitSettings {
  /** GATEWAY_RPM; null: no limit. */
  requestsPerMinute: number | null;
  /** GATEWAY_TOKENS_PER_DAY; null: no limit. */
  tokensPerDay: number | null;
}

export interface GatewayLimits {
  /** Throws GatewayError: 429 past a limit (Retry-After), 503 when the store cannot say. Counts the request. */
  admit(subject: string): Promise<void>;
  /** Counts the tokens of one upstream attempt's usage (`{total_tokens}`, or prompt + completion). Never throws. */
  charge(subject: string, usage: unknown): Promise<void>;
}

export interface LimitOptions {
  /** Set where the deployment has no storage shared by its isolates (AppDeps.storageMissing): what is missing. */
  missing?: string;
  log?: (line: string) => void;
}

/** The limits, or undefined when neither is set (nothing to count). */
export function gatewayLimits(settings: LimitSettings, meters: MeterStore, options: LimitOptions = {}): GatewayLimits | undefined {
  const { requestsPerMinute: rpm, tokensPerDay } = settings;
  if (rpm === null && tokensPerDay === null) return undefined;
  const log = options.log ?? ((line: string) => console.error(line));

  const meter = async (subject: string, kind: MeterKind, add: number, limit: number | null) => {
    if (options.missing) {
      throw new GatewayError(
        503,
        'limits_unavailable',
        `GATEWAY_RPM and GATEWAY_TOKENS_PER_DAY are counted in the store, and this deployment has none: ${options.missing}`,
      );
    }
    try {
      return await meters.add({ subject, kind, add, limit });
    } catch (err) {
      throw new GatewayError(
        503,
        'limits_unavailable',
        `The gateway could not check its limits, so it does not serve this request: the store did not answer (${err instanceof Error ? err.message : String(err)}). Try again shortly.`,
        null,
        { 'retry-after': '5' },
      );
    }
  };

  return {
    async admit(subject) {
      if (tokensPerDay !== null) {
        const tokens = await meter(subject, 'tokens', 0, tokensPerDay);
        if (!tokens.allowed) {
          throw limited(
            tokens.retryAfterS,
            `Token budget reached: ${tokens.amount} tokens used today of ${tokensPerDay} (GATEWAY_TOKENS_PER_DAY, per caller). It starts again at 00:00 UTC, in ${tokens.retryAfterS} s.`,
          );
        }
      }
      if (rpm !== null) {
        const requests = await meter(subject, 'requests', 1, rpm);
        if (!requests.allowed) {
          throw limited(
            requests.retryAfterS,
            `Rate limit reached: ${rpm} requests a minute (GATEWAY_RPM, per caller). Try again in ${requests.retryAfterS} s.`,
          );
        }
      }
    },
    async charge(subject, usage) {
      const tokens = usageTokens(usage);
      if (tokensPerDay === null || tokens <= 0) return;
      try {
        await meter(subject, 'tokens', tokens, null);
      } catch (err) {
        log(`rebound gateway: ${tokens} tokens could not be counted against GATEWAY_TOKENS_PER_DAY (${err instanceof Error ? err.message : String(err)})`);
      }
    },
  };
}

function limited(retryAfterS: number, message: string): GatewayError {
  return new GatewayError(429, 'rate_limit_exceeded', message, null, { 'retry-after': String(retryAfterS) });
}

/** The tokens an OpenAI usage object counts: total_tokens, or prompt + completion where it has no total; 0 for anything else. */
export function usageTokens(usage: unknown): number {
  if (typeof usage !== 'object' || usage === null) return 0;
  const { total_tokens: total, prompt_tokens: prompt, completion_tokens: completion } = usage as Record<string, unknown>;
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
  return count(total) || count(prompt) + count(completion);
}
