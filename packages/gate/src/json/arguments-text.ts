// Layer 1: the raw arguments text → a JSON value.
//
// Only readings that cannot change what the model meant are accepted: a code fence around the JSON,
// trailing commas, single-quoted strings, Python's True/False/None, `//` and `/* */` comments, a JSON
// string holding the JSON, raw control characters inside a string (a newline or tab written as itself
// in a file body: read as its escape, which is lossless). The reader (loose-json.ts, shared with calls written into the text) reads
// values out of the text rather than rewriting it, so no string's content is ever touched.
// Everything else is refused, and two things in particular are never "fixed": text that stops before
// its brackets close (the model ran out of tokens; closing it would execute half a call) and `...`
// standing where content should be. A general JSON repairer (jsonrepair) does both silently, so this
// layer uses its own reader instead.
// Every step is one pass over the text (no backtracking pattern), and text over the size cap or
// nested past the depth cap (limits.ts) is refused before anything else reads it.
import { echo } from '../message.ts';
import { formatCount, gateLimits, type GateLimits, MAX_ARGUMENTS_CHARS } from '../limits.ts';
import { FAIL, LooseReader, scanStructure, type Dialect } from './loose-json.ts';
import type { Repair } from '../types.ts';

export type ParsedArguments =
  | { ok: true; value: unknown; repairs: Repair[] }
  | { ok: false; reason: 'truncated' | 'elided' | 'syntax' | 'too_large' | 'too_deep'; message: string };

/** What a call's arguments may be written in: JSON plus single quotes and comments. */
const ARGUMENTS: Dialect = { singleQuotes: true, comments: true, rawControls: true };

/** What no JSON.parse returns: the strict reading refused the text. */
const REFUSED: unique symbol = Symbol('refused');

function repair(from: string, to: string): Repair {
  return { kind: 'json_syntax', path: '$', from, to, category: 'malformed_json' };
}

/** `wholeChars`: the arguments' length when `raw` is only their start (ProposedCall `argumentsChars`): too large, unread. */
export function parseArgumentsText(raw: string, overrides?: Partial<GateLimits>, wholeChars?: number): ParsedArguments {
  const limits = gateLimits(overrides);
  if (wholeChars !== undefined || raw.length > limits.maxArgumentsChars) {
    // A host keeps no more than MAX_ARGUMENTS_CHARS of a streamed call: that is its limit, when lower.
    const limit = wholeChars === undefined ? limits.maxArgumentsChars : Math.min(limits.maxArgumentsChars, MAX_ARGUMENTS_CHARS);
    return {
      ok: false,
      reason: 'too_large',
      message: `${formatCount(wholeChars ?? raw.length)} characters long, over the limit of ${formatCount(limit)}: they were not read. Send a smaller call (for a large file, write the first part, then add the rest in further calls)`,
    };
  }
  const text = raw.trim();
  // An empty arguments string is how several APIs stream a call without parameters.
  if (text === '') return { ok: true, value: {}, repairs: [] };
  // The structure is scanned (a JS pass over every character) only where it may be too deep: a text
  // with no more brackets than the depth limit cannot nest past it, and JSON.parse may read it at once.
  // A held call's arguments are read once a request on cold caches, where that pass was a large step
  // (docs/benchmarks.md § The streaming paths at the physical limit).
  let shape = mayNestPast(text, limits.maxNestingDepth) ? scanStructure(text, limits.maxNestingDepth, ARGUMENTS) : undefined;
  if (shape?.kind === 'too_deep') {
    return { ok: false, reason: 'too_deep', message: `nested more than ${limits.maxNestingDepth} levels deep (objects and arrays): send a flatter value` };
  }
  let strict: unknown = REFUSED;
  try {
    strict = JSON.parse(text);
  } catch {
    // fall through to the lenient reading, which is only ever taken for text JSON.parse refused
  }
  if (strict !== REFUSED) return unwrapJsonString(strict, [], limits);
  shape ??= scanStructure(text, limits.maxNestingDepth, ARGUMENTS);
  const repairs: Repair[] = [];
  const fenced = unfence(text);
  if (fenced !== undefined) repairs.push(repair('code fence', 'JSON'));
  const body = fenced ?? text;
  const refused = refusal(fenced === undefined ? shape : scanStructure(body, limits.maxNestingDepth, ARGUMENTS));
  if (refused) return refused;
  const reader = new LooseReader(body, ARGUMENTS);
  const value = reader.readDocument();
  if (value === FAIL) {
    const at = reader.failAt;
    const what = at >= body.length ? 'the end of the text' : `"${echo(body.slice(at, at + 20), 20)}"`;
    return { ok: false, reason: 'syntax', message: `not valid JSON (unexpected ${what} at position ${at})` };
  }
  const { slips } = reader;
  if (slips.trailingComma) repairs.push(repair('trailing comma', 'removed'));
  if (slips.singleQuotes) repairs.push(repair("'single quotes'", '"double quotes"'));
  if (slips.comment) repairs.push(repair('comments', 'removed'));
  if (slips.pyLiteral) repairs.push(repair('True/False/None', 'true/false/null'));
  if (slips.rawControl) repairs.push(repair('raw control characters in a string', 'escaped'));
  return unwrapJsonString(value, repairs, limits);
}

/** Whether `text` has more than `maxDepth` opening brackets (in strings and comments too): only then may it nest past `maxDepth`. Counted by indexOf, stopping past the limit. */
function mayNestPast(text: string, maxDepth: number): boolean {
  let brackets = 0;
  for (const open of ['{', '[']) {
    for (let i = text.indexOf(open); i >= 0; i = text.indexOf(open, i + 1)) if (++brackets > maxDepth) return true;
  }
  return false;
}

/** What the structure alone refuses: a value cut off, or `...` standing for content. */
function refusal(shape: ReturnType<typeof scanStructure>): Extract<ParsedArguments, { ok: false }> | undefined {
  switch (shape.kind) {
    case 'unterminated':
      return { ok: false, reason: 'truncated', message: `the arguments end inside a ${shape.inside}: the JSON was cut off` };
    case 'unbalanced':
      return { ok: false, reason: 'syntax', message: `unbalanced brackets: unexpected "${shape.char}"` };
    case 'elided':
      return { ok: false, reason: 'elided', message: `"${shape.char}" stands where content should be: send the complete value` };
    case 'unclosed':
      return { ok: false, reason: 'truncated', message: `the arguments stop before ${shape.open} bracket(s) close: the JSON was cut off` };
    default:
      return undefined;
  }
}

/**
 * The body of a text wrapped in a code fence (```json … ```), trimmed; undefined when it is not one.
 * Same reading as /^```[\w-]*[ \t]*\r?\n?([\s\S]*?)\r?\n?[ \t]*```$/ then trim, without its
 * cubic backtracking: the language tag stops at the closing backticks, so the body is what lies between.
 */
export function unfence(text: string): string | undefined {
  if (text.length < 6 || !text.startsWith('```') || !text.endsWith('```')) return undefined;
  let i = 3;
  while (i < text.length && /[A-Za-z0-9_-]/.test(text[i]!)) i++;
  while (text[i] === ' ' || text[i] === '\t') i++;
  if (text[i] === '\r') i++;
  if (text[i] === '\n') i++;
  return text.slice(i, text.length - 3).trim();
}

/** A JSON string whose content is itself a JSON object or array: the model encoded twice. */
function unwrapJsonString(value: unknown, repairs: Repair[], limits: GateLimits): ParsedArguments {
  if (typeof value === 'string') {
    const inner = value.trim();
    if (inner.startsWith('{') || inner.startsWith('[')) {
      const parsed = parseArgumentsText(inner, limits);
      if (parsed.ok && typeof parsed.value === 'object' && parsed.value !== null) {
        return {
          ok: true,
          value: parsed.value,
          repairs: [...repairs, ...parsed.repairs, { kind: 'json_string_unwrapped', path: '$', from: 'string', to: 'object', category: 'wrong_type' }],
        };
      }
      if (!parsed.ok && parsed.reason !== 'syntax') return parsed;
    }
  }
  return { ok: true, value, repairs };
}
