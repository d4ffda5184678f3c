// agent_dashboard() returns everything but the range; counts may arrive as strings from some drivers.
import type { DashboardData, DashboardRange } from './types.ts';

export type DashboardJson = Omit<DashboardData, 'range'>;

export function toDashboardData(range: DashboardRange, raw: unknown): DashboardData {
  const json = (typeof raw === 'string' ? JSON.parse(raw) : raw) as DashboardJson | null;
  if (!json || typeof json !== 'object' || !json.totals) throw new Error('agent_dashboard() returned no data');
  return { range, ...json };
}

export function checkRange(range: DashboardRange): void {
  if (Number.isNaN(Date.parse(range.from)) || Number.isNaN(Date.parse(range.to))) throw new Error('dashboard range: from/to must be ISO timestamps');
  if (range.bucket !== 'hour' && range.bucket !== 'day') throw new Error('dashboard range: bucket must be hour or day');
  if (range.source !== undefined && range.source !== 'loop' && range.source !== 'gateway') throw new Error('dashboard range: source must be loop or gateway');
}
