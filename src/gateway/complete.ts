// A non-streaming request (`stream` false or absent): each upstream answer's calls through the gate,
// the retries for blocked calls, then one `chat.completion` (response.ts). The same policy as the
// streaming path: calls that pass are kept from every attempt, a retry that repeats one is not
// counted twice, a retry's text is kept only when it answers without a call, and calls still blocked
// after the last attempt go out as the model wrote them.
import { accepted, gateProposed, outcomeOf, textCalls, wireCall, type GatedCall, type Outcome } from './gated-call.ts';
import { reaskLoop, sameCall, splitCalls } from 'rebound-gate/host';
import { isPlainObject, jsonText } from 'rebound-gate/internal';
import { openAIError } from './errors.ts';
import { buildCompletion } from './response.ts';
import { blockedOf, retryMessages } from './retry.ts';
import type { AttemptsRun } from './stream.ts';
import { MAX_COMPLETION_BYTES } from './upstream.ts';
import { readBounded } from '../model/chat-post.ts';
import { addUsage, type UsageRecord } from './usage.ts';

type Json = Record<string, unknown>;

export interface Completed {
  status: number;
  /** The JSON text of the response. */
  body: string;
  contentType: string;
  attempts: number;
  outcome: Outcome;
}

export async function gatewayComplete(run: AttemptsRun): Promise<Completed> {
  const { request } = run;
  const messages = [...(request.upstreamBody.messages as unknown[])];
  let usage: UsageRecord | null = null;
  let first: Json | null = null;
  let firstText = '';
  let last: { json: Json; calls: GatedCall[] } | null = null;
  let content: string | null = null;
  /** The first answer could not be read: it is passed on as this, with no gating. */
  let unread: Completed | null = null;
  const delivered: GatedCall[] = [];
  /** The upstream's tool_calls objects by id, from every answer: their other fields are kept. */
  const originals = new Map<string, Json>();
  let changed = false;

  // The one re-ask loop (rebound-gate/host): each answer read and gated here, a re-ask for its blocked calls.
  const end = await reaskLoop<Response, Json>({
    retries: run.retries,
    first: run.first,
    ask: async (body) => {
      const next = await run.ask(body);
      return next.ok ? next.response : null;
    },
    read: async (response, { attempt, first: isFirst, last: isLast }) => {
      const { text, whole } = await readBounded(response, MAX_COMPLETION_BYTES);
      const json = whole ? parse(text) : null;
      const message = json && choiceMessage(json);
      if (!whole || !json || !message) {
        // Past the cap, or not a completion we can read: the first is refused as an upstream failure
        // or passed on as it came; a retry's is ignored (the answer before it stands).
        if (isFirst)
          unread = !whole
            ? tooLarge()
            : { status: response.status, body: text, contentType: response.headers.get('content-type') ?? 'application/json', attempts: 1, outcome: 'none' };
        return { blocked: 0, reask: null };
      }
      if (!first) {
        first = json;
        firstText = text;
      }
      const calls: GatedCall[] = [];
      // Without tools to gate against (none declared, or tool_choice "none") calls pass as they came.
      const native = request.toolset.length > 0 && Array.isArray(message.tool_calls) ? message.tool_calls.filter(isPlainObject) : [];
      for (const [i, tc] of native.entries()) {
        const fn = isPlainObject(tc.function) ? tc.function : {};
        const id = typeof tc.id === 'string' && tc.id ? tc.id : `call_${i}`;
        originals.set(id, tc);
        calls.push(
          gateProposed(
            { id, name: typeof fn.name === 'string' ? fn.name : '', arguments: typeof fn.arguments === 'string' ? fn.arguments : '' },
            request.toolset,
          ),
        );
      }
      const said = typeof message.content === 'string' ? message.content : null;
      let visible = said;
      if (calls.length === 0 && request.extractTextCalls && said) {
        const found = textCalls(said, request.toolset, { last: isLast });
        if (found) {
          calls.push(...found.calls);
          visible = found.visibleText.trim() === '' ? null : found.visibleText;
          changed = true;
        }
      }
      run.record(calls, attempt, { text: visible, usage: json.usage });
      usage = addUsage(usage, json.usage);
      // The re-ask policy (splitCalls): the calls that pass go out, but a retry's repeat of one already out.
      delivered.push(...splitCalls(calls, { accepted, sent: (g) => delivered.some((d) => sameCall(wireCall(d), wireCall(g))) }).going);
      if (calls.some((g) => g.verdict.verdict === 'repaired')) changed = true;
      if (isFirst) content = visible;
      else if (calls.length === 0 && visible) content = (content ?? '') + visible;
      last = { json, calls };
      const blocked = blockedOf(calls);
      return {
        blocked: blocked.length,
        reask: () => {
          changed = true;
          messages.push(...retryMessages(visible ?? '', blocked));
          return { ...request.upstreamBody, messages: [...messages] };
        },
      };
    },
  });

  if (unread) {
    run.settled({ attempts: 1, outcome: 'none', delivered: [] });
    return unread;
  }
  const ended = last as { json: Json; calls: GatedCall[] } | null;
  if (!ended || !first) throw new Error('gatewayComplete: no answer was read');
  // Still blocked with no retry left: the calls go out as the model wrote them.
  for (const g of blockedOf(ended.calls)) delivered.push(g);
  const outcome = outcomeOf(delivered);
  run.settled({ attempts: end.attempts, outcome, delivered });
  if (!changed) return { status: 200, body: firstText, contentType: 'application/json', attempts: end.attempts, outcome };
  const lastSentCalls = ended.calls.some((c) => !c.embedded);
  const body = buildCompletion({ first, last: ended.json, lastSentCalls, content, calls: delivered, originals, usage });
  // jsonText: the upstream's message may carry fields nested past what JSON.stringify can write (docs/configuration.md § Limits).
  return { status: 200, body: jsonText(body), contentType: 'application/json', attempts: end.attempts, outcome };
}

/** The first answer past the cap: refused as an upstream failure. */
function tooLarge(): Completed {
  const error = openAIError({
    status: 502,
    code: 'upstream_too_large',
    message: `The upstream's answer is larger than ${MAX_COMPLETION_BYTES / 1024 / 1024} MB; the gateway stopped reading it.`,
  });
  return { status: 502, body: JSON.stringify(error), contentType: 'application/json', attempts: 1, outcome: 'none' };
}

function parse(text: string): Json | null {
  try {
    const v: unknown = JSON.parse(text);
    return isPlainObject(v) ? v : null;
  } catch {
    return null;
  }
}

function choiceMessage(json: Json): Json | null {
  const choices = Array.isArray(json.choices) ? json.choices : [];
  const choice = choices.find((c): c is Json => isPlainObject(c) && (c.index ?? 0) === 0);
  return choice && isPlainObject(choice.message) ? choice.message : null;
}
