// One JSON text per value, whatever the key order or spacing it came with: keys sorted, no spacing.
// The loop breaker compares repeated calls by it (src/loop/loop-breaker.ts), and an approval is bound
// to a hash of it (src/tools/approval.ts), so reformatting arguments neither dodges one nor breaks the other.

/** Canonical JSON of a JSON value; throws a RangeError on a value nested too deep for the stack. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
