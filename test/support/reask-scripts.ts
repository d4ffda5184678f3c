// The scripted model and the check the gate adapters' tests share for the re-ask policy (issue 22, one
// policy for the gateway and the three adapters): an answer with a valid call (call_a, Paris for 2 days)
// and a blocked one (call_b, Rome with `days` missing); re-asked, the model fixes the blocked one
// (call_c); after that it answers "Sunny.". The re-ask must name only the blocked call.
import { expect } from 'vitest';
import type { ChatRequest, Script } from './scripted-openai.ts';

export const validAndBlocked: Script = (_req, i) => {
  if (i === 0) {
    return {
      toolCalls: [
        { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris","days":2}' },
        { id: 'call_b', name: 'get_weather', arguments: '{"city":"Rome"}' },
      ],
    };
  }
  if (i === 1) return { toolCalls: [{ id: 'call_c', name: 'get_weather', arguments: '{"city":"Rome","days":1}' }] };
  return { text: 'Sunny.' };
};

/** The re-ask as the gateway asks it: after the conversation, the answer with call_b only, then the gate's message as its result, nothing more. */
export function expectReaskOfBlockedOnly(reask: ChatRequest): void {
  const msgs = reask.messages;
  const [assistant, told, ...more] = msgs.slice(msgs.findIndex((m) => m.role === 'assistant'));
  expect(assistant?.tool_calls).toMatchObject([{ id: 'call_b', function: { arguments: '{"city":"Rome"}' } }]);
  expect(assistant?.tool_calls).toHaveLength(1);
  expect(told).toMatchObject({ role: 'tool', tool_call_id: 'call_b' });
  expect(JSON.parse(told!.content!)).toMatchObject({ ok: false, error: expect.stringContaining('days') });
  expect(more).toEqual([]);
}
