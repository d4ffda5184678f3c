// Rates over time, one line per series (model). Pure: data in, SVG text out.
import { clip, emptyChart, esc, niceMax, num, pct, seriesClass } from './svg.ts';

export interface LinePoint {
  /** Bucket key, sortable as a string (ISO timestamps). */
  x: string;
  y: number;
  /** Tooltip detail, e.g. "3 of 12 calls". */
  note?: string;
}

export interface LineSeries {
  name: string;
  points: LinePoint[];
}

export interface LineChartOptions {
  title: string;
  width?: number;
  height?: number;
  /** How a bucket key is written on the x axis. */
  formatX?: (x: string) => string;
  /** Values are rates in [0, 1] shown as percentages (default), or plain counts. */
  percent?: boolean;
}

const PAD = { top: 16, right: 16, bottom: 44, left: 48 };

export function lineChart(series: LineSeries[], options: LineChartOptions): string {
  const { title, width = 640, height = 260, formatX = (x) => x, percent = true } = options;
  const xs = [...new Set(series.flatMap((s) => s.points.map((p) => p.x)))].sort();
  if (xs.length === 0) return emptyChart(`${title}: no data in this range`, width);

  const maxY = niceMax(Math.max(...series.flatMap((s) => s.points.map((p) => p.y))));
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  // A single bucket sits in the middle rather than on the left edge.
  const xPos = (x: string) => PAD.left + (xs.length === 1 ? plotW / 2 : (xs.indexOf(x) / (xs.length - 1)) * plotW);
  const yPos = (y: number) => PAD.top + plotH - (y / maxY) * plotH;
  const fmtY = (y: number) => (percent ? pct(y) : num(y));

  const parts: string[] = [];
  for (let i = 0; i <= 4; i++) {
    const v = (maxY * i) / 4;
    const y = num(yPos(v));
    parts.push(`<line class="grid" x1="${PAD.left}" x2="${width - PAD.right}" y1="${y}" y2="${y}"/>`);
    parts.push(`<text class="axis" x="${PAD.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${esc(fmtY(v))}</text>`);
  }
  // At most ~6 x labels, always including the last bucket.
  const every = Math.max(1, Math.ceil(xs.length / 6));
  xs.forEach((x, i) => {
    if (i % every !== 0 && i !== xs.length - 1) return;
    parts.push(`<text class="axis" x="${num(xPos(x))}" y="${height - PAD.bottom + 18}" text-anchor="middle">${esc(formatX(x))}</text>`);
  });

  series.forEach((s, i) => {
    const cls = seriesClass(i);
    const pts = [...s.points].sort((a, b) => (a.x < b.x ? -1 : a.x > b.x ? 1 : 0));
    if (pts.length > 1) {
      const d = pts.map((p, j) => `${j ? 'L' : 'M'}${num(xPos(p.x))} ${num(yPos(p.y))}`).join(' ');
      parts.push(`<path class="line ${cls}" d="${d}"/>`);
    }
    for (const p of pts) {
      const tip = `${s.name} · ${formatX(p.x)}: ${fmtY(p.y)}${p.note ? ` (${p.note})` : ''}`;
      parts.push(`<circle class="point ${cls}" cx="${num(xPos(p.x))}" cy="${num(yPos(p.y))}" r="3.5"><title>${esc(tip)}</title></circle>`);
    }
  });

  const legend = series
    .map((s, i) => {
      const x = PAD.left + i * 170;
      return (
        `<g class="legend"><rect class="swatch ${seriesClass(i)}" x="${x}" y="${height - 14}" width="12" height="4" rx="2"/>` +
        `<text x="${x + 18}" y="${height - 10}" dominant-baseline="middle">${esc(clip(s.name, 22))}</text></g>`
      );
    })
    .join('');

  const label = `${title}: ${series.map((s) => `${s.name} ${s.points.length} points`).join(', ')}`;
  return (
    `<svg class="chart chart-line" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(label)}">` +
    parts.join('') +
    legend +
    `</svg>`
  );
}
