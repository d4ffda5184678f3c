import { describe, expect, it } from 'vitest';
import type { FileDiff } from '../vocabulary.ts';
import { takeDiffs, withDiffs } from './diffs.ts';

const diff: FileDiff = { path: 'a.ts', change: 'modified', added: 1, removed: 1, hunks: '@@ -1 +1 @@\n-a\n+b' };

describe('diffs beside a result', () => {
  it('round-trips: the model gets the result without them, the page gets them', () => {
    const result = withDiffs({ path: 'a.ts', line: 1 }, [diff]);
    expect(takeDiffs(result)).toEqual({ result: { path: 'a.ts', line: 1 }, diffs: [diff] });
  });

  it('adds nothing for no diffs, and leaves results without them (or not objects) as they are', () => {
    expect(withDiffs({ path: 'a.ts' }, [])).toEqual({ path: 'a.ts' });
    const plain = { path: 'a.ts' };
    expect(takeDiffs(plain).result).toBe(plain);
    expect(takeDiffs('text')).toEqual({ result: 'text', diffs: null });
    expect(takeDiffs([1, 2])).toEqual({ result: [1, 2], diffs: null });
    expect(takeDiffs({ path: 'a.ts', _diffs: 'not a list' })).toEqual({ result: { path: 'a.ts' }, diffs: null });
  });
});

describe('a write through the loop', () => {
  it('the tool_result event carries the diff and the model’s tool message does not', async () => {
    const { executeTool } = await import('../loop/execute.ts');
    const { toolMessage, toolResultEvent } = await import('../calls/call-outcome.ts');
    const { gate } = await import('rebound-gate');
    const { makeContext, tool } = await import('../../functions/testing.ts');
    const writeFile = tool('write_file');
    const call = { id: 'c1', name: 'write_file', arguments: '{"path":"a.txt","content":"hi\\n"}' };
    const verdict = gate(call, [writeFile]);
    if (verdict.verdict === 'blocked') throw new Error(verdict.message);
    const { signal: _, ...ctx } = makeContext();
    const execution = await executeTool(writeFile, verdict.call.args, ctx, { timeoutMs: 5_000, signal: new AbortController().signal });
    const outcome = { kind: 'executed' as const, call, verdict, execution, escalation: null, durationMs: 1 };
    const event = toolResultEvent(outcome).data;
    expect(event.diffs).toEqual([{ path: 'a.txt', change: 'created', added: 1, removed: 0, hunks: '@@ -0,0 +1 @@\n+hi' }]);
    expect(event.result).toEqual({ path: 'a.txt', action: 'created', size: 3, encoding: 'utf-8', total_lines: 1 });
    expect(toolMessage(outcome).content).toBe('{"ok":true,"result":{"path":"a.txt","action":"created","size":3,"encoding":"utf-8","total_lines":1}}');
  });
});
