// GET /v1/dashboard's query string → a DashboardRange, with messages that say what to fix.
import * as z from 'zod';
import type { DashboardRange } from '../dashboard/types.ts';

const HOUR = 3_600_000;
const MAX_SPAN_DAYS = 366;
/** Hourly buckets over more than this would draw thousands of points per model. */
const MAX_HOURLY_SPAN_DAYS = 31;
/** What every store can hold and toISOString writes as a plain four-digit year. */
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(10_000, 0, 1) - 1;
const VALID_RANGE = 'years 1970–9999 (1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z)';

const timestamp = (name: string) =>
  z.iso.datetime({ offset: true, error: `${name} must be an ISO 8601 timestamp within ${VALID_RANGE}, such as 2025-01-31T00:00:00Z` }).optional();

const QuerySchema = z
  .object({
    from: timestamp('from'),
    to: timestamp('to'),
    bucket: z.enum(['hour', 'day'], { error: 'bucket must be "hour" or "day"' }).optional(),
    source: z.enum(['loop', 'gateway'], { error: 'source must be "loop" (the agent loop) or "gateway" (apps behind /v1/chat/completions)' }).optional(),
  })
  .strict();

export type RangeResult = { ok: true; range: DashboardRange } | { ok: false; message: string };

/** Defaults: `to` now, `from` 24 h before `to`, hourly buckets up to two days and daily beyond, calls from every source. */
export function parseDashboardQuery(query: Record<string, string>, now = new Date()): RangeResult {
  const parsed = QuerySchema.safeParse(query);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const message =
      issue?.code === 'unrecognized_keys'
        ? `unknown query parameter ${issue.keys.map((k) => `"${k}"`).join(', ')}: use from, to, bucket and source`
        : (issue?.message ?? 'invalid query');
    return { ok: false, message };
  }
  const to = parsed.data.to ? new Date(parsed.data.to) : now;
  const from = parsed.data.from ? new Date(parsed.data.from) : new Date(to.getTime() - 24 * HOUR);
  for (const [name, date] of [
    ['from', from],
    ['to', to],
  ] as const) {
    const t = date.getTime();
    if (!(t >= EARLIEST && t <= LATEST)) {
      const got = Number.isNaN(t) ? 'an invalid date' : date.toISOString();
      return { ok: false, message: `${name} must lie within ${VALID_RANGE}; got ${got}` };
    }
  }
  const span = to.getTime() - from.getTime();
  if (span <= 0) return { ok: false, message: 'from must be earlier than to' };
  if (span > MAX_SPAN_DAYS * 24 * HOUR) return { ok: false, message: `the range is longer than ${MAX_SPAN_DAYS} days: narrow from/to` };
  const bucket = parsed.data.bucket ?? (span <= 48 * HOUR ? 'hour' : 'day');
  if (bucket === 'hour' && span > MAX_HOURLY_SPAN_DAYS * 24 * HOUR) {
    return { ok: false, message: `hourly buckets cover at most ${MAX_HOURLY_SPAN_DAYS} days: use bucket=day or a shorter range` };
  }
  const source = parsed.data.source;
  return { ok: true, range: { from: from.toISOString(), to: to.toISOString(), bucket, ...(source ? { source } : {}) } };
}
