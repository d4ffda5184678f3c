// Rates over time, one line per series (model), with the call volume per bucket as a strip below.
// Pure: data in, SVG text out.
import { clip, emptyChart, esc, niceMax, niceTicks, num, pct, seriesClass } from './svg.ts';

export interface LinePoint {
  /** Bucket key: an ISO timestamp with a time domain, any sortable string without. */
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
  /**
   * The time range shown (ms) and the bucket length. With it the x axis is time: the whole range is
   * drawn, and a bucket with no point (no calls) is a gap in the line rather than a straight join.
   */
  domain?: { from: number; to: number; step: number };
  /** Calls per bucket, drawn as a strip of columns under the plot. */
  volume?: Array<{ x: string; value: number }>;
  /** At most this many x-axis labels (fewer on a narrow chart). */
  maxLabels?: number;
}

const PAD = { top: 14, right: 18, bottom: 40, left: 52 };
const STRIP = 34;
const LEGEND_ROW = 18;

/** Legend entries left to right, wrapping onto more rows when the chart is narrow. */
function legendLayout(names: string[], width: number): { items: Array<{ x: number; row: number }>; extraHeight: number } {
  let x = PAD.left;
  let row = 0;
  const items = names.map((name) => {
    const w = 20 + Math.min(name.length, 22) * 7.5 + 24;
    if (x > PAD.left && x + w > width - PAD.right) {
      x = PAD.left;
      row++;
    }
    const item = { x, row };
    x += w;
    return item;
  });
  return { items, extraHeight: row * LEGEND_ROW };
}

export function lineChart(series: LineSeries[], options: LineChartOptions): string {
  const { title, width = 640, formatX = (x) => x, percent = true, domain, volume = [], maxLabels = 6 } = options;
  const strip = volume.length > 0 ? STRIP + 8 : 0;
  const legend = legendLayout(
    series.map((s) => s.name),
    width,
  );
  const height = (options.height ?? 240) + strip + legend.extraHeight;
  const xs = [...new Set(series.flatMap((s) => s.points.map((p) => p.x)))].sort();
  if (xs.length === 0) return emptyChart(`${title}: no calls in this range`, width);

  const ticks = niceTicks(Math.max(...series.flatMap((s) => s.points.map((p) => p.y))));
  const maxY = ticks.at(-1)!;
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom - strip - legend.extraHeight;
  const plotBottom = PAD.top + plotH;

  // Time mode places buckets by their timestamp (centred in the bucket); otherwise evenly by rank.
  const xPos = domain
    ? (x: string) => PAD.left + ((Date.parse(x) + domain.step / 2 - domain.from) / (domain.to - domain.from)) * plotW
    : (x: string) => PAD.left + (xs.length === 1 ? plotW / 2 : (xs.indexOf(x) / (xs.length - 1)) * plotW);
  const yPos = (y: number) => plotBottom - (y / maxY) * plotH;
  const fmtY = (y: number) => (percent ? pct(y) : num(y));

  const parts: string[] = [];
  for (const v of ticks) {
    const y = num(yPos(v));
    parts.push(`<line class="grid" x1="${PAD.left}" x2="${width - PAD.right}" y1="${y}" y2="${y}"/>`);
    parts.push(`<text class="axis" x="${PAD.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${esc(fmtY(v))}</text>`);
  }

  const labelY = plotBottom + strip + 16;
  if (domain) {
    const buckets = Math.max(1, Math.round((domain.to - domain.from) / domain.step));
    const every = Math.max(1, Math.ceil(buckets / maxLabels));
    const first = Math.ceil(domain.from / domain.step) * domain.step;
    for (let t = first, i = 0; t < domain.to; t += domain.step, i++) {
      if (i % every !== 0) continue;
      const x = new Date(t).toISOString();
      parts.push(`<text class="axis" x="${num(xPos(x))}" y="${labelY}" text-anchor="middle">${esc(formatX(x))}</text>`);
    }
  } else {
    const every = Math.max(1, Math.ceil(xs.length / maxLabels));
    xs.forEach((x, i) => {
      if (i % every !== 0 && i !== xs.length - 1) return;
      parts.push(`<text class="axis" x="${num(xPos(x))}" y="${labelY}" text-anchor="middle">${esc(formatX(x))}</text>`);
    });
  }

  if (volume.length > 0) {
    const top = niceMax(Math.max(...volume.map((v) => v.value)));
    const stripTop = plotBottom + 8;
    const colW = domain ? Math.max(2, (domain.step / (domain.to - domain.from)) * plotW - 2) : Math.max(2, plotW / Math.max(xs.length, 1) / 2);
    parts.push(`<text class="axis" x="${PAD.left - 6}" y="${stripTop + STRIP / 2}" text-anchor="end" dominant-baseline="middle">calls</text>`);
    for (const v of volume) {
      const h = Math.max(1, (v.value / top) * STRIP);
      parts.push(
        `<rect class="volume" x="${num(xPos(v.x) - colW / 2)}" y="${num(stripTop + STRIP - h)}" width="${num(colW)}" height="${num(h)}">` +
          `<title>${esc(`${formatX(v.x)}: ${v.value} calls`)}</title></rect>`,
      );
    }
  }

  series.forEach((s, i) => {
    const cls = seriesClass(i);
    const pts = [...s.points].sort((a, b) => (a.x < b.x ? -1 : a.x > b.x ? 1 : 0));
    // With a time domain, only neighbouring buckets are joined: an hour with no calls is not a 0% hour.
    const joined = (a: LinePoint, b: LinePoint) => !domain || Date.parse(b.x) - Date.parse(a.x) <= domain.step * 1.5;
    const d = pts.map((p, j) => `${j > 0 && joined(pts[j - 1]!, p) ? 'L' : 'M'}${num(xPos(p.x))} ${num(yPos(p.y))}`).join(' ');
    if (d.includes('L')) parts.push(`<path class="line ${cls}" d="${d}"/>`);
    // The latest value written beside its point: the number people look for first.
    const last = pts.at(-1);
    if (last) {
      parts.push(`<text class="last ${cls}" x="${num(xPos(last.x) - 8)}" y="${num(yPos(last.y) - 10)}" text-anchor="end">${esc(fmtY(last.y))}</text>`);
    }
    for (const p of pts) {
      const tip = `${s.name} · ${formatX(p.x)}: ${fmtY(p.y)}${p.note ? ` (${p.note})` : ''}`;
      parts.push(`<circle class="point ${cls}" cx="${num(xPos(p.x))}" cy="${num(yPos(p.y))}" r="4"><title>${esc(tip)}</title></circle>`);
    }
  });

  const legendTop = labelY + 14;
  const legendSvg = series
    .map((s, i) => {
      const { x, row } = legend.items[i]!;
      const y = legendTop + row * LEGEND_ROW;
      return (
        `<g class="legend"><rect class="swatch ${seriesClass(i)}" x="${x}" y="${y - 2}" width="14" height="5" rx="2"/>` +
        `<text x="${x + 20}" y="${y}" dominant-baseline="middle">${esc(clip(s.name, 22))}</text></g>`
      );
    })
    .join('');

  const label = `${title}: ${series.map((s) => `${s.name}, ${s.points.length} ${s.points.length === 1 ? 'bucket' : 'buckets'}`).join('; ')}`;
  return `<svg class="chart chart-line" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(label)}">${parts.join('')}${legendSvg}</svg>`;
}
