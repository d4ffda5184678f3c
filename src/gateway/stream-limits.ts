// How a streamed answer ends when the upstream sent more than the gateway holds (docs/configuration.md
// § Limits): an error event in the client's protocol, never a silent cut. The chunk written is the
// OpenAI stream's own error chunk (`data: {"error": {…}}`, as an upstream reports a failure mid-stream);
// the protocol codecs turn it into theirs (Anthropic's `event: error`, the Responses `error` event).
// Two ways to get here: the upstream's stream broke one of the decoder's caps (32 MB in all, 1 MB a
// line or an event: model/sse-decode.ts), or no retry was left for a call whose arguments were longer
// than the gate reads: the gateway kept only their start (model/assemble.ts), so it cannot pass the
// call on as the model wrote it, as it does with every other call still blocked at the end.
import { MAX_ARGUMENTS_CHARS } from 'rebound-gate';
import { quote } from '../quote.ts';
import { SseLimitError } from '../model/sse-decode.ts';
import { openAIError } from './errors.ts';
import type { GatedCall } from './gated-call.ts';

type Chunk = Record<string, unknown>;

/** The error chunk for a stream that broke a cap of the decoder; null for any other break (the connection fails, as without the gateway). */
export function tooLongStream(broken: unknown): Chunk | null {
  if (!(broken instanceof SseLimitError)) return null;
  const message = `The upstream's answer was stopped: ${broken.message}. Try again, or ask for a shorter answer.`;
  return { ...openAIError({ status: 502, code: 'upstream_too_large', message }) };
}

/** A call that can go out only as the model wrote it, of which the gateway kept only the start. */
export function cutCall(calls: readonly GatedCall[]): GatedCall | undefined {
  return calls.find((g) => g.proposed.argumentsChars !== undefined);
}

/** The error chunk that ends the answer in the place of `cutCall`. */
export function cutCallError(g: GatedCall): Chunk {
  const chars = (g.proposed.argumentsChars ?? g.proposed.arguments.length).toLocaleString('en-US');
  const message =
    `The model's call to ${quote(g.proposed.name, 80)} has arguments of ${chars} characters, past the gateway's limit of ` +
    `${MAX_ARGUMENTS_CHARS.toLocaleString('en-US')} (MAX_ARGUMENTS_CHARS): it was blocked, no retry was left, and the gateway kept only ` +
    'its start, so it cannot be passed on. Ask for smaller calls (for a large file, its first part, then the rest in further calls).';
  return { ...openAIError({ status: 502, code: 'tool_call_too_large', message }) };
}
