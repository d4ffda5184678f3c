// One streamed answer of a model as a host that gates it holds it: Rebound's gateway (one attempt of
// its Chat Completions stream, src/gateway/held-stream.ts) and the AI SDK adapter (one attempt of
// doStream, ai-sdk/stream.ts) read their own formats and write their own parts, and decide the rest
// here, one way:
// - text: the first attempt's goes out as it arrives, except from the point where it may be a call
//   written into it (TextHold), which is held until the answer ends; a retry's is held to its end and
//   shown only if the retry answers without a call (the first answer's text is already out);
// - a complete call, gated: one that is accepted goes out now, unless a retry repeats one already
//   sent; a blocked one waits for the host's retry policy;
// - at the end: an answer that sent no call may have written calls into its text; they are taken out
//   (on the last attempt only when all would pass: the unchanged text is the fallback) and the text
//   without them is what is left to show.
// The pieces around it, also one way for both: `gatedTextCalls` (the calls written into a text, gated,
// with fresh ids), `sameCall` (a retry repeats a call: same tool, the same arguments as JSON values),
// `callsFinish` (when the answer's finish must say "tool calls" rather than the model's own reason) and
// `splitCalls`, the re-ask policy applied to a whole answer (the gateway's complete.ts, the AI SDK's
// doGenerate, the LangChain and Agents adapters): the calls that pass go out, only the blocked ones
// are re-asked.
import { keptUpTo, MAX_KEPT_TEXT_CHARS, MAX_TEXT_CALL_CHARS } from './limits.ts';
import { deepEqual } from './schema/schema-compile.ts';
import { extractTextCalls } from './text-calls.ts';
import { pushPlainRun, TextHold } from './text-hold.ts';
import type { ProposedCall, ToolSpec } from './types.ts';

export interface HeldAnswerOptions<G> {
  /** The first attempt: its text goes out as it arrives. */
  first: boolean;
  /** No retry follows: calls in the text that would not all pass are left in the text. */
  last: boolean;
  /** Look for calls written into the text (there are tools to gate against, and the request allows calls). */
  extract: boolean;
  /** The call passes the gate (as written or repaired). */
  accepted(call: G): boolean;
  /** The call repeats one that already went out (asked of a retry's calls only). */
  sent(call: G): boolean;
  /** The calls written into the text, gated; null when there are none (or, on the last attempt, not all pass). */
  textCalls(text: string, options: { last: boolean }): { calls: G[]; visibleText: string } | null;
}

export interface HeldAnswerEnd<G> {
  /** The text still to show, then `found`, the calls taken out of the text (each to `take`). */
  show: string;
  found: G[];
  /** The answer's text without the calls taken out of it. */
  visibleText: string;
}

/**
 * Pushes `texts[from..to)` as `pushText` would while each is shown whole at once (for the first
 * attempt's plain deltas, one state update for the run: TextHold's pushPlainRun); returns the index of
 * the first that may not be (`to` when none), not pushed: it goes through `pushText`. The server's
 * (rebound-gate/internal), not a method: not the package's surface.
 */
export let pushTextRun: <G>(answer: HeldAnswer<G>, texts: readonly string[], from: number, to: number) => number;

export class HeldAnswer<G> {
  static {
    pushTextRun = (answer, texts, from, to) => {
      if (answer.hold) return pushPlainRun(answer.hold, texts, from, to);
      if (!answer.o.first) return from;
      for (let i = from; i < to; i++) answer.kept = keptUpTo(answer.kept, texts[i]!, MAX_KEPT_TEXT_CHARS);
      return to;
    };
  }
  private readonly hold: TextHold | null;
  /** The text, where no TextHold keeps it already. */
  private kept = '';
  /** Every call of the answer, gated, in order. */
  readonly calls: G[] = [];

  private readonly o: HeldAnswerOptions<G>;
  constructor(o: HeldAnswerOptions<G>) {
    this.o = o;
    this.hold = o.first && o.extract ? new TextHold() : null;
  }

  /**
   * The answer's text as the model wrote it, up to MAX_KEPT_TEXT_CHARS: a longer one is not searched
   * for calls, nor held (it goes out as it comes, a retry's too), nor kept past that. Kept once: by the
   * TextHold where there is one (it keeps the same text to the same bound), else here.
   */
  get text(): string {
    return this.hold ? this.hold.full : this.kept;
  }

  /** A text delta; returns the part that can be shown now. */
  pushText(delta: string): string {
    if (this.hold) return this.hold.push(delta);
    const before = this.kept.length;
    this.kept = keptUpTo(this.kept, delta, MAX_KEPT_TEXT_CHARS);
    if (this.o.first) return delta;
    // A retry's text is held to its end, but not past the search: then what was held goes out with this delta.
    if (this.kept.length <= MAX_TEXT_CALL_CHARS) return '';
    return before <= MAX_TEXT_CALL_CHARS ? this.kept.slice(0, before) + delta : delta;
  }

  /** A complete, gated call; true when it goes out now. */
  take(call: G): boolean {
    this.calls.push(call);
    return this.o.accepted(call) && (this.o.first || !this.o.sent(call));
  }

  /** The answer ended (`failed`: the stream reported an error, nothing is taken out of the text). */
  end(failed = false): HeldAnswerEnd<G> {
    const searched = this.text.length <= MAX_TEXT_CALL_CHARS;
    const found = this.calls.length === 0 && this.o.extract && !failed && searched ? this.o.textCalls(this.text, { last: this.o.last }) : null;
    if (found) return { show: this.hold ? this.hold.release(found.visibleText) : '', found: found.calls, visibleText: found.visibleText };
    const show = this.hold ? this.hold.release() : !this.o.first && this.calls.length === 0 && searched ? this.text : '';
    return { show, found: [], visibleText: this.text };
  }
}

export interface GatedTextCalls<G> {
  calls: G[];
  /** The text without the calls. */
  visibleText: string;
}

/**
 * The calls written into an answer's text, each through `check` (as `{id, name, arguments}`, ids
 * `call_text_<stamp>_<i>`, fresh per answer); null when there are none. On the last attempt a text
 * whose calls would not all pass is left as it is (null): the unchanged answer is the fallback.
 */
export function gatedTextCalls<G>(
  text: string,
  toolset: readonly ToolSpec[],
  options: { last: boolean; check: (call: ProposedCall) => G; accepted: (call: G) => boolean },
): GatedTextCalls<G> | null {
  if (toolset.length === 0 || text === '') return null;
  const found = extractTextCalls(text, toolset);
  if (found.calls.length === 0) return null;
  const stamp = crypto.randomUUID().slice(0, 8);
  const calls = found.calls.map((c, i) => options.check({ id: `call_text_${stamp}_${i}`, name: c.name, arguments: JSON.stringify(c.arguments) }));
  if (options.last && !calls.every(options.accepted)) return null;
  return { calls, visibleText: found.visibleText };
}

/**
 * Whether the answer's finish must say "tool calls" instead of the model's own reason: calls went out
 * that the answer which ended the response did not send itself (taken out of its text, or from an
 * earlier attempt). Otherwise the model's own stands (OpenAI says "stop" for a call forced by tool_choice).
 */
export function callsFinish(out: readonly { embedded: boolean }[], lastSentCalls: boolean): boolean {
  return out.length > 0 && (!lastSentCalls || out.some((c) => c.embedded));
}

export interface SplitCalls<G> {
  /** The calls that go out now: accepted, and not a retry's repeat of one already out. */
  going: G[];
  /** The blocked calls: a re-ask names these only (the answer's text, these calls, the gate's message as each one's result); with no retry left they go out as the model wrote them. */
  blocked: G[];
}

/**
 * One answer's gated calls under the re-ask policy of the gateway and every adapter: a call that passes
 * (as written or repaired) goes out, unless it repeats one an earlier attempt sent (`sent`, by
 * `sameCall`); a blocked call waits for the re-ask.
 */
export function splitCalls<G>(calls: readonly G[], o: { accepted: (call: G) => boolean; sent: (call: G) => boolean }): SplitCalls<G> {
  const going: G[] = [];
  const blocked: G[] = [];
  for (const call of calls) {
    if (!o.accepted(call)) blocked.push(call);
    else if (!o.sent(call)) going.push(call);
  }
  return { going, blocked };
}

/** The same call twice (a retry repeating one that went out): the same tool, and arguments equal as JSON values. */
export function sameCall(a: Pick<ProposedCall, 'name' | 'arguments'>, b: Pick<ProposedCall, 'name' | 'arguments'>): boolean {
  return a.name === b.name && (a.arguments === b.arguments || deepEqual(parseOrText(a.arguments), parseOrText(b.arguments)));
}

/** The arguments text as the JSON value it holds, or as it stands when it is not JSON. */
export function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
