import { describe, expect, it } from 'vitest';
import { argumentsHash } from '../../tools/approval.ts';
import type { TurnReader } from '../../turns/service.ts';
import type { LoggedEvent, TurnEvent } from '../../vocabulary.ts';
import { pausingReader } from './approval-pause.ts';
import { ApprovalSigner } from './approval-signature.ts';
import type { UiStreamControl } from './mapper.ts';

const DAY_MS = 86_400_000;
const EXPIRES = '2026-11-25T14:00:00.000Z';
/** Verified as of an hour before the approvals expire. */
const BEFORE = Date.parse(EXPIRES) - 3_600_000;
const asked = (approvalId: string, toolCallId: string): TurnEvent => ({
  event: 'approval_required',
  data: { approvalId, toolCallId, name: 'delete_file', arguments: { path: toolCallId }, expiresAt: EXPIRES },
});
const log: TurnEvent[] = [
  { event: 'turn_start', data: { turnId: 't1', sessionId: 's1', model: 'm', demo: true } },
  { event: 'tool_call', data: { id: 'c1', name: 'delete_file', arguments: '{"path":"c1"}', iteration: 1 } },
  { event: 'tool_call', data: { id: 'c2', name: 'delete_file', arguments: '{"path":"c2"}', iteration: 1 } },
  asked('apr_1', 'c1'),
  asked('apr_2', 'c2'),
  {
    event: 'tool_result',
    data: { id: 'c1', name: 'delete_file', verdict: 'pass', category: 'valid', ok: true, result: {}, approval: 'approved', durationMs: 1 },
  },
];

/** A reader over `log` (seq from 1) that never ends by itself, as a paused turn's live log does not. */
function reader(events: TurnEvent[]): TurnReader {
  return {
    events: async function* (signal) {
      for (const [i, event] of events.entries()) yield { seq: i + 1, event } satisfies LoggedEvent;
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
    },
    left: () => {},
  };
}

async function read(pending: string[], events = log.slice(0, 5)) {
  const control: UiStreamControl = { signatures: new Map(), pauseSeq: null };
  const out: number[] = [];
  const paused = pausingReader(reader(events), { pendingIds: async () => pending, signer: new ApprovalSigner('s', DAY_MS), control });
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 300);
  for await (const e of paused.events(abort.signal)) out.push(e.seq);
  clearTimeout(timer);
  return { seqs: out, control };
}

describe('pausingReader', () => {
  it('ends after the last pending approval of the batch has been read, signing each', async () => {
    const { seqs, control } = await read(['apr_1', 'apr_2']);
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
    expect(control.pauseSeq).toBe(5);
    expect([...control.signatures.keys()]).toEqual(['apr_1', 'apr_2']);
    const signed = { approvalId: 'apr_1', toolCallId: 'c1', toolName: 'delete_file', argsHash: await argumentsHash({ path: 'c1' }), expiresAt: EXPIRES };
    expect(await new ApprovalSigner('s', DAY_MS).verify(control.signatures.get('apr_1')!, signed, BEFORE)).toBe(true);
    expect(await new ApprovalSigner('s', DAY_MS).verify(control.signatures.get('apr_2')!, signed, BEFORE)).toBe(false);
  });

  it("reads on past approvals decided already (a replay after the decision), to the reader's own end", async () => {
    const { seqs, control } = await read([], log);
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);
    expect(control.pauseSeq).toBeNull();
  });
});
