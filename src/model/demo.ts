// The built-in demo model, used when no API key is configured. It is deterministic but not a
// replay: each step is chosen from the tool results it actually receives in this turn, and every
// correction comes from what the gate said: its suggestion (the first entry of `suggestions`), or,
// where the gate guesses nothing (a tool name that is no near typo), the tools its message lists.
// Asked to "demo approval" (any message with approval, approve or approving in it), it writes a draft and
// then proposes to delete it: the one call the local default config (APPROVAL_TOOLS=delete_file with the
// demo model) sends to a person first. Loaded with import() on the demo model's first answer (index.ts),
// so a server with a model key never evaluates it.
import { delay } from '../delay.ts';
import type { ChatMessage, ToolResultPayload } from '../vocabulary.ts';
import { type AssembledToolCall, DEMO_MODEL_NAME, type ModelClient, type ModelEvent, type ModelRequest } from './types.ts';

/** What asks for the approval demo: "demo approval", "show me an approval", "approve something"; the README's table. */
export const APPROVAL_TRIGGER = /\bapprov(?:al|als|e|ing)\b/i;

type Step = { say: string; call?: { name: string; args: Record<string, unknown> } };
interface ToolOutcome {
  ok: boolean;
  /** The person's word on a call that needed approval (the result the loop wrote for a denied or expired call). */
  approval?: 'denied' | 'expired';
  /** The reason the person gave with a denial. */
  reason?: string;
  suggestion?: string;
  /** The tool names a phantom-tool message lists ("Available: a, b, c."), as a model reads them. */
  available: string[];
  raw: string;
}

const FULL_FILE = `export function slugify(input: string): string {
  return input
    .normalize('NFKD')
    .replace(/[\\u0300-\\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
`;

const CUT_FILE = `export function slugify(input: string): string {
  // ... rest of code
}
`;

/** The last answer, in Markdown as models write it: the chat page renders it (code, a table, a task list, a link). */
const FINAL_ANSWER = [
  'Done. `src/utils/slugify.ts` now holds a complete `slugify` helper:',
  '',
  '```ts',
  FULL_FILE.trimEnd(),
  '```',
  '',
  'On the way, the gate caught four mistakes:',
  '',
  '| my call | what the gate did |',
  '| --- | --- |',
  '| a file cut short with `// ... rest of code` | **refused** it |',
  '| the path `src/utils/slugfy.ts` | suggested `src/utils/slugify.ts` |',
  '| `"50"` for a number | **repaired** it to `50` |',
  '| `list_directory`, which does not exist | listed the real tools: I took `list_files` |',
  '',
  '- [x] write the helper',
  '- [x] read it back',
  '- [ ] add tests for accented input',
  '',
  'Read more about [slug URLs](https://developer.mozilla.org/en-US/docs/Glossary/Slug).',
].join('\n');

/** The recovery script: each step sees the outcome of the previous call. */
function recoveryStep(outcomes: ToolOutcome[]): Step {
  const last = outcomes.at(-1);
  switch (outcomes.length) {
    case 0:
      return {
        say: "I'll add a slugify helper. Writing the file first.",
        call: { name: 'write_file', args: { path: 'src/utils/slugify.ts', content: CUT_FILE } },
      };
    case 1:
      return last!.ok
        ? { say: 'Written. Let me read it back.', call: { name: 'read_file', args: { path: 'src/utils/slugfy.ts' } } }
        : {
            say: 'The write was refused because my file was cut short. Writing the whole file this time.',
            call: { name: 'write_file', args: { path: 'src/utils/slugify.ts', content: FULL_FILE } },
          };
    case 2:
      // Deliberately mistyped: the gate should answer with the path that exists.
      return { say: 'Written. Let me read it back to check.', call: { name: 'read_file', args: { path: 'src/utils/slugfy.ts' } } };
    case 3:
      // Also sloppy in the ways models are: a number as a string, and a parameter the tool does not
      // have. The gate repairs the first and records the second as a feature request.
      if (!last!.ok && last!.suggestion)
        return {
          say: `That path does not exist; the gate suggests \`${last!.suggestion}\`. Reading that instead.`,
          call: { name: 'read_file', args: { path: last!.suggestion, limit: '50', show_line_numbers: true } },
        };
      return { say: 'Now let me see the folder.', call: { name: 'list_directory', args: { path: 'src/utils' } } };
    case 4:
      return { say: 'Now let me see what else is in the folder.', call: { name: 'list_directory', args: { path: 'src/utils' } } };
    case 5:
      if (!last!.ok && last!.suggestion)
        return {
          say: `There is no \`list_directory\` tool; using the suggested \`${last!.suggestion}\`.`,
          call: { name: last!.suggestion, args: { path: 'src/utils' } },
        };
      {
        // No guess from the gate (list_directory and list_files share only a word): pick from its list.
        const lister = last!.ok ? undefined : last!.available.find((name) => name.startsWith('list_'));
        if (lister)
          return {
            say: `There is no \`list_directory\` tool; of the tools the gate lists, \`${lister}\` does that.`,
            call: { name: lister, args: { path: 'src/utils' } },
          };
      }
      return { say: 'Done.' };
    default:
      return { say: FINAL_ANSWER };
  }
}

/** The file the approval script writes, then asks to delete. */
export const DEMO_APPROVAL_PATH = 'notes/draft.md';
const DRAFT = '# Draft\n\nA note the demo writes, then asks to delete: the deletion waits for a person.\n';

/** The approval script: a write that runs, then a delete that needs a person's yes (APPROVAL_TOOLS). */
function approvalStep(outcomes: ToolOutcome[]): Step {
  const last = outcomes.at(-1);
  switch (outcomes.length) {
    case 0:
      return { say: 'I will write a draft note first.', call: { name: 'write_file', args: { path: DEMO_APPROVAL_PATH, content: DRAFT } } };
    case 1:
      return {
        say: `Written. Now I propose to delete \`${DEMO_APPROVAL_PATH}\` again: deleting needs your approval.`,
        call: { name: 'delete_file', args: { path: DEMO_APPROVAL_PATH } },
      };
    default:
      if (last!.approval === 'denied')
        return { say: `You denied the deletion${last!.reason ? ` ("${last!.reason}")` : ''}, so \`${DEMO_APPROVAL_PATH}\` stays.` };
      if (last!.approval === 'expired') return { say: `Nobody decided in time, so \`${DEMO_APPROVAL_PATH}\` stays.` };
      return { say: last!.ok ? `Approved and done: \`${DEMO_APPROVAL_PATH}\` is deleted.` : 'The deletion failed; the file stays.' };
  }
}

/** The iteration-limit script: keeps listing files until the loop's budget stops it. */
function limitStep(outcomes: ToolOutcome[]): Step {
  return { say: `Still looking (${outcomes.length + 1})…`, call: { name: 'list_files', args: { path: '' } } };
}

function summary(outcomes: ToolOutcome[]): string {
  const failed = outcomes.filter((o) => !o.ok).length;
  return [
    `Summary (demo): I made ${outcomes.length} tool calls, ${failed} of which failed or were blocked.`,
    'Done: listed the workspace repeatedly.',
    'Not done: I kept looking instead of answering, so the step limit stopped me.',
    'Next step: ask a narrower question.',
  ].join('\n');
}

export interface DemoModelOptions {
  /** Delay between streamed words, so that streaming is visible in the page (ms). */
  wordDelayMs?: number;
}

export class DemoModel implements ModelClient {
  readonly model = DEMO_MODEL_NAME;
  readonly demo = true;
  private wordDelayMs: number;

  constructor(options: DemoModelOptions = {}) {
    this.wordDelayMs = options.wordDelayMs ?? 20;
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    const { userText, outcomes } = readTurn(request.messages, request.turnStart);
    const step: Step =
      request.toolChoice === 'none'
        ? { say: summary(outcomes) }
        : APPROVAL_TRIGGER.test(userText)
          ? approvalStep(outcomes)
          : /\b(limit|forever|loop|keep going)\b/i.test(userText)
            ? limitStep(outcomes)
            : recoveryStep(outcomes);
    for (const word of step.say.split(/(?<= )/)) {
      // The pause between words ends at once on an abort (Stop), and the abort is thrown before the next word.
      if (this.wordDelayMs > 0) await delay(this.wordDelayMs, { signal: request.signal });
      if (request.signal.aborted) throw request.signal.reason ?? new Error('aborted');
      yield { type: 'text', text: word };
    }
    const toolCalls: AssembledToolCall[] = step.call
      ? [{ id: `demo_${crypto.randomUUID().slice(0, 8)}`, name: step.call.name, arguments: JSON.stringify(step.call.args) }]
      : [];
    yield {
      type: 'finish',
      toolCalls,
      finishReason: toolCalls.length ? 'tool_calls' : 'stop',
      usage: { promptTokens: 0, completionTokens: step.say.split(' ').length },
    };
  }
}

/**
 * The user's request and the tool outcomes since it: the demo's only state. The turn starts where the
 * loop says; without that (a bare request), at the last user message.
 */
function readTurn(messages: ChatMessage[], turnStart?: number): { userText: string; outcomes: ToolOutcome[] } {
  const start = turnStart ?? messages.findLastIndex((m) => m.role === 'user');
  const turn = messages.slice(Math.max(start, 0));
  const first = turn[0];
  const userText = first?.role === 'user' ? first.content : '';
  const outcomes = turn.filter((m): m is Extract<ChatMessage, { role: 'tool' }> => m.role === 'tool').map((m) => parseOutcome(m.content));
  return { userText, outcomes };
}

function parseOutcome(content: string): ToolOutcome {
  try {
    const value = JSON.parse(content) as (Partial<Extract<ToolResultPayload, { ok: false }>> & { reason?: unknown }) | null;
    const failed = value?.ok === false;
    const error = typeof value?.error === 'string' ? value.error : '';
    const approval = !failed ? undefined : /\bdenied\b/i.test(error) ? 'denied' : /\bexpired\b/i.test(error) ? 'expired' : undefined;
    const reason = approval && typeof value?.reason === 'string' ? value.reason : undefined;
    const suggestions = Array.isArray(value?.suggestions) ? value.suggestions.filter((s): s is string => typeof s === 'string') : [];
    const listed = typeof value?.error === 'string' ? /Available: ([^\n]*?)\.?(?:\n|$)/.exec(value.error)?.[1] : undefined;
    const available = listed ? listed.split(', ').filter((name) => /^[\w-]+$/.test(name)) : [];
    return { ok: !failed, suggestion: suggestions[0], available, raw: content, ...(approval ? { approval } : {}), ...(reason ? { reason } : {}) };
  } catch {
    return { ok: true, available: [], raw: content };
  }
}
