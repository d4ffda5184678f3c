import { describe, expect, it } from 'vitest';
import type { TurnEvent } from '../../vocabulary.ts';
import { allChunkErrors, assemble, parseUiStream } from '../../../test/support/ui-chunks.ts';
import type { UiChunk } from './chunks.ts';
import { UiMessageStreamMapper, uiFrames, uiMessageStreamFormat } from './mapper.ts';

const usage = { promptTokens: 300, completionTokens: 60 };
const start: TurnEvent = { event: 'turn_start', data: { turnId: 't1', sessionId: 's1', model: 'scripted-1', demo: false } };
const text = (t: string): TurnEvent => ({ event: 'text_delta', data: { text: t } });
const call = (id: string, name: string, args: string, iteration: number): TurnEvent => ({ event: 'tool_call', data: { id, name, arguments: args, iteration } });
const done = (reason: 'completed' | 'aborted' | 'iteration_limit' | 'no_progress' | 'error' | 'interrupted', iterations = 3): TurnEvent => ({
  event: 'done',
  data: { reason, iterations, usage },
});
const repairs = [{ kind: 'coerce', path: '$.max_lines', from: '"50"', to: '50', category: 'wrong_type' as const }];

/** A turn with a blocked call, a repaired one and a failing one in the next model call, text before and after. */
const turn: TurnEvent[] = [
  start,
  text('Let me '),
  text('look.'),
  call('c1', 'read_file', '{"path":"src/parsr.ts"}', 1),
  {
    event: 'tool_result',
    data: {
      id: 'c1',
      name: 'read_file',
      verdict: 'blocked',
      category: 'invalid_path',
      ok: false,
      error: 'src/parsr.ts does not exist. Did you mean src/parser.ts?',
      suggestions: ['src/parser.ts'],
      durationMs: 1,
    },
  },
  call('c2', 'read_file', '{"path":"src/parser.ts","max_lines":"50"}', 2),
  {
    event: 'tool_result',
    data: { id: 'c2', name: 'read_file', verdict: 'repaired', category: 'wrong_type', ok: true, result: { content: 'x' }, repairs, durationMs: 2 },
  },
  call('c3', 'run_tests', '{}', 2),
  {
    event: 'tool_result',
    data: { id: 'c3', name: 'run_tests', verdict: 'pass', category: 'execution_error', ok: false, error: 'tests failed: 2 of 9', durationMs: 5 },
  },
  text('Fixed.'),
  done('completed'),
];

function mapAll(events: TurnEvent[]): UiChunk[] {
  const mapper = new UiMessageStreamMapper();
  return events.flatMap((e) => mapper.map(e));
}

describe('UiMessageStreamMapper', () => {
  it('maps a turn to chunks every client accepts: steps per model call, text parts, tool parts and verdicts', async () => {
    const chunks = mapAll(turn);
    expect(await allChunkErrors(chunks)).toEqual([]);
    expect(chunks.map((c) => c.type)).toEqual([
      'start',
      'start-step',
      'text-start',
      'text-delta',
      'text-delta',
      'text-end',
      'tool-input-start',
      'tool-input-available',
      'tool-input-error',
      'data-rebound-verdict',
      'finish-step',
      'start-step',
      'tool-input-start',
      'tool-input-available',
      'tool-output-available',
      'data-rebound-verdict',
      'tool-input-start',
      'tool-input-available',
      'tool-output-error',
      'data-rebound-verdict',
      'finish-step',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'finish-step',
      'finish',
    ]);
    expect(chunks[0]).toEqual({ type: 'start', messageId: 't1', messageMetadata: { turnId: 't1', sessionId: 's1', model: 'scripted-1', demo: false } });
    expect(chunks.find((c) => c.type === 'tool-input-available')).toEqual({
      type: 'tool-input-available',
      toolCallId: 'c1',
      toolName: 'read_file',
      input: { path: 'src/parsr.ts' },
      dynamic: true,
      providerExecuted: true,
    });
    expect(chunks.at(-1)).toEqual({ type: 'finish', messageMetadata: { reason: 'completed', iterations: 3, usage } });
  });

  it("assembles, with ai's own readUIMessageStream, into the message a useChat app renders", async () => {
    const { message, errors } = await assemble(mapAll(turn) as never);
    expect(errors).toEqual([]);
    expect(message!.id).toBe('t1');
    expect(message!.metadata).toEqual({ turnId: 't1', sessionId: 's1', model: 'scripted-1', demo: false, reason: 'completed', iterations: 3, usage });
    const parts = message!.parts as Array<Record<string, unknown>>;
    expect(parts.map((p) => (p.type === 'dynamic-tool' ? `tool:${p.toolCallId}:${p.state}` : p.type))).toEqual([
      'step-start',
      'text',
      'tool:c1:output-error',
      'data-rebound-verdict',
      'step-start',
      'tool:c2:output-available',
      'data-rebound-verdict',
      'tool:c3:output-error',
      'data-rebound-verdict',
      'step-start',
      'text',
    ]);
    expect(parts.filter((p) => p.type === 'text').map((p) => p.text)).toEqual(['Let me look.', 'Fixed.']);
    const tool = (id: string) => parts.find((p) => p.toolCallId === id)!;
    expect(tool('c1')).toMatchObject({
      toolName: 'read_file',
      input: { path: 'src/parsr.ts' },
      errorText: 'src/parsr.ts does not exist. Did you mean src/parser.ts?',
    });
    expect(tool('c2')).toMatchObject({ input: { path: 'src/parser.ts', max_lines: '50' }, output: { content: 'x' } });
    expect(tool('c3')).toMatchObject({ toolName: 'run_tests', errorText: 'tests failed: 2 of 9' });
    expect(parts.filter((p) => p.type === 'data-rebound-verdict').map((p) => p.data)).toEqual([
      { toolCallId: 'c1', toolName: 'read_file', verdict: 'blocked', category: 'invalid_path', repairs: [], suggestions: ['src/parser.ts'] },
      { toolCallId: 'c2', toolName: 'read_file', verdict: 'repaired', category: 'wrong_type', repairs },
      { toolCallId: 'c3', toolName: 'run_tests', verdict: 'pass', category: 'execution_error', repairs: [] },
    ]);
  });

  it('carries no_progress in the forced-summary data part and the finish metadata', async () => {
    const chunks = mapAll([start, { event: 'forced_summary', data: { reason: 'no_progress' } }, text('Summary.'), done('no_progress', 3)]);
    expect(await allChunkErrors(chunks)).toEqual([]);
    expect(chunks.find((c) => c.type === 'data-rebound-forced-summary')).toEqual({
      type: 'data-rebound-forced-summary',
      data: { reason: 'no_progress' },
      transient: true,
    });
    expect(chunks.at(-1)).toEqual({ type: 'finish', messageMetadata: { reason: 'no_progress', iterations: 3, usage } });
  });

  it('announces the forced summary (transient, kept out of the message) before the summary text, in a step of its own', async () => {
    const chunks = mapAll([
      start,
      call('c1', 'list_files', '{}', 1),
      { event: 'tool_result', data: { id: 'c1', name: 'list_files', verdict: 'pass', category: 'valid', ok: true, result: [], durationMs: 1 } },
      { event: 'forced_summary', data: { reason: 'iteration_limit' } },
      text('Summary.'),
      done('iteration_limit', 1),
    ]);
    expect(await allChunkErrors(chunks)).toEqual([]);
    const types = chunks.map((c) => c.type);
    expect(types.slice(types.indexOf('data-rebound-verdict') + 1)).toEqual([
      'finish-step',
      'data-rebound-forced-summary',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'finish-step',
      'finish',
    ]);
    expect(chunks.find((c) => c.type === 'data-rebound-forced-summary')).toEqual({
      type: 'data-rebound-forced-summary',
      data: { reason: 'iteration_limit' },
      transient: true,
    });
    const { message } = await assemble(chunks as never);
    expect(message!.parts.some((p) => p.type === 'data-rebound-forced-summary')).toBe(false);
    expect(message!.metadata).toMatchObject({ reason: 'iteration_limit' });
  });

  it('ends an aborted turn with its metadata and abort, not finish; an agent error is an error chunk', async () => {
    const aborted = mapAll([start, text('Half'), done('aborted', 1)]);
    expect(await allChunkErrors(aborted)).toEqual([]);
    expect(aborted.map((c) => c.type)).toEqual(['start', 'start-step', 'text-start', 'text-delta', 'text-end', 'finish-step', 'message-metadata', 'abort']);
    expect(aborted.at(-2)).toEqual({ type: 'message-metadata', messageMetadata: { reason: 'aborted', iterations: 1, usage } });

    const failed = mapAll([
      start,
      { event: 'agent_error', data: { message: 'The model could not answer: 503. Try again in a moment.', retryable: true } },
      done('error', 1),
    ]);
    expect(await allChunkErrors(failed)).toEqual([]);
    expect(failed.map((c) => c.type)).toEqual(['start', 'error', 'finish']);
    expect(failed[1]).toEqual({ type: 'error', errorText: 'The model could not answer: 503. Try again in a moment.' });
  });

  it('ends a turn a restart closed as interrupted with finish (its reason in the metadata), then [DONE]', async () => {
    const interrupted = mapAll([start, text('Half'), done('interrupted', 0)]);
    expect(await allChunkErrors(interrupted)).toEqual([]);
    expect(interrupted.at(-1)).toEqual({ type: 'finish', messageMetadata: { reason: 'interrupted', iterations: 0, usage } });
    expect(uiMessageStreamFormat().frame(done('interrupted', 0), 3)).toMatch(/"reason":"interrupted".*\n\ndata: \[DONE\]\n\n$/s);
  });

  it('keeps the raw text of a call whose arguments are not JSON, drops empty deltas, and shows a lone result with its call', async () => {
    const chunks = mapAll([
      start,
      text(''),
      call('c1', 'echo', '{"text": "cut', 1),
      {
        event: 'tool_result',
        data: { id: 'c1', name: 'echo', verdict: 'blocked', category: 'malformed_json', ok: false, error: 'not JSON', suggestions: [], durationMs: 0 },
      },
      { event: 'tool_result', data: { id: 'c9', name: 'echo', verdict: 'pass', category: 'valid', ok: true, result: 'ok', durationMs: 0 } },
    ]);
    expect(await allChunkErrors(chunks)).toEqual([]);
    expect(chunks.filter((c) => c.type === 'text-delta')).toEqual([]);
    expect(chunks.find((c) => c.type === 'tool-input-error')).toMatchObject({ input: '{"text": "cut' });
    const lone = chunks
      .filter((c) => ('toolCallId' in c ? c.toolCallId : 'data' in c && 'toolCallId' in c.data ? c.data.toolCallId : null) === 'c9')
      .map((c) => c.type);
    expect(lone).toEqual(['tool-input-start', 'tool-input-available', 'tool-output-available', 'data-rebound-verdict']);
  });
});

describe('uiFrames / uiMessageStreamFormat', () => {
  it('writes one data line per chunk, [DONE] after done, nothing for an event without chunks', () => {
    expect(uiFrames([{ type: 'start-step' }, { type: 'finish-step' }], false)).toBe('data: {"type":"start-step"}\n\ndata: {"type":"finish-step"}\n\n');
    expect(uiFrames([], true)).toBe('data: [DONE]\n\n');
    const format = uiMessageStreamFormat();
    expect(format.headers).toEqual({ 'x-vercel-ai-ui-message-stream': 'v1' });
    expect(format.frame(start, 1)).toMatch(/^data: \{"type":"start","messageId":"t1"/);
    expect(format.frame(text(''), 2)).toBe('');
    expect(format.frame(done('completed'), 3)).toBe(
      'data: {"type":"finish","messageMetadata":{"reason":"completed","iterations":3,"usage":{"promptTokens":300,"completionTokens":60}}}\n\ndata: [DONE]\n\n',
    );
  });
});

describe('a turn that waits for a person (approval)', () => {
  const diffs = [{ path: 'notes/draft.md', change: 'deleted' as const, added: 0, removed: 1, hunks: '@@ -1 +0,0 @@\n-# Draft' }];
  const asked: TurnEvent = {
    event: 'approval_required',
    data: {
      approvalId: 'apr_1',
      toolCallId: 'c1',
      name: 'delete_file',
      arguments: { path: 'notes/draft.md' },
      diffs,
      expiresAt: '2026-11-25T14:00:00.000Z',
    },
  };
  const paused: TurnEvent[] = [start, text('Deleting.'), call('c1', 'delete_file', '{"path":"notes/draft.md"}', 1), asked];
  const result = (approval: 'approved' | 'denied' | 'expired'): TurnEvent => ({
    event: 'tool_result',
    data:
      approval === 'approved'
        ? { id: 'c1', name: 'delete_file', verdict: 'pass', category: 'valid', ok: true, result: { deleted: ['notes/draft.md'] }, approval, durationMs: 1 }
        : { id: 'c1', name: 'delete_file', verdict: 'pass', category: 'valid', ok: false, error: `The call was ${approval}.`, approval, durationMs: 0 },
  });
  /** The frames one format writes for `events` (seq from 1), as chunks, and whether [DONE] ended them. */
  const framed = (events: TurnEvent[], control: Parameters<typeof uiMessageStreamFormat>[0]) => {
    const format = uiMessageStreamFormat(control);
    const text = events.map((e, i) => format.frame(e, i + 1)).join('');
    return { chunks: parseUiStream(text).chunks as unknown as UiChunk[], done: text.endsWith('data: [DONE]\n\n') };
  };

  it('asks with tool-approval-request (signed), the call as it will run and its diff, and finishes at the pause', async () => {
    const { chunks, done: ended } = framed(paused, { signatures: new Map([['apr_1', 'sig']]), pauseSeq: 4 });
    expect(await allChunkErrors(chunks)).toEqual([]);
    expect(ended).toBe(true);
    expect(chunks.slice(-4)).toEqual([
      {
        type: 'data-rebound-approval',
        id: 'approval-apr_1',
        data: {
          approvalId: 'apr_1',
          toolCallId: 'c1',
          toolName: 'delete_file',
          arguments: { path: 'notes/draft.md' },
          diffs,
          expiresAt: '2026-11-25T14:00:00.000Z',
        },
      },
      { type: 'tool-approval-request', approvalId: 'apr_1', toolCallId: 'c1', signature: 'sig' },
      { type: 'finish-step' },
      { type: 'finish' },
    ] as UiChunk[]);
    const { message, errors } = await assemble(chunks as never);
    expect(errors).toEqual([]);
    const tool = message!.parts.find((p) => p.type === 'dynamic-tool') as Record<string, any>;
    expect(tool).toMatchObject({
      toolCallId: 'c1',
      state: 'approval-requested',
      approval: { id: 'apr_1', signature: 'sig' },
      input: { path: 'notes/draft.md' },
    });
  });

  it('shows the repaired call the person decides on when the gate changed it', () => {
    const repaired = [start, call('c1', 'delete_fil', '{"path":"notes/draft.md"}', 1), asked];
    const { chunks } = framed(repaired, { signatures: new Map(), pauseSeq: 3 });
    expect(chunks.filter((c) => c.type === 'tool-input-available').map((c) => 'toolName' in c && c.toolName)).toEqual(['delete_fil', 'delete_file']);
    expect(chunks.find((c) => c.type === 'tool-approval-request')).toEqual({ type: 'tool-approval-request', approvalId: 'apr_1', toolCallId: 'c1' });
  });

  it('continues after the decision: nothing the client has, then start, the response and the output', async () => {
    const rest = [...paused, result('approved'), text('Done.'), done('completed', 2)];
    const { chunks } = framed(rest, { signatures: new Map(), pauseSeq: null, answered: new Set(['apr_1']) });
    expect(await allChunkErrors(chunks)).toEqual([]);
    expect(chunks.map((c) => c.type)).toEqual([
      'start',
      'start-step',
      'tool-approval-response',
      'tool-output-available',
      'data-rebound-verdict',
      'finish-step',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'finish-step',
      'finish',
    ]);
    expect(chunks[2]).toEqual({ type: 'tool-approval-response', approvalId: 'apr_1', approved: true });
    expect(chunks[4]).toMatchObject({ data: { toolCallId: 'c1', verdict: 'pass', approval: 'approved' } });
  });

  it('replays a decided approval whole (a reload after it): request, response, output-denied for a denial or an expiry', async () => {
    for (const decision of ['denied', 'expired'] as const) {
      const { chunks } = framed([...paused, result(decision), text('Left it.'), done('completed', 2)], { signatures: new Map(), pauseSeq: null });
      expect(await allChunkErrors(chunks)).toEqual([]);
      const types = chunks.map((c) => c.type);
      expect(types.slice(types.indexOf('tool-approval-request'), types.indexOf('data-rebound-verdict') + 1)).toEqual([
        'tool-approval-request',
        'tool-approval-response',
        'tool-output-denied',
        'data-rebound-verdict',
      ]);
      expect(chunks.find((c) => c.type === 'tool-approval-response')).toEqual({
        type: 'tool-approval-response',
        approvalId: 'apr_1',
        approved: false,
        reason: `The call was ${decision}.`,
      });
      const { message, errors } = await assemble(chunks as never);
      expect(errors).toEqual([]);
      expect(message!.parts.find((p) => p.type === 'dynamic-tool')).toMatchObject({ state: 'output-denied', approval: { id: 'apr_1', approved: false } });
    }
  });
});
