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

/** A "nice" upper bound for an axis: 1, 2, 2.5 or 5 times a power of ten, at least `max`. */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const mag = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * mag >= max) return step * mag;
  return 10 * mag;
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
