import { describe, expect, it } from 'vitest';
import { buildPathIndex, gate, type ProposedCall, type ToolSpec } from 'rebound-gate';
import type { ToolResultPayload } from '../vocabulary.ts';
import { activityRow } from './activity-row.ts';
import { boundedResult, MAX_RESULT_CHARS } from './bounded-result.ts';
import { toolMessage, toolResultEvent, type CallOutcome } from './call-outcome.ts';
import type { BlockedVerdict, Execution, PassedVerdict } from './types.ts';
import { LoopBreaker } from '../loop/loop-breaker.ts';

const echo: ToolSpec = {
  name: 'echo',
  parameters: { type: 'object', properties: { text: { type: 'string' }, times: { type: 'integer' } }, required: ['text'] },
};
const read: ToolSpec = {
  name: 'read_file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  pathParams: ['path'],
};
const tools = [echo, read];
const ctx = { turnId: 't1', sessionId: 's1', userId: null, iteration: 2, model: 'm' };

const proposed = (name: string, args: string): ProposedCall => ({ id: `call_${name}`, name, arguments: args });
function blocked(call: ProposedCall, context = {}): BlockedVerdict {
  const v = gate(call, tools, context);
  if (v.verdict !== 'blocked') throw new Error(`expected ${call.name} to be blocked`);
  return v;
}
function passed(call: ProposedCall): PassedVerdict {
  const v = gate(call, tools);
  if (v.verdict === 'blocked') throw new Error(`expected ${call.name} to pass: ${v.message}`);
  return v;
}
const ran = (result: unknown): Execution => ({ ok: true, ...boundedResult(result, JSON.stringify(result)) });
const threw: Execution = {
  ok: false,
  error: 'echo failed: disk on fire',
  hint: 'Read the error, correct the arguments and call the tool again.',
  timedOut: false,
};

/** The three views of one outcome, the tool message parsed. */
function views(outcome: CallOutcome) {
  const message = toolMessage(outcome);
  return { event: toolResultEvent(outcome).data, payload: JSON.parse(message.content) as ToolResultPayload, message, row: activityRow(ctx, outcome) };
}

describe('CallOutcome', () => {
  it('a call the gate blocked: the error and suggestions to the model, the client and the row alike', () => {
    const call = proposed('fly_to_moon', '{"text": "hi"}');
    const verdict = blocked(call);
    const { event, payload, message, row } = views({ kind: 'blocked', call, verdict, escalation: null, durationMs: 3.4 });
    expect(message.tool_call_id).toBe(call.id);
    const { suggestions } = verdict;
    expect(payload).toEqual({ ok: false, error: verdict.message, suggestions });
    expect(event).toEqual({
      id: call.id,
      name: 'fly_to_moon',
      verdict: 'blocked',
      category: 'phantom_tool',
      ok: false,
      error: verdict.message,
      suggestions,
      durationMs: 3,
    });
    expect(row).toMatchObject({
      call_id: call.id,
      tool_requested: 'fly_to_moon',
      tool_resolved: null,
      verdict: 'blocked',
      category: 'phantom_tool',
      error: verdict.message,
      suggestions,
      duration_ms: 3,
      iteration: 2,
      source: 'loop',
    });
  });

  it('a path that does not exist: the model also gets the nearest folder listing', () => {
    const call = proposed('read_file', '{"path": "src/utlis/a.ts"}');
    const verdict = blocked(call, { paths: buildPathIndex(['src/utils/a.ts', 'src/main.ts']) });
    const { payload } = views({ kind: 'blocked', call, verdict, escalation: null, durationMs: 1 });
    expect(payload).toMatchObject({ ok: false, suggestions: ['src/utils/a.ts'], listing: verdict.listing });
    expect(verdict.listing).toBeDefined();
  });

  it('a blocked call repeated: the note after the error, the schema and an example, category repeated_failure', () => {
    const call = proposed('echo', '{"times": 2}');
    const verdict = blocked(call);
    const breaker = new LoopBreaker(tools);
    breaker.failed({ tool: 'echo', category: verdict.category, args: call.arguments });
    const escalation = breaker.failed({ tool: 'echo', category: verdict.category, args: call.arguments })!;
    const { event, payload, row } = views({ kind: 'blocked', call, verdict, escalation, durationMs: 1 });
    expect(payload).toEqual({
      ok: false,
      error: `${verdict.message}\n${escalation.note}`,
      suggestions: verdict.suggestions,
      schema: echo.parameters,
      example: { text: 'example' },
    });
    expect(event).toMatchObject({ category: 'repeated_failure', error: `${verdict.message}\n${escalation.note}` });
    expect(row.category).toBe('repeated_failure');
    expect(row.problems.at(-1)).toMatch(/^\$: the same call failed with missing_required 2 times in this turn; the schema and an example were sent$/);
  });

  it('a call to a withheld tool: refused, the same words everywhere', () => {
    const call = proposed('echo', '{"text": "again"}');
    const refusal = 'Tool "echo" was not executed: it was withheld for the rest of this turn.';
    const { event, payload, row } = views({ kind: 'withheld', call, refusal, durationMs: 0.2 });
    expect(payload).toEqual({ ok: false, error: refusal });
    expect(event).toEqual({
      id: call.id,
      name: 'echo',
      verdict: 'blocked',
      category: 'repeated_failure',
      ok: false,
      error: refusal,
      suggestions: [],
      durationMs: 0,
    });
    expect(row).toMatchObject({ verdict: 'blocked', category: 'repeated_failure', tool_resolved: null, error: refusal });
  });

  it('a call that ran: {ok: true, result} to the model, the value to the client, no error in the row', () => {
    const call = proposed('echo', '{"text": "hi", "times": "2"}');
    const verdict = passed(call);
    const { event, payload, message, row } = views({ kind: 'executed', call, verdict, execution: ran({ echoed: 'hi' }), escalation: null, durationMs: 5 });
    expect(payload).toEqual({ ok: true, result: { echoed: 'hi' } });
    expect(message.content).toBe('{"ok":true,"result":{"echoed":"hi"}}');
    expect(event).toEqual({
      id: call.id,
      name: 'echo',
      verdict: 'repaired',
      category: 'wrong_type',
      ok: true,
      result: { echoed: 'hi' },
      repairs: verdict.verdict === 'repaired' ? verdict.repairs : [],
      durationMs: 5,
    });
    expect(row).toMatchObject({ tool_resolved: 'echo', verdict: 'repaired', category: 'wrong_type', error: null });
  });

  it('a text result is a JSON string in the payload, read back unchanged', () => {
    const call = proposed('echo', '{"text": "hi"}');
    const text = 'line 1\n\tline "2" \u0000 \ud800 {';
    const { payload } = views({ kind: 'executed', call, verdict: passed(call), execution: ran(text), escalation: null, durationMs: 1 });
    expect(payload).toEqual({ ok: true, result: text });
  });

  it('a call that ran and failed: error and hint, an execution error unless the gate repaired it', () => {
    const call = proposed('echo', '{"text": "hi"}');
    const { event, payload, row } = views({ kind: 'executed', call, verdict: passed(call), execution: threw, escalation: null, durationMs: 1 });
    expect(payload).toEqual({ ok: false, error: threw.error, hint: threw.hint });
    expect(event).toMatchObject({ verdict: 'pass', category: 'execution_error', ok: false, error: threw.error });
    expect(event).not.toHaveProperty('result');
    expect(row).toMatchObject({ verdict: 'pass', category: 'execution_error', error: threw.error });

    const repairedCall = proposed('echo', '{"text": "hi", "times": "2"}');
    expect(views({ kind: 'executed', call: repairedCall, verdict: passed(repairedCall), execution: threw, escalation: null, durationMs: 1 }).row.category).toBe(
      'wrong_type',
    );
  });

  it('a failed run repeated: the escalation replaces the hint, its note follows the error for the client and the row', () => {
    const call = proposed('echo', '{"text": "hi"}');
    const verdict = passed(call);
    const breaker = new LoopBreaker(tools);
    breaker.failed({ tool: 'echo', category: 'execution_error', args: { text: 'hi' } });
    const escalation = breaker.failed({ tool: 'echo', category: 'execution_error', args: { text: 'hi' } })!;
    const { event, payload, row } = views({ kind: 'executed', call, verdict, execution: threw, escalation, durationMs: 1 });
    expect(payload).toEqual({ ok: false, error: threw.error, hint: escalation.note, schema: echo.parameters, example: { text: 'example' } });
    expect(event).toMatchObject({ category: 'repeated_failure', error: `${threw.error}\n${escalation.note}` });
    expect(row).toMatchObject({ category: 'repeated_failure', error: `${threw.error}\n${escalation.note}` });
    expect(row.problems).toEqual([expect.stringMatching(/failed with execution_error 2 times/)]);
  });

  it('a result too long for the model is cut to a string that says so, within the cap however much it escapes', () => {
    const call = proposed('echo', '{"text": "hi"}');
    for (const result of [{ lines: Array.from({ length: 5_000 }, (_, i) => `line ${i}`) }, '\u0001'.repeat(60_000), 'é'.repeat(45_000)]) {
      const execution = ran(result);
      const { payload, message, event } = views({ kind: 'executed', call, verdict: passed(call), execution, escalation: null, durationMs: 1 });
      expect(message.content.length).toBeLessThanOrEqual(MAX_RESULT_CHARS + 200);
      if (payload.ok !== true) throw new Error('expected ok');
      expect(typeof payload.result).toBe('string');
      const whole = JSON.stringify(result);
      expect(whole.startsWith(payload.result as string)).toBe(true);
      expect(payload.truncated).toMatch(new RegExp(`^the result is ${whole.length} characters of JSON; only the first \\d+ are shown$`));
      // The client gets what the model got, with the original length: not the whole value (issue 18).
      expect(event.result).toBe(payload.result);
      expect(event.truncated).toBe(payload.truncated);
    }
  });
});
