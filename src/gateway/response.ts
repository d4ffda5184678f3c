// The non-streaming response builder: the `chat.completion` the client receives, from the upstream's
// answers. When the gate changed nothing in a single attempt the upstream's body goes out byte for
// byte; otherwise the first answer's id and created, the last answer's choice with the message the
// gateway settled on (the calls that passed, repaired ones re-serialized under the same ids, still
// blocked ones as the model wrote them), finish_reason "tool_calls" when there are calls, and the
// usage of every attempt.
import { finishReason, wireCall, type GatedCall } from './gated-call.ts';
import type { UsageRecord } from './usage.ts';

type Json = Record<string, unknown>;

export interface CompletionParts {
  first: Json;
  last: Json;
  /** Whether the last answer itself sent tool calls (not only in its text). */
  lastSentCalls: boolean;
  /** The message content the client gets (null: none). */
  content: string | null;
  calls: GatedCall[];
  /** The tool_calls objects as the upstream sent them, by id: their other fields are kept. */
  originals: Map<string, Json>;
  usage: UsageRecord | null;
}

export function buildCompletion(parts: CompletionParts): Json {
  const choices = Array.isArray(parts.last.choices) ? (parts.last.choices as Json[]) : [];
  const choice = choices.find((c) => (c.index ?? 0) === 0) ?? { index: 0 };
  const message = (typeof choice.message === 'object' && choice.message !== null ? choice.message : { role: 'assistant' }) as Json;
  const toolCalls = parts.calls.map((g) => {
    const wire = wireCall(g);
    const original = parts.originals.get(wire.id);
    const fn = (typeof original?.function === 'object' && original.function !== null ? original.function : {}) as Json;
    return { ...(original ?? {}), id: wire.id, type: 'function', function: { ...fn, name: wire.name, arguments: wire.arguments } };
  });
  const { tool_calls: _old, ...rest } = message;
  const nextMessage: Json = { ...rest, content: parts.content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
  const reason = finishReason(typeof choice.finish_reason === 'string' ? choice.finish_reason : null, parts.calls, parts.lastSentCalls);
  return {
    ...parts.last,
    ...pick(parts.first, ['id', 'created', 'model', 'system_fingerprint']),
    choices: [{ ...choice, message: nextMessage, finish_reason: reason }],
    ...(parts.usage ? { usage: parts.usage } : {}),
  };
}

function pick(o: Json, keys: string[]): Json {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}
