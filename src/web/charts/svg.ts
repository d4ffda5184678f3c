// Shared pieces of the server-side SVG charts. Labels often come from model output (phantom tool
// names, invented parameters), so every piece of text goes through `esc` before it reaches markup.

export function esc(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Rounded to 2 decimals so generated markup stays small and deterministic. */
export function num(n: number): string {
  return String(Math.round(n * 100) / 100);
}

export function pct(rate: number): string {
  if (!Number.isFinite(rate)) return '–';
  const p = rate * 100;
  return `${p >= 10 || p === 0 ? Math.round(p) : p.toFixed(1)}%`;
}

/** Series colours are CSS classes (s0…s5) so the page's light and dark themes both apply. */
export const SERIES_COUNT = 6;
export const seriesClass = (i: number): string => `s${i % SERIES_COUNT}`;

/** A "nice" number at least `n`: 1, 2, 2.5 or 5 times a power of ten. */
export function niceMax(n: number): number {
  if (!(n > 0)) return 1;
  const mag = 10 ** Math.floor(Math.log10(n));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * mag >= n * (1 - 1e-9)) return step * mag;
  return 10 * mag;
}

/**
 * Axis ticks from 0 in nice steps up to at least `max`: 0, 10%, 20%, 30% rather than 0, 12.5%, 25%.
 * Of 3 to 5 steps, the tightest top wins (then the count nearest 4), so a 50% peak is not drawn to 60%.
 */
export function niceTicks(max: number): number[] {
  const m = max > 0 ? max : 1;
  let best: { step: number; n: number } | null = null;
  for (const count of [4, 3, 5]) {
    const step = niceMax(m / count);
    const n = Math.max(1, Math.ceil(m / step - 1e-9));
    if (!best || n * step < best.n * best.step - 1e-12) best = { step, n };
  }
  const { step, n } = best!;
  // Multiply, don't accumulate: 0.1 + 0.2 must print as 30%.
  return Array.from({ length: n + 1 }, (_, i) => Number((i * step).toPrecision(12)));
}

/** Cuts long labels (model-invented names can be anything) and keeps the full text for the tooltip. */
export function clip(label: string, max: number): string {
  return label.length <= max ? label : `${label.slice(0, max - 1)}…`;
}

export function emptyChart(message: string, width = 480, height = 80): string {
  return (
    `<svg class="chart chart-empty" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(message)}">` +
    `<text class="muted" x="${width / 2}" y="${height / 2}" text-anchor="middle" dominant-baseline="middle">${esc(message)}</text></svg>`
  );
}
