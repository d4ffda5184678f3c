import { describe, expect, it } from 'vitest';
import { parseDashboardQuery } from './dashboard-query.ts';

const now = new Date('2025-03-02T12:00:00Z');

describe('parseDashboardQuery: source', () => {
  it('leaves the source out unless asked, and keeps loop or gateway', () => {
    expect(parseDashboardQuery({}, now)).toEqual({ ok: true, range: { from: '2025-03-01T12:00:00.000Z', to: '2025-03-02T12:00:00.000Z', bucket: 'hour' } });
    for (const source of ['loop', 'gateway'] as const) {
      const parsed = parseDashboardQuery({ source }, now);
      expect(parsed.ok && parsed.range.source).toBe(source);
    }
  });

  it('refuses another source with a message that names both', () => {
    expect(parseDashboardQuery({ source: 'proxy' }, now)).toEqual({
      ok: false,
      message: 'source must be "loop" (the agent loop) or "gateway" (apps behind /v1/chat/completions)',
    });
  });

  it('names source among the parameters it takes', () => {
    const parsed = parseDashboardQuery({ sauce: 'gateway' }, now);
    expect(parsed.ok ? '' : parsed.message).toBe('unknown query parameter "sauce": use from, to, bucket and source');
  });
});
