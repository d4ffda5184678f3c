import { describe, expect, it } from 'vitest';
import type { DashboardData } from '../dashboard/types.ts';
import { renderDashboard } from './dashboard-view.ts';

function data(repeatedFailures: number, repeatedFailureTurns: number): DashboardData {
  return {
    range: { from: '2025-03-01T00:00:00.000Z', to: '2025-03-02T00:00:00.000Z', bucket: 'day' },
    totals: {
      calls: 10,
      hallucinated: 4,
      hallucinationRate: 0.4,
      repaired: 1,
      repairRate: 0.1,
      blocked: 3,
      repeatedFailures,
      repeatedFailureTurns,
      turns: 2,
      forcedSummaryRate: 0,
      abortedRate: 0,
      interrupted: 0,
      interruptedRate: 0,
      noProgress: 1,
      avgIterations: 3,
    },
    ratesOverTime: [],
    byTool: [],
    byServer: [],
    categories: [
      { category: 'missing_required', count: 1 },
      { category: 'repeated_failure', count: repeatedFailures },
    ],
    phantomTools: [],
    inventedParams: [],
    selfCorrection: { blocked: 3, correctedFirstRetry: 0, correctedSecondRetry: 0, rateFirst: 0, rateSecond: 0 },
    approvals: { requested: 0, approved: 0, denied: 0, expired: 0, pending: 0, approvalRate: 0, medianDecisionMs: null, deniedByTool: [] },
    questions: { asked: 0, answered: 0, declined: 0, expired: 0, pending: 0 },
    failureCost: {
      wastedModelCalls: 3,
      promptTokens: 2400,
      completionTokens: 60,
      ms: 1500,
      totalTokens: 9840,
      share: 0.25,
      byModel: [{ key: 'stubborn', calls: 3, promptTokens: 2400, completionTokens: 60, ms: 1500, share: 0.25 }],
      byCategory: [
        { key: 'phantom_tool', calls: 1, promptTokens: 400, completionTokens: 20, ms: 500, share: 420 / 9840 },
        { key: 'repeated_failure', calls: 2, promptTokens: 2000, completionTokens: 40, ms: 1000, share: 2040 / 9840 },
      ],
      byTool: [{ key: 'update_customer_profile', calls: 3, promptTokens: 2400, completionTokens: 60, ms: 1500, share: 0.25 }],
    },
  };
}

const tile = (html: string, label: string) =>
  html
    .match(new RegExp(`<div class="tile-value">([^<]*)</div><div class="tile-label">${label}</div>(?:<div class="tile-detail">([^<]*)</div>)?`))
    ?.slice(1)
    .filter((part) => part !== undefined);

describe('renderDashboard', () => {
  it('shows repeated failures as a tile and as a category', () => {
    expect(tile(renderDashboard(data(3, 2)), 'repeated failures')).toEqual(['3', 'in 2 turns']);
    expect(tile(renderDashboard(data(1, 1)), 'repeated failures')).toEqual(['1', 'in 1 turn']);
    const categories = renderDashboard(data(3, 2)).match(/<figure class="card" id="categories">[\s\S]*?<\/figure>/)![0];
    expect(categories).toContain('repeated failure');
    expect(categories).toContain('the 3rd loses the tool');
  });

  it('groups calls by MCP server only when some went to one', () => {
    expect(renderDashboard({ ...data(0, 0), byServer: [{ server: null, calls: 10, hallucinated: 4, rate: 0.4, blocked: 3 }] })).not.toContain('id="by-server"');
    const html = renderDashboard({
      ...data(0, 0),
      byServer: [
        { server: null, calls: 6, hallucinated: 2, rate: 2 / 6, blocked: 1 },
        { server: 'crm', calls: 4, hallucinated: 2, rate: 0.5, blocked: 2 },
      ],
    });
    const figure = html.match(/<figure class="card" id="by-server">[\s\S]*?<\/figure>/)![0];
    expect(figure).toContain('crm');
    expect(figure).toContain('own tools');
    expect(figure).toContain('50% of 4, 2 blocked');
  });
  it('shows what failures cost: the share of all tokens in a tile, tokens, share and time by model, category and tool', () => {
    const html = renderDashboard(data(2, 1));
    expect(tile(html, 'cost of failures')).toEqual(['25%', 'of all tokens: 2.5k in 3 wasted model calls, 1.5 s']);
    const figure = html.slice(html.indexOf('id="failure-cost"'));
    for (const label of ['stubborn', 'phantom tool', 'repeated failure', 'update_customer_profile']) expect(figure).toContain(label);
    expect(figure).toContain('2.0k · 21% · 1.0 s');
    expect(tile(html, 'forced summaries')?.[1]).toBe('of turns; 1 for no progress');
  });

  it('shows approvals: a tile always, the figure with denials by tool only when some call was sent to a person', () => {
    const none = renderDashboard(data(0, 0));
    expect(tile(none, 'approvals requested')).toEqual(['0', '0% approved; median – to a decision']);
    expect(none).not.toContain('id="approvals"');
    const html = renderDashboard({
      ...data(0, 0),
      approvals: {
        requested: 5,
        approved: 2,
        denied: 2,
        expired: 1,
        pending: 0,
        approvalRate: 0.4,
        medianDecisionMs: 42_000,
        deniedByTool: [
          { tool: 'delete_file', denied: 2, requested: 3 },
          { tool: '<b>x</b>', denied: 0, requested: 1 },
        ],
      },
    });
    expect(tile(html, 'approvals requested')).toEqual(['5', '40% approved; median 42.0 s to a decision']);
    const figure = html.match(/<figure class="card" id="approvals">[\s\S]*?<\/figure>/)![0];
    expect(figure).toContain('5 asked: 2 approved, 2 denied, 1 expired, 0 waiting');
    expect(figure).toContain('delete_file');
    expect(figure).toContain('2 of 3');
    expect(figure).not.toContain('<b>x</b>');
  });
  it('shows the MCP servers’ questions beside the approvals, only when one was asked', () => {
    expect(renderDashboard(data(0, 0))).not.toContain('id="questions"');
    const html = renderDashboard({ ...data(0, 0), questions: { asked: 3, answered: 1, declined: 1, expired: 1, pending: 0 } });
    const figure = html.match(/<figure class="card" id="questions">[\s\S]*?<\/figure>/)![0];
    expect(figure).toContain('3 asked: 1 answered, 1 declined, 1 expired, 0 waiting');
  });
  it("the apps behind the gateway: the agent loop's tiles and meter are left out, not shown as zeros, and a note says so", () => {
    const both = renderDashboard(data(2, 1));
    const gateway = renderDashboard({ ...data(0, 0), range: { ...data(0, 0).range, source: 'gateway' } });
    for (const label of ['avg iterations', 'approvals requested', 'forced summaries', 'repeated failures']) {
      expect(tile(both, label), label).toBeDefined();
      expect(tile(gateway, label), label).toBeUndefined();
    }
    expect(tile(both, 'tool calls')).toEqual(['10', '2 turns']);
    expect(tile(gateway, 'tool calls')).toEqual(['10']);
    expect(tile(gateway, 'blocked')).toEqual(['3']);
    expect(gateway).toContain("turns, iterations, forced summaries and approvals are the agent loop's, and left out here");
    expect(gateway).not.toContain('Forced summaries');
    expect(both).toContain('Forced summaries');
    expect(renderDashboard({ ...data(0, 0), range: { ...data(0, 0).range, source: 'loop' } })).not.toContain('left out here');
    const asked = { ...data(0, 0).approvals, requested: 2, approved: 1, denied: 1 };
    expect(renderDashboard({ ...data(0, 0), approvals: asked })).toContain('id="approvals"');
    expect(renderDashboard({ ...data(0, 0), approvals: asked, range: { ...data(0, 0).range, source: 'gateway' } })).not.toContain('id="approvals"');
  });
});
