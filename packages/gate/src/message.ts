// The text a model receives when its call is blocked. It is read by a model mid-task, so it says in a
// few lines what was wrong, what to send instead, and offers at most three candidates; it never carries
// a stack trace and echoes the model's own arguments only up to a bounded length.
// Every piece of it goes through `echo`, so its size is bounded whatever the model sent (a 10 MB path,
// a megabyte-long parameter name): the tool_result event and the activity row carry this text too.
import type { Problem } from './types.ts';

export const MAX_ECHO = 200;
const MAX_PROBLEMS = 5;
const MAX_LISTING = 20;
/** A problem's own text (a phantom tool's message lists up to ten tool names). */
export const MAX_PROBLEM = 1000;
/** A JSON path such as `$.options.mode`, a parameter or listing entry name. */
export const MAX_NAME = 120;

const FIX: Record<Problem['category'], string> = {
  phantom_tool: 'Call one of the available tools by its exact name.',
  malformed_json: 'Send the arguments as one complete JSON object, with every value written out.',
  missing_required: 'Add the missing parameter(s) and call again.',
  wrong_type: 'Send each value with the type the schema declares.',
  enum_violation: 'Use one of the allowed values exactly as written.',
  unknown_parameter: 'Use only the parameters the tool declares.',
  invalid_path: 'Use a path that exists; check the folder listing below.',
  placeholder_content: 'Send the complete content: no "..." or placeholder comments standing for code.',
  syntax_error: 'Send content that is complete and syntactically valid (balanced brackets and quotes).',
  text_embedded_call: 'Make the call through the tool-calling interface, not in the text.',
};

export interface MessageInput {
  tool: string;
  problems: Problem[];
  suggestions?: string[];
  listing?: { folder: string; entries: string[] };
  /** The raw arguments as sent; echoed (truncated) when they could not be read as JSON. */
  rawArguments?: string;
  /** Parameters the model sent that the tool does not declare. */
  invented?: string[];
}

/**
 * `text` on one line (white space runs as one space), cut to `max` characters with its length said.
 * Only what is shown is read: a 10 MB value costs what its first few hundred characters cost.
 */
export function echo(text: string, max = MAX_ECHO): string {
  const words = /\S+/g;
  let flat = '';
  for (let m = words.exec(text); m !== null; m = words.exec(text)) {
    flat += (flat === '' ? '' : ' ') + m[0].slice(0, max + 1);
    if (flat.length > max) return `${flat.slice(0, max)}… (${text.length} chars)`;
  }
  return flat;
}

export function blockedMessage(input: MessageInput): string {
  const first = input.problems[0];
  const category = first?.category ?? 'malformed_json';
  const lines: string[] = [`Tool call "${echo(input.tool, 80)}" was not executed.`];
  for (const p of input.problems.slice(0, MAX_PROBLEMS)) {
    const message = echo(p.message, MAX_PROBLEM);
    lines.push(p.path === '$' || p.path === '$name' ? `- ${message}` : `- ${echo(p.path, MAX_NAME)}: ${message}`);
  }
  if (input.problems.length > MAX_PROBLEMS) lines.push(`- … and ${input.problems.length - MAX_PROBLEMS} more`);
  if (input.invented && input.invented.length > 0) {
    lines.push(
      `Not parameters of this tool (ignored): ${input.invented
        .slice(0, 5)
        .map((n) => echo(n, MAX_NAME))
        .join(', ')}.`,
    );
  }
  const fixes = [...new Set(input.problems.map((p) => FIX[p.category]))].slice(0, 2);
  lines.push(`Fix: ${fixes.join(' ') || FIX[category]}`);
  const suggestions = (input.suggestions ?? []).slice(0, 3);
  if (suggestions.length > 0) lines.push(`Did you mean: ${suggestions.map((s) => `"${echo(s)}"`).join(', ')}?`);
  if (input.listing) {
    const { folder, entries } = input.listing;
    const shown = entries
      .slice(0, MAX_LISTING)
      .map((e) => echo(e, MAX_NAME))
      .join(', ');
    const more = entries.length > MAX_LISTING ? `, … (${entries.length} entries)` : '';
    lines.push(`Folder "${echo(folder) || '.'}" contains: ${shown || '(empty)'}${more}`);
  }
  if (input.rawArguments !== undefined) lines.push(`You sent: ${echo(input.rawArguments)}`);
  return lines.join('\n');
}
