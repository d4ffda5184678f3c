// A rate shown as a ring: one number people read at a glance (repair rate, self-correction, …).
import { esc, num, pct } from './svg.ts';

export interface MeterOptions {
  label: string;
  /** Secondary line, e.g. "12 of 40 calls". */
  detail?: string;
  /** Whether a high value is good (self-correction) or bad (hallucination): sets the colour. */
  goodWhenHigh?: boolean;
  size?: number;
}

export function meter(rate: number, options: MeterOptions): string {
  const { label, detail, goodWhenHigh = true, size = 120 } = options;
  const r = Number.isFinite(rate) ? Math.min(1, Math.max(0, rate)) : 0;
  const radius = size / 2 - 10;
  const circ = 2 * Math.PI * radius;
  const c = size / 2;
  const tone = goodWhenHigh ? (r >= 0.5 ? 'good' : 'warn') : r >= 0.25 ? 'bad' : r > 0.1 ? 'warn' : 'good';
  const text = Number.isFinite(rate) ? pct(r) : '–';
  return (
    `<svg class="chart meter" viewBox="0 0 ${size} ${size}" width="${size}" height="${size}" role="img" aria-label="${esc(`${label}: ${text}${detail ? `, ${detail}` : ''}`)}">` +
    `<circle class="track" cx="${c}" cy="${c}" r="${num(radius)}" fill="none" stroke-width="10"/>` +
    // The arc starts at 12 o'clock: rotate -90° around the centre. None at 0: a round cap would show a dot.
    (r > 0
      ? `<circle class="arc ${tone}" cx="${c}" cy="${c}" r="${num(radius)}" fill="none" stroke-width="10" stroke-linecap="round" ` +
        `stroke-dasharray="${num(circ * r)} ${num(circ)}" transform="rotate(-90 ${c} ${c})"/>`
      : '') +
    `<text class="meter-value" x="${c}" y="${c}" text-anchor="middle" dominant-baseline="central">${esc(text)}</text>` +
    `</svg>`
  );
}
