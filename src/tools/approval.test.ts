import { describe, expect, it } from 'vitest';
import { defineTool } from './define.ts';
import * as z from 'zod';
import { APPROVAL_ID, approvalNames, argumentsHash, needsApproval, newApprovalId } from './approval.ts';

const context = { scope: { userId: 'u', sessionId: 's', turnId: 't' } };

describe('approvalNames (APPROVAL_TOOLS)', () => {
  it('matches whole names, and * any run of characters', () => {
    const names = approvalNames(['write_file', 'crm__*', '*_delete']);
    expect(['write_file', 'crm__add_note', 'crm__', 'db_delete'].map(names)).toEqual([true, true, true, true]);
    expect(['write_file2', 'read_file', 'acrm__x', 'crm_add', 'delete'].map(names)).toEqual([false, false, false, false, false]);
    expect(approvalNames([])('write_file')).toBe(false);
  });
});

describe('needsApproval', () => {
  const tool = (needs?: Parameters<typeof defineTool>[0]['needsApproval']) =>
    defineTool({
      name: 'pay',
      description: 'pay',
      schema: z.object({ amount: z.number() }),
      annotations: { destructiveHint: true },
      needsApproval: needs,
      run: async () => 1,
    });
  const none = approvalNames([]);

  it("is the tool's own: true, false, absent, or a function of the arguments and who asks", async () => {
    expect(await needsApproval(tool(true), { amount: 1 }, { names: none, context })).toBe(true);
    expect(await needsApproval(tool(false), { amount: 1 }, { names: none, context })).toBe(false);
    expect(await needsApproval(tool(), { amount: 1 }, { names: none, context })).toBe(false);
    const big = tool((args, ctx) => (args.amount as number) > 100 && ctx.scope.userId === 'u');
    expect(await needsApproval(big, { amount: 500 }, { names: none, context })).toBe(true);
    expect(await needsApproval(big, { amount: 5 }, { names: none, context })).toBe(false);
    expect(
      await needsApproval(
        tool(async () => true),
        { amount: 5 },
        { names: none, context },
      ),
    ).toBe(true);
  });

  it('asks when APPROVAL_TOOLS names the tool, whatever the tool says, and when its function throws', async () => {
    expect(await needsApproval(tool(false), { amount: 1 }, { names: approvalNames(['p*']), context })).toBe(true);
    const broken = tool(() => {
      throw new Error('bug');
    });
    expect(await needsApproval(broken, { amount: 1 }, { names: none, context })).toBe(true);
  });
});

describe('approval ids and argument hashes', () => {
  it('ids are 128 random bits in one shape', () => {
    const ids = new Set(Array.from({ length: 1000 }, newApprovalId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(APPROVAL_ID);
  });

  it('hashes the arguments whatever their key order, and tells different ones apart', async () => {
    const a = await argumentsHash({ path: 'a.txt', content: 'x', opts: { b: 1, a: [1, 2] } });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(await argumentsHash({ opts: { a: [1, 2], b: 1 }, content: 'x', path: 'a.txt' })).toBe(a);
    expect(await argumentsHash({ path: 'a.txt', content: 'y', opts: { b: 1, a: [1, 2] } })).not.toBe(a);
    expect(await argumentsHash({ path: 'a.txt', content: 'x', opts: { b: 1, a: [2, 1] } })).not.toBe(a);
  });
});
