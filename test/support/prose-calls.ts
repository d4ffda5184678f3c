// Issue 29's hostile answers, shared by the test of every reader (the loop, the gateway streamed and
// not, the three adapters): prose that shows or asks about a call, and calls in any form (markup
// included) followed by a request to confirm them, which must run nothing and reach the user exactly
// as written; and calls in a calling form with nothing asking after them, which must still run.
import { readFileSync } from 'node:fs';

/** The review's answer: it asks before a call to delete_file and waits for a yes. */
export const ISSUE_ANSWER =
  'I can remove it for you. Should I run this?\n```json\n{"name": "delete_file", "arguments": {"path": "notes/important.md"}}\n```\nReply yes and I will.';

/** The review's other four, and the case a reader might cut differently (JSON first, then the question). */
export const REVIEW_ANSWERS = [
  ISSUE_ANSWER,
  'To delete a file one would call:\n```json\n{"name": "delete_file", "arguments": {"path": "notes/important.md"}}\n```\nI will not do that without your go-ahead.',
  'Here is how the client would do it:\n```js\nconst call = {"name": "delete_file", "arguments": {"path": "notes/important.md"}};\nawait client.run(call);\n```',
  'The file notes/tools.json contains: {"name": "delete_file", "arguments": {"path": "notes/important.md"}}',
  'Should I run this?\n{"name": "delete_file", "arguments": {"path": "notes/important.md"}}',
  '{"name": "delete_file", "arguments": {"path": "notes/important.md"}}\n\nThis removes it for good. Shall I?',
];

const DELETE = '{"name": "delete_file", "arguments": {"path": "notes/important.md"}}';
const READ = '{"name": "read_file", "arguments": {"path": "notes/important.md"}}';

/**
 * Calls in tool-call markup followed by text asking to confirm them: a proposal, so nothing runs (the
 * read_file before the delete_file neither). The corpus's markup_then_ask negatives hold more.
 */
export const MARKUP_THEN_ASK = [
  `Checking first.\n<tool_call>\n${READ}\n</tool_call>\n<tool_call>\n${DELETE}\n</tool_call>\nThe second call removes it for good. Shall I run both?`,
  '<|python_tag|>{"name": "delete_file", "parameters": {"path": "notes/important.md"}}<|eom_id|>\n\nThis cannot be undone. Do you want me to go ahead?',
  `[TOOL_CALLS] [${READ}, ${DELETE}]\nReply "yes" to run both.`,
  '<function=delete_file>{"path": "notes/important.md"}</function>\nLet me know if that is the right file before I run it.',
];

interface NegativeCase {
  id: string;
  text: string;
  meta: { family: string; tool: string };
}

/**
 * The hand-written negatives of bench/corpora/text-calls.negatives.jsonl written over this app's own
 * workspace tools (functions/): the readers' tests run them against the same tools.
 */
export function ownToolNegatives(): string[] {
  const file = new URL('../../bench/corpora/text-calls.negatives.jsonl', import.meta.url);
  const cases = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as NegativeCase);
  return cases.filter((c) => c.meta.family === 'own').map((c) => c.text);
}

/** Every prose answer a reader's test runs: the review's, markup followed by an ask, and the corpus's own-tool negatives. */
export function proseAnswers(): string[] {
  return [...REVIEW_ANSWERS, ...MARKUP_THEN_ASK, ...ownToolNegatives()];
}

/** Calls in a calling form, which still run: markup, and an answer that is nothing but the call. */
export const CALLING_FORMS = {
  markup: 'Deleting it now.\n<tool_call>\n{"name": "delete_file", "arguments": {"path": "notes/important.md"}}\n</tool_call>',
  functionTag: 'I will remove it.\n<function=delete_file>{"path": "notes/important.md"}</function>',
  mistral: '[TOOL_CALLS] [{"name": "delete_file", "arguments": {"path": "notes/important.md"}}]',
  pythonTag: '<|python_tag|>{"name": "delete_file", "parameters": {"path": "notes/important.md"}}<|eom_id|>',
  answerOnly: '{"name": "delete_file", "arguments": {"path": "notes/important.md"}}',
  fencedOnly: '```json\n{"name": "delete_file", "arguments": {"path": "notes/important.md"}}\n```',
};
