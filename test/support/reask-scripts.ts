// The scripted model and the check the gate adapters' tests share for the re-ask policy (issue 22, one
// policy for the gateway and the three adapters): an answer with a valid call (call_a, Paris for 2 days)
// and a blocked one (call_b, Rome with `days` missing); re-asked, the model fixes the blocked one
// (call_c); after that it answers "Sunny.". The re-ask must name only the blocked call.
// REASK_CASES are the re-ask conformance suite's cases (test/gate/reask-conformance.test.ts, issue 31):
// each script with the calls every host must hand its caller for the one model request and how many
// upstream requests that takes.
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

/** The re-ask as the gateway asks it: after the conversation, the answer with the blocked call only (call_b), then the gate's message as its result, nothing more. */
export function expectReaskOfBlockedOnly(
  reask: ChatRequest,
  blocked: { id: string; arguments: string } = { id: 'call_b', arguments: '{"city":"Rome"}' },
): void {
  const msgs = reask.messages;
  const [assistant, told, ...more] = msgs.slice(msgs.findIndex((m) => m.role === 'assistant'));
  expect(assistant?.tool_calls).toMatchObject([{ id: blocked.id, function: { arguments: blocked.arguments } }]);
  expect(assistant?.tool_calls).toHaveLength(1);
  expect(told).toMatchObject({ role: 'tool', tool_call_id: blocked.id });
  expect(JSON.parse(told!.content!)).toMatchObject({ ok: false, error: expect.stringContaining('days') });
  expect(more).toEqual([]);
}

/** The tool every conformance host declares: get_weather(city, days), both required. */
export const WEATHER_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer' } },
  required: ['city', 'days'],
  additionalProperties: false,
} as const;

/** The calls a host hands its caller: id and arguments (as JSON values). */
export type HostAnswer = Array<{ id: string; args: unknown }>;

export interface ReaskCase {
  name: string;
  script: Script;
  /** The calls the caller receives. */
  answer: HostAnswer;
  /** Upstream requests for the one model request (1 + re-asks). */
  requests: number;
  /** The call the re-ask names (when there is one). */
  reasked: { id: string; arguments: string };
}

const paris = { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris","days":2}' };
const rome = { id: 'call_b', name: 'get_weather', arguments: '{"city":"Rome"}' };
const callB = { id: 'call_b', arguments: '{"city":"Rome"}' };

export const REASK_CASES: ReaskCase[] = [
  {
    name: 'a valid call and a blocked one: the valid one out once, only the blocked one re-asked, the fix joins it',
    script: validAndBlocked,
    answer: [
      { id: 'call_a', args: { city: 'Paris', days: 2 } },
      { id: 'call_c', args: { city: 'Rome', days: 1 } },
    ],
    requests: 2,
    reasked: callB,
  },
  {
    name: "still blocked after the one retry: the last answer's call goes out as the model wrote it",
    script: (_req, i) => ({ toolCalls: [i === 0 ? rome : { ...rome, id: 'call_d' }] }),
    answer: [{ id: 'call_d', args: { city: 'Rome' } }],
    requests: 2,
    reasked: callB,
  },
  {
    name: 'a retry repeating the call already out: the repeat is dropped',
    script: (_req, i) => ({
      toolCalls:
        i === 0
          ? [paris, rome]
          : [
              { ...paris, id: 'call_a2' },
              { id: 'call_c', name: 'get_weather', arguments: '{"city":"Rome","days":1}' },
            ],
    }),
    answer: [
      { id: 'call_a', args: { city: 'Paris', days: 2 } },
      { id: 'call_c', args: { city: 'Rome', days: 1 } },
    ],
    requests: 2,
    reasked: callB,
  },
  {
    name: 'the re-ask fails: the answer before it stands, the blocked call as written',
    script: (_req, i) => (i === 0 ? { toolCalls: [paris, rome] } : { status: 400, message: 'no' }),
    answer: [
      { id: 'call_a', args: { city: 'Paris', days: 2 } },
      { id: 'call_b', args: { city: 'Rome' } },
    ],
    requests: 2,
    reasked: callB,
  },
  {
    name: 'a repair ("2" for an integer): under the same id, no re-ask',
    script: () => ({ toolCalls: [{ id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris","days":"2"}' }] }),
    answer: [{ id: 'call_a', args: { city: 'Paris', days: 2 } }],
    requests: 1,
    reasked: callB,
  },
];
