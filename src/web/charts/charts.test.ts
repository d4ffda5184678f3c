import { describe, expect, it } from 'vitest';
import { barChart } from './bars.ts';
import { lineChart } from './line.ts';
import { meter } from './meter.ts';
import { esc, niceMax, pct } from './svg.ts';

const count = (svg: string, re: RegExp) => svg.match(re)?.length ?? 0;

describe('svg helpers', () => {
  it('escapes markup and quotes', () => {
    expect(esc(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
  });
  it('rounds axes up to nice numbers', () => {
    expect(niceMax(0.37)).toBe(0.5);
    expect(niceMax(7)).toBe(10);
    expect(niceMax(2)).toBe(2);
    expect(niceMax(0)).toBe(1);
  });
  it('writes percentages readably', () => {
    expect(pct(0.3)).toBe('30%');
    expect(pct(0.055)).toBe('5.5%');
    expect(pct(0)).toBe('0%');
    expect(pct(Number.NaN)).toBe('–');
  });
});

describe('lineChart', () => {
  const series = [
    { name: 'demo', points: [{ x: '2025-01-01T01', y: 0.5 }, { x: '2025-01-01T00', y: 0.25 }, { x: '2025-01-01T02', y: 0 }] },
    { name: 'gpt', points: [{ x: '2025-01-01T02', y: 1, note: '3 of 3 calls' }] },
  ];

  it('draws one path per multi-point series and one circle per point', () => {
    const svg = lineChart(series, { title: 'Rates' });
    expect(count(svg, /<path class="line s0"/g)).toBe(1);
    expect(count(svg, /<path class="line s1"/g)).toBe(0); // a single point is a dot, not a line
    expect(count(svg, /<circle class="point s0"/g)).toBe(3);
    expect(count(svg, /<circle class="point s1"/g)).toBe(1);
    expect(svg).toContain('role="img"');
  });

  it('sorts points by bucket so the line runs left to right', () => {
    const svg = lineChart(series, { title: 'Rates', width: 640, height: 260 });
    const d = /<path class="line s0" d="([^"]+)"/.exec(svg)?.[1] ?? '';
    const xs = [...d.matchAll(/[ML]([\d.]+) /g)].map((m) => Number(m[1]));
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(xs[0]).toBe(48); // left padding: the earliest bucket sits on the y axis
    expect(xs[2]).toBe(624);
  });

  it('scales y to a nice maximum and labels it as a percentage', () => {
    const svg = lineChart(series, { title: 'Rates' });
    expect(svg).toContain('>100%</text>');
    expect(svg).toContain('>50%</text>');
    expect(svg).toContain('>0%</text>');
    // y = 1 is the top of the plot (top padding 16), y = 0 the bottom (260 - 44).
    expect(svg).toMatch(/<circle class="point s1" cx="624" cy="16"/);
    expect(svg).toMatch(/<circle class="point s0" cx="624" cy="216"/);
  });

  it('has a legend entry and tooltips with notes', () => {
    const svg = lineChart(series, { title: 'Rates', formatX: (x) => `h${x.slice(-2)}` });
    expect(svg).toContain('>demo</text>');
    expect(svg).toContain('>gpt</text>');
    expect(svg).toContain('<title>gpt · h02: 100% (3 of 3 calls)</title>');
    expect(svg).toContain('>h00</text>');
  });

  it('says so when there is no data', () => {
    const svg = lineChart([], { title: 'Rates' });
    expect(svg).toContain('Rates: no data in this range');
    expect(svg).not.toContain('<path');
  });
});

describe('barChart', () => {
  it('draws a bar per item, longest for the largest value, with labels and values', () => {
    const svg = barChart(
      [
        { label: 'invalid_path', value: 5 },
        { label: 'phantom_tool', value: 10 },
      ],
      { title: 'Categories', width: 480 },
    );
    const bars = [...svg.matchAll(/<rect class="bar" x="190" y="[\d.]+" width="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(bars).toEqual([220, 110]); // sorted descending; track is 480 - 190 - 70 = 220 wide, max 10
    expect(svg.indexOf('phantom_tool')).toBeLessThan(svg.indexOf('invalid_path'));
    expect(svg).toContain('>10</text>');
    expect(svg).toContain('>5</text>');
  });

  it('folds the tail into "others" beyond the limit', () => {
    const bars = Array.from({ length: 5 }, (_, i) => ({ label: `t${i}`, value: i + 1 }));
    const svg = barChart(bars, { title: 'Tools', limit: 3 });
    expect(count(svg, /<g class="bar-row">/g)).toBe(4);
    expect(svg).toContain('>2 others</text>');
    expect(svg).toContain('>3</text>'); // 1 + 2
  });

  it('uses a fixed maximum for rates, custom display text and tones', () => {
    const svg = barChart([{ label: 'read_file', value: 0.5, display: '50% of 4', tone: 'bad' }], { title: 'Rate', max: 1, width: 480 });
    expect(svg).toMatch(/<rect class="bar bad" x="190" y="[\d.]+" width="110"/);
    expect(svg).toContain('>50% of 4</text>');
  });

  it('escapes labels that came from the model and clips long ones', () => {
    const svg = barChart([{ label: '<script>alert("x")</script>', value: 1 }, { label: 'x'.repeat(60), value: 1 }], { title: 'Phantoms' });
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&#60;script&#62;');
    expect(svg).toContain(`${'x'.repeat(25)}…</text>`);
    expect(svg).toContain(`<title>${'x'.repeat(60)}: 1</title>`);
  });

  it('says so when there is nothing to draw', () => {
    expect(barChart([], { title: 'Phantom tools' })).toContain('Phantom tools: nothing in this range');
  });
});

describe('meter', () => {
  it('fills the ring in proportion to the rate and writes the number', () => {
    const svg = meter(0.25, { label: 'Repair rate', size: 120 });
    const r = 50;
    const circ = 2 * Math.PI * r;
    expect(svg).toContain(`stroke-dasharray="${Math.round(circ * 0.25 * 100) / 100} ${Math.round(circ * 100) / 100}"`);
    expect(svg).toContain('>25%</text>');
    expect(svg).toContain('aria-label="Repair rate: 25%"');
  });

  it('colours by whether high is good', () => {
    expect(meter(0.9, { label: 'a' })).toContain('class="arc good"');
    expect(meter(0.2, { label: 'a' })).toContain('class="arc warn"');
    expect(meter(0.3, { label: 'a', goodWhenHigh: false })).toContain('class="arc bad"');
    expect(meter(0.05, { label: 'a', goodWhenHigh: false })).toContain('class="arc good"');
  });

  it('clamps out-of-range values and shows a dash for NaN', () => {
    expect(meter(3, { label: 'a' })).toContain('>100%</text>');
    expect(meter(Number.NaN, { label: 'a' })).toContain('>–</text>');
  });
});
