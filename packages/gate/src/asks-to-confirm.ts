// Whether the text after a call asks the user to confirm or allow it (issue 29): "Should I go ahead?",
// "Reply yes and I will.", "Let me know if this looks right.", "I'll wait for your go-ahead." A call
// followed by such text is a proposal, not a call, whatever form it was written in (markup included):
// extractTextCalls (text-calls.ts) then leaves the whole answer as text and nothing runs.
//
// Read sentence by sentence over at most MAX_CONFIRM_LOOKAHEAD characters after the call (a request to
// confirm comes within the next few sentences). A sentence asks when it
//   - asks for a yes outright (CONSENT: "shall I", "should I", "want me to <do something>" but help or
//     explain, "reply yes", "please confirm", "your approval", "go-ahead", …), or
//   - is a question, or says "let me know if", "tell me whether", "want me to", and
//     either names going ahead (DOING: "go ahead", "proceed", "run it", …) or is more than a closer that
//     offers further help or looks back (OFFERS_MORE: "Anything else?", "Let me know if you need further
//     assistance!", "Did I get it right?").
// What is left out errs towards asking: a question the lists do not know ("What do you think?") asks.
//
// The same sentences asked before a call ("Should I delete the old logs?\n<tool_call>…") make it a
// proposal too: the model asks, then shows (asksBeforeCall). Read over at most MAX_CONFIRM_LOOKBACK
// characters before the call, so a question far before it blocks nothing; and a question the model
// answers itself before the call ("What is the weather in Paris? Let me check.", "Shall I? Yes, here
// it is:") is settled: only an ask still open when the call starts counts. A reasoning block written
// into the text (`<think>…</think>`, as Qwen3 or DeepSeek-R1 behind a server without a reasoning parser
// write it) is the model asking itself, not the user: only what follows its end is read.
// Every pattern is tested on one sentence of the window, with no nested quantifiers: linear.

/** How far past a call its text is read for a request to confirm it (characters). */
export const MAX_CONFIRM_LOOKAHEAD = 600;
/** How far before a call its text is read for a question about doing it (characters). */
export const MAX_CONFIRM_LOOKBACK = 600;

const CONSENT = new RegExp(
  [
    String.raw`\b(?:shall|should|may) I\b`,
    String.raw`\b(?:want|like) me to (?!help|explain|assist|clarify|elaborate|provide|do (?:any|some)thing else)\w`,
    String.raw`\b(?:reply|answer|respond|say|type)\W{1,4}(?:with\W{1,4})?(?:yes|y|ok|okay|go|confirm|approve|proceed)\b`,
    String.raw`\b(?:please|kindly|you|until you|unless you)(?: to)? (?:confirm|approve|agree|ok|okay|give the word|say (?:so|yes|go))\b`,
    String.raw`\b(?:your|for|need|needs|awaiting|waiting|await|until|without|pending|requires?|with) (?:explicit |your )?(?:confirmation|approval|permission|consent|go-?ahead|sign-?off|say-?so|ok|okay)\b`,
    String.raw`^\W*confirm\b`,
    String.raw`\bconfirm\W*$`,
  ].join('|'),
  'i',
);
const ASKS = /\b(?:let me know|tell me) (?:if|whether|when|once)\b|\b(?:want|like) me to\b/i;
const QUESTION = /\?["'”’)*_\]]*\s*$/;
const DOING =
  /\b(?:go ahead|proceed|continue|run|execute|apply|submit|send|carry (?:it|this|that) out|do (?:it|this|that|so)|make (?:the|this|that) (?:call|change))\b/i;
const OFFERS_MORE =
  /\b(?:anything|something|what) else\b|\b(?:any|other|more|further|additional)\b[^.!?\n]{0,24}\b(?:questions?|help|assistance|information|details)\b|\bhelp(?:s|ful)?\b|\bassist(?:ance)?\b|\bexplain|^\W*(?:did|have|had) I\b/i;

/** One sentence asks the user to confirm or allow what came before it. */
function sentenceAsks(sentence: string): boolean {
  const s = sentence.trim();
  if (s === '') return false;
  if (CONSENT.test(s)) return true;
  if (!QUESTION.test(s) && !ASKS.test(s)) return false;
  return DOING.test(s) || !OFFERS_MORE.test(s);
}

/** A sentence in which the model answers a question itself and goes on: yes, sure, let me, I'll …, with no condition or wait. */
const ANSWERS_ITSELF =
  /^\W*(?:yes|yeah|sure|ok|okay|alright|all right|certainly|of course|absolutely|let me|let's|let us|I'll|I will|I'm going to|I am going to|now,? I)\b/i;
/** What keeps the question open: a condition, a negation, a wait ("Let me know.", "I'll wait.", "I'll hold off."). */
const CONDITION = /\b(?:if|unless|once|when|after|before|until|not|never|only|know|wait|waiting|hold|hear|ask|need)\b|n't\b/i;
/** The ends of a reasoning block written into the text. */
const REASONING_ENDS = ['</think>', '</thinking>', '</reasoning>'];

/**
 * Calls `onSentence` on each sentence of `text[start, end)` in order, until it returns true (then
 * true). Sentences end at a line break, or at `.`, `!` or `?` before a blank.
 */
function someSentence(text: string, start: number, end: number, onSentence: (s: string) => boolean): boolean {
  let from = start;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    const ends = c === 0x0a || ((c === 0x2e || c === 0x21 || c === 0x3f) && (i + 1 === end || /\s/.test(text[i + 1]!)));
    if (!ends) continue;
    if (onSentence(text.slice(from, i + 1))) return true;
    from = i + 1;
  }
  return onSentence(text.slice(from, end));
}

/**
 * Whether `text[from, to)` (cut to MAX_CONFIRM_LOOKAHEAD characters) asks the user to confirm or allow
 * the call that ends at `from`.
 */
export function asksToConfirm(text: string, from: number, to: number = text.length): boolean {
  return someSentence(text, from, Math.min(to, text.length, from + MAX_CONFIRM_LOOKAHEAD), sentenceAsks);
}

/**
 * Whether `text[from, to)` (its last MAX_CONFIRM_LOOKBACK characters, past the end of a reasoning block
 * in them) asks the user about the call that starts at `to` and leaves the ask open: an asking sentence
 * not followed, before `to`, by one in which the model answers it itself (ANSWERS_ITSELF without a
 * CONDITION).
 */
export function asksBeforeCall(text: string, from: number, to: number): boolean {
  const end = Math.min(to, text.length);
  let start = Math.max(from, end - MAX_CONFIRM_LOOKBACK);
  const window = text.slice(start, end);
  start += Math.max(
    0,
    ...REASONING_ENDS.map((closer) => {
      const at = window.lastIndexOf(closer);
      return at < 0 ? 0 : at + closer.length;
    }),
  );
  let open = false;
  someSentence(text, start, end, (sentence) => {
    if (sentenceAsks(sentence)) open = true;
    else if (open && ANSWERS_ITSELF.test(sentence.trim()) && !CONDITION.test(sentence)) open = false;
    return false;
  });
  return open;
}
