import { describe, expect, it } from 'vitest';
import { barChart } from './bars.ts';
import { lineChart } from './line.ts';
import { meter } from './meter.ts';
import { esc, niceMax, niceTicks, pct } from './svg.ts';

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
  it('ticks in nice steps', () => {
    expect(niceTicks(0.29)).toEqual([0, 0.1, 0.2, 0.3]);
    expect(niceTicks(0.5)).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5]);
    expect(niceTicks(1)).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(niceTicks(7)).toEqual([0, 2.5, 5, 7.5]);
    expect(niceTicks(0)).toEqual([0, 0.25, 0.5, 0.75, 1]);
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
    {
      name: 'demo',
      points: [
        { x: '2025-01-01T01', y: 0.5 },
        { x: '2025-01-01T00', y: 0.25 },
        { x: '2025-01-01T02', y: 0 },
      ],
    },
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
    const svg = lineChart(series, { title: 'Rates', width: 640, height: 240 });
    const d = /<path class="line s0" d="([^"]+)"/.exec(svg)?.[1] ?? '';
    const xs = [...d.matchAll(/[ML]([\d.]+) /g)].map((m) => Number(m[1]));
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(xs[0]).toBe(52); // left padding: the earliest bucket sits on the y axis
    expect(xs[2]).toBe(622);
  });

  it('scales y to a nice maximum and labels it as a percentage', () => {
    const svg = lineChart(series, { title: 'Rates' });
    expect(svg).toContain('>100%</text>');
    expect(svg).toContain('>50%</text>');
    expect(svg).toContain('>0%</text>');
    // y = 1 is the top of the plot (top padding 14), y = 0 the bottom (240 - 40).
    expect(svg).toMatch(/<circle class="point s1" cx="622" cy="14"/);
    expect(svg).toMatch(/<circle class="point s0" cx="622" cy="200"/);
  });

  it('writes each series’ latest value beside its last point', () => {
    const svg = lineChart(series, { title: 'Rates' });
    expect(svg).toMatch(/<text class="last s0" [^>]*>0%<\/text>/);
    expect(svg).toMatch(/<text class="last s1" [^>]*>100%<\/text>/);
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
    expect(svg).toContain('Rates: no calls in this range');
    expect(svg).not.toContain('<path');
  });
});

describe('lineChart on a time domain', () => {
  const H = 3_600_000;
  const from = Date.parse('2025-03-01T00:00:00Z');
  const at = (h: number) => new Date(from + h * H).toISOString();
  const domain = { from, to: from + 4 * H, step: H };

  it('places buckets by time across the whole range', () => {
    const svg = lineChart([{ name: 'm', points: [{ x: at(3), y: 0.5 }] }], { title: 'R', width: 640, domain });
    // Plot 52…622 (570 wide) over 4 hours; the 4th hour's centre is at 3.5 h.
    expect(svg).toMatch(new RegExp(`<circle class="point s0" cx="${52 + (3.5 / 4) * 570}"`));
    expect(svg).not.toContain('<path'); // one bucket: a dot
  });

  it('breaks the line where a bucket has no calls instead of joining across it', () => {
    const points = [at(0), at(1), at(3)].map((x) => ({ x, y: 0.2 }));
    const svg = lineChart([{ name: 'm', points }], { title: 'R', domain });
    const d = /<path class="line s0" d="([^"]+)"/.exec(svg)?.[1] ?? '';
    expect(d.match(/[ML]/g)).toEqual(['M', 'L', 'M']);
  });

  it('draws call volume as columns under the plot', () => {
    const svg = lineChart([{ name: 'm', points: [{ x: at(1), y: 0.2 }] }], {
      title: 'R',
      domain,
      volume: [
        { x: at(1), value: 10 },
        { x: at(2), value: 5 },
      ],
    });
    const heights = [...svg.matchAll(/<rect class="volume" [^>]*height="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(heights).toEqual([34, 17]);
    expect(svg).toContain('calls</text>');
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
    const bars = [...svg.matchAll(/<rect class="bar" x="170" y="[\d.]+" width="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(bars).toEqual([279, 139.5]); // sorted descending; track is 480 - 170 - (16 + 2 × 7.5) = 279 wide, max 10
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
    expect(svg).toMatch(/<rect class="bar bad" x="170" y="[\d.]+" width="117"/); // track 480 - 170 - 76 = 234
    expect(svg).toContain('>50% of 4</text>');
  });

  it('escapes labels that came from the model and clips long ones', () => {
    const svg = barChart(
      [
        { label: '<script>alert("x")</script>', value: 1 },
        { label: 'x'.repeat(60), value: 1 },
      ],
      { title: 'Phantoms' },
    );
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&#60;script&#62;');
    expect(svg).toContain(`${'x'.repeat(21)}…</text>`);
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
    expect(meter(0, { label: 'a' })).not.toContain('class="arc');
  });
});
