// Horizontal bars with their labels and values written out: categories, phantom tools, invented
// parameters. Horizontal because the labels are long identifiers people want to read whole.
import { clip, emptyChart, esc, niceMax, num } from './svg.ts';

export interface Bar {
  label: string;
  value: number;
  /** Text after the bar; defaults to the value. */
  display?: string;
  /** Extra CSS class, e.g. to mark a feature-request candidate. */
  tone?: 'accent' | 'warn' | 'bad' | 'good';
  note?: string;
}

export interface BarChartOptions {
  title: string;
  width?: number;
  /** Max bars drawn; the rest are summed into "others". */
  limit?: number;
  /** Fixed maximum (1 for rates) instead of the data's. */
  max?: number;
  /** Room for the labels left of the bars (a narrow variant for phones takes less). */
  labelWidth?: number;
}

const ROW = 26;

export function barChart(bars: Bar[], options: BarChartOptions): string {
  const { title, width = 460, limit = 10, max, labelWidth: LABEL_W = 170 } = options;
  const clipAt = Math.max(6, Math.floor((LABEL_W - 10) / 7.2));
  if (bars.length === 0) return emptyChart(`${title}: nothing in this range`, width);
  const sorted = [...bars].sort((a, b) => b.value - a.value);
  const shown = sorted.slice(0, limit);
  const rest = sorted.slice(limit);
  if (rest.length > 0 && max === undefined) {
    shown.push({ label: `${rest.length} others`, value: rest.reduce((n, b) => n + b.value, 0) });
  }
  const top = max ?? niceMax(Math.max(...shown.map((b) => b.value)));
  // Room for the longest value text (about 7.5 units a character at the chart's font size).
  const valueW = 16 + Math.ceil(7.5 * Math.max(...shown.map((b) => (b.display ?? String(b.value)).length)));
  const trackW = width - LABEL_W - valueW;
  const height = shown.length * ROW + 4;

  const rows = shown.map((b, i) => {
    const y = i * ROW + 2;
    const w = top > 0 ? Math.max(b.value > 0 ? 2 : 0, (b.value / top) * trackW) : 0;
    const tone = b.tone ? ` ${b.tone}` : '';
    const tip = `${b.label}: ${b.display ?? b.value}${b.note ? ` — ${b.note}` : ''}`;
    return (
      `<g class="bar-row"><title>${esc(tip)}</title>` +
      `<text class="bar-label" x="${LABEL_W - 8}" y="${y + ROW / 2}" text-anchor="end" dominant-baseline="middle">${esc(clip(b.label, clipAt))}</text>` +
      `<rect class="track" x="${LABEL_W}" y="${y + 5}" width="${trackW}" height="${ROW - 10}" rx="3"/>` +
      `<rect class="bar${tone}" x="${LABEL_W}" y="${y + 5}" width="${num(w)}" height="${ROW - 10}" rx="3"/>` +
      `<text class="bar-value" x="${LABEL_W + trackW + 8}" y="${y + ROW / 2}" dominant-baseline="middle">${esc(b.display ?? String(b.value))}</text></g>`
    );
  });

  const label = `${title}: ${shown.map((b) => `${b.label} ${b.display ?? b.value}`).join(', ')}`;
  return `<svg class="chart chart-bars" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(label)}">${rows.join('')}</svg>`;
}
