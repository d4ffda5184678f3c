// Usage across the gateway's attempts: the client pays for every attempt, so it is told about every
// one. Counts are summed field by field, nested details included (prompt_tokens_details.cached_tokens,
// completion_tokens_details.reasoning_tokens, …); a field only one attempt reported is kept as it is.
import { isPlainObject } from 'rebound-gate/internal';

export type UsageRecord = Record<string, unknown>;

export function addUsage(total: UsageRecord | null, next: unknown): UsageRecord | null {
  if (!isPlainObject(next)) return total;
  if (total === null) return { ...next };
  return sum(total, next);
}

function sum(a: UsageRecord, b: UsageRecord): UsageRecord {
  const out: UsageRecord = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const prev = out[key];
    if (typeof value === 'number' && typeof prev === 'number') out[key] = prev + value;
    else if (isPlainObject(value) && isPlainObject(prev)) out[key] = sum(prev, value);
    else if (prev === undefined || prev === null) out[key] = value;
  }
  return out;
}
