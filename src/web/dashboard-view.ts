// DashboardData → the HTML fragment the dashboard page shows: tiles, then one figure per question.
// Server-side so the page needs no chart library and the markup is testable as a string.
import type { DashboardData, DashboardRange, FailureCostGroup } from '../dashboard/types.ts';
import { barChart, type Bar, type BarChartOptions } from './charts/bars.ts';
import { lineChart, type LineSeries } from './charts/line.ts';
import { meter } from './charts/meter.ts';
import { esc, pct } from './charts/svg.ts';

function tile(label: string, value: string, detail?: string): string {
  return `<div class="tile"><div class="tile-value">${esc(value)}</div><div class="tile-label">${esc(label)}</div>${
    detail ? `<div class="tile-detail">${esc(detail)}</div>` : ''
  }</div>`;
}

/** Phones get their own drawing: an SVG scaled down to a third of its width has unreadable text. */
function responsive(wide: string, narrow: string): string {
  return `<div class="wide-only">${wide}</div><div class="narrow-only">${narrow}</div>`;
}

/** One card: its heading, an optional note under it, and the chart (or any HTML) as body. */
function figure({ id, title, body, note }: { id: string; title: string; body: string; note?: string }): string {
  return `<figure class="card" id="${esc(id)}"><figcaption><h2>${esc(title)}</h2>${
    note ? `<p class="muted">${esc(note)}</p>` : ''
  }</figcaption>${body}</figure>`;
}

/** "2025-01-05T14:00:00Z" → "Jan 5 14:00" for hours, "Jan 5" for days; in UTC so the server and tests agree. */
export function bucketLabel(bucket: string, unit: DashboardRange['bucket']): string {
  const d = new Date(bucket);
  if (Number.isNaN(d.getTime())) return bucket;
  const day = d.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
  return unit === 'day' ? day : `${day} ${String(d.getUTCHours()).padStart(2, '0')}:00`;
}

export function ratesSeries(data: DashboardData): LineSeries[] {
  const byModel = new Map<string, LineSeries>();
  for (const p of data.ratesOverTime) {
    let s = byModel.get(p.model);
    if (!s) {
      s = { name: p.model, points: [] };
      byModel.set(p.model, s);
    }
    s.points.push({ x: p.bucket, y: p.rate, note: `${p.hallucinated} of ${p.calls} calls` });
  }
  return [...byModel.values()];
}

const STEP = { hour: 3_600_000, day: 86_400_000 };

/** The whole selected range, widened to whole buckets, so the chart shows when nothing happened too. */
export function timeDomain(data: DashboardData): { from: number; to: number; step: number } {
  const step = STEP[data.range.bucket];
  return { from: Math.floor(Date.parse(data.range.from) / step) * step, to: Math.ceil(Date.parse(data.range.to) / step) * step, step };
}

/** Calls per bucket over all models. */
export function callVolume(data: DashboardData): Array<{ x: string; value: number }> {
  const calls = new Map<string, number>();
  for (const p of data.ratesOverTime) calls.set(p.bucket, (calls.get(p.bucket) ?? 0) + p.calls);
  return [...calls].map(([x, value]) => ({ x, value }));
}

export function renderDashboard(data: DashboardData): string {
  const t = data.totals;
  const sc = data.selfCorrection;
  const fc = data.failureCost;
  const ap = data.approvals;
  const unit = data.range.bucket;
  // Turns, iterations, repeated failures, forced summaries and approvals are the agent loop's: filtered to
  // the apps behind the gateway they are always zero, so that view leaves them out (supabase/dashboard.sql, "source").
  const loop = data.range.source !== 'gateway';

  const tiles = `<section class="tiles" aria-label="Totals">${[
    tile('tool calls', String(t.calls), loop ? `${t.turns} turns` : undefined),
    tile('hallucination rate', pct(t.hallucinationRate), `${t.hallucinated} calls`),
    tile('repaired', pct(t.repairRate), `${t.repaired} calls`),
    tile('blocked', String(t.blocked)),
    loop && tile('repeated failures', String(t.repeatedFailures), `in ${t.repeatedFailureTurns} ${t.repeatedFailureTurns === 1 ? 'turn' : 'turns'}`),
    loop && tile('forced summaries', pct(t.forcedSummaryRate), `of turns; ${t.noProgress} for no progress`),
    tile(
      'cost of failures',
      pct(fc.share),
      `of all tokens: ${tokens(fc.promptTokens + fc.completionTokens)} in ${fc.wastedModelCalls} wasted model calls, ${seconds(fc.ms)}`,
    ),
    loop && tile('avg iterations', t.avgIterations.toFixed(1), `${pct(t.abortedRate)} aborted, ${t.interrupted} interrupted`),
    loop &&
      tile(
        'approvals requested',
        String(ap.requested),
        `${pct(ap.approvalRate)} approved; median ${ap.medianDecisionMs === null ? '–' : seconds(ap.medianDecisionMs)} to a decision`,
      ),
  ]
    .filter(Boolean)
    .join('')}</section>${
    loop
      ? ''
      : '<p class="muted source-note">Apps behind the gateway: turns, iterations, forced summaries and approvals are the agent loop\'s, and left out here.</p>'
  }`;

  const rateOptions = {
    title: 'Hallucination rate by model',
    formatX: (x: string) => bucketLabel(x, unit),
    domain: timeDomain(data),
    volume: callVolume(data),
  };
  const bars = (items: Bar[], options: BarChartOptions) => responsive(barChart(items, options), barChart(items, { ...options, width: 330, labelWidth: 125 }));

  const rates = figure({
    id: 'rates',
    title: 'Hallucination rate over time',
    body: responsive(
      // About the width the full-width card is drawn at, so text stays near its nominal size.
      lineChart(ratesSeries(data), { ...rateOptions, width: 960, height: 250 }),
      lineChart(ratesSeries(data), { ...rateOptions, width: 360, height: 230, maxLabels: 3 }),
    ),
    note: `Per ${unit}, per model: calls the model got wrong (anything but valid or an execution error).`,
  });

  const categories = figure({
    id: 'categories',
    title: 'What went wrong',
    body: bars(
      data.categories
        .filter((c) => c.category !== 'valid')
        .map((c) => ({
          label: c.category.replaceAll('_', ' '),
          value: c.count,
          tone: c.category === 'execution_error' ? ('warn' as const) : ('bad' as const),
        })),
      { title: 'Calls by category' },
    ),
    note: 'Call categories other than valid. Repeated failure: a call that failed as an earlier one in its turn did; the 2nd is shown the schema, the 3rd loses the tool for the turn.',
  });

  const phantoms = figure({
    id: 'phantom-tools',
    title: 'Top phantom tools',
    body: bars(
      data.phantomTools.map((p) => ({ label: p.name, value: p.count, tone: 'accent' as const })),
      { title: 'Phantom tools' },
    ),
    note: 'Tools the model called that do not exist.',
  });

  const invented = figure({
    id: 'invented-params',
    title: 'Invented parameters',
    body: bars(
      data.inventedParams.map((p) => ({
        label: `${p.tool}.${p.param}`,
        value: p.count,
        tone: p.candidate ? ('accent' as const) : undefined,
        display: p.candidate ? `${p.count} ★` : String(p.count),
        note: p.candidate ? 'feature request candidate' : undefined,
      })),
      { title: 'Invented parameters' },
    ),
    note: 'Parameters models keep sending that tools do not declare. ★ = asked for 5 or more times: a feature request.',
  });

  const recovery = figure({
    id: 'recovery',
    title: 'Recovery',
    body: `<div class="meters">${[
      meter(sc.rateFirst, { label: 'Self-corrected on first retry', detail: `${sc.correctedFirstRetry} of ${sc.blocked} blocked` }),
      meter(sc.rateSecond, { label: 'Self-corrected by second retry', detail: `${sc.correctedSecondRetry} of ${sc.blocked} blocked` }),
      meter(t.repairRate, { label: 'Repaired by the gate', detail: `${t.repaired} of ${t.calls} calls` }),
      loop && meter(t.forcedSummaryRate, { label: 'Forced summaries', detail: `of ${t.turns} turns`, goodWhenHigh: false }),
    ]
      .filter((svg) => svg !== false)
      .map((svg, i) => `<div class="meter-cell">${svg}<div class="meter-label">${esc(METER_LABELS[i] ?? '')}</div></div>`)
      .join('')}</div>`,
    note: `After a blocked call, how often the model fixed it itself; how often the gate repaired a call${loop ? '; how often a turn ran out of budget' : ''}.`,
  });

  const byTool = figure({
    id: 'by-tool',
    title: 'Hallucination rate by tool',
    body: bars(
      data.byTool.map((b) => ({ label: b.tool, value: b.rate, display: `${pct(b.rate)} of ${b.calls}`, tone: 'bad' as const })),
      { title: 'Hallucination rate by tool', max: 1, limit: 12 },
    ),
  });

  // Only where some calls went to MCP servers: an app without MCP_SERVERS has one group, its own tools.
  const byServer = data.byServer.some((s) => s.server !== null)
    ? figure({
        id: 'by-server',
        title: 'Hallucination rate by MCP server',
        body: bars(
          data.byServer.map((s) => ({
            label: s.server ?? 'own tools',
            value: s.rate,
            display: `${pct(s.rate)} of ${s.calls}, ${s.blocked} blocked`,
            tone: 'bad' as const,
          })),
          { title: 'Hallucination rate by MCP server', max: 1, limit: 12 },
        ),
        note: "Calls grouped by where their tool lives: an MCP server (MCP_SERVERS) or this app (own tools). A blocked name with a server's prefix counts for that server.",
      })
    : '';

  const costBars = (groups: FailureCostGroup[], category = false) =>
    groups.map((g) => ({
      label: category ? g.key.replaceAll('_', ' ') : g.key,
      value: g.promptTokens + g.completionTokens,
      display: `${tokens(g.promptTokens + g.completionTokens)} · ${pct(g.share)} · ${seconds(g.ms)}`,
      note: `${g.calls} calls; ${g.promptTokens} prompt + ${g.completionTokens} completion tokens`,
      tone: 'bad' as const,
    }));
  const cost = figure({
    id: 'failure-cost',
    title: 'What failures cost',
    body: `<div class="cost-grid">${[
      `<h3 class="muted">by model</h3>${bars(costBars(fc.byModel), { title: 'Wasted tokens by model', limit: 8 })}`,
      `<h3 class="muted">by category</h3>${bars(costBars(fc.byCategory, true), { title: 'Wasted tokens by category', limit: 8 })}`,
      `<h3 class="muted">by tool</h3>${bars(costBars(fc.byTool), { title: 'Wasted tokens by tool', limit: 8 })}`,
    ].join('')}</div>`,
    note: `A model call is wasted when every tool call it proposed failed (blocked, withheld, denied or errored) and it gave no answer text. Its tokens and time, by model, category and tool: tokens · share of all ${tokens(fc.totalTokens)} tokens · time.`,
  });

  // Only where some call was sent to a person (APPROVAL_TOOLS, needsApproval).
  const approvals =
    loop && ap.requested > 0
      ? figure({
          id: 'approvals',
          title: 'Human approval',
          body: `<p class="approval-counts">${esc(
            `${ap.requested} asked: ${ap.approved} approved, ${ap.denied} denied, ${ap.expired} expired, ${ap.pending} waiting`,
          )}</p>${bars(
            ap.deniedByTool.map((d) => ({ label: d.tool, value: d.denied, display: `${d.denied} of ${d.requested}`, tone: 'warn' as const })),
            { title: 'Denials by tool', limit: 12 },
          )}`,
          note: `Calls that waited for a person's yes. Approval rate ${pct(ap.approvalRate)} of the decided and expired; median time to a decision ${
            ap.medianDecisionMs === null ? '–' : seconds(ap.medianDecisionMs)
          }. Denials by tool: denied of asked. A denial is not a hallucination.`,
        })
      : '';

  // Only where an MCP server asked the person something (elicitation).
  const q = data.questions;
  const questions =
    loop && q && q.asked > 0
      ? figure({
          id: 'questions',
          title: 'Questions from MCP servers',
          body: `<p class="approval-counts">${esc(`${q.asked} asked: ${q.answered} answered, ${q.declined} declined, ${q.expired} expired, ${q.pending} waiting`)}</p>`,
          note: 'A server asked the person before its tool ran (elicitation); the turn waited as for an approval. Declined counts decline and cancel.',
        })
      : '';

  return `${tiles}<div class="grid">${rates}${categories}${phantoms}${invented}${recovery}${byTool}${byServer}${approvals}${questions}${cost}</div>`;
}

/** 12,345 tokens as "12.3k". */
function tokens(n: number): string {
  return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1_000 ? `${(n / 1_000).toFixed(1)}k` : String(n);
}

function seconds(ms: number): string {
  return ms >= 1_000 ? `${(ms / 1_000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

const METER_LABELS = ['self-corrected, 1st retry', 'self-corrected, 2nd retry', 'repair rate', 'forced-summary rate'];
