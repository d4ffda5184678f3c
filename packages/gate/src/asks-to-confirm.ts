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
// Every pattern is tested on one sentence of the window, with no nested quantifiers: linear.

/** How far past a call its text is read for a request to confirm it (characters). */
export const MAX_CONFIRM_LOOKAHEAD = 600;

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

/**
 * Whether `text[from, to)` (cut to MAX_CONFIRM_LOOKAHEAD characters) asks the user to confirm or allow
 * the call that ends at `from`. Sentences end at a line break, or at `.`, `!` or `?` before a blank.
 */
export function asksToConfirm(text: string, from: number, to: number = text.length): boolean {
  const end = Math.min(to, text.length, from + MAX_CONFIRM_LOOKAHEAD);
  let start = from;
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i);
    const ends = c === 0x0a || ((c === 0x2e || c === 0x21 || c === 0x3f) && (i + 1 === end || /\s/.test(text[i + 1]!)));
    if (!ends) continue;
    if (sentenceAsks(text.slice(start, i + 1))) return true;
    start = i + 1;
  }
  return sentenceAsks(text.slice(start, end));
}
