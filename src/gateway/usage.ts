// Usage across the gateway's attempts: the client pays for every attempt, so it is told about every
// one. Counts are summed field by field, nested details included (prompt_tokens_details.cached_tokens,
// completion_tokens_details.reasoning_tokens, …); a field only one attempt reported is kept as it is.
export type UsageRecord = Record<string, unknown>;

export function addUsage(total: UsageRecord | null, next: unknown): UsageRecord | null {
  if (typeof next !== 'object' || next === null || Array.isArray(next)) return total;
  if (total === null) return { ...(next as UsageRecord) };
  return sum(total, next as UsageRecord);
}

function sum(a: UsageRecord, b: UsageRecord): UsageRecord {
  const out: UsageRecord = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const prev = out[key];
    if (typeof value === 'number' && typeof prev === 'number') out[key] = prev + value;
    else if (isRecord(value) && isRecord(prev)) out[key] = sum(prev, value);
    else if (prev === undefined || prev === null) out[key] = value;
  }
  return out;
}

const isRecord = (v: unknown): v is UsageRecord => typeof v === 'object' && v !== null && !Array.isArray(v);
