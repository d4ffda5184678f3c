// Layer 1: the raw arguments text → a JSON value.
//
// Only rewrites that cannot change what the model meant are accepted: a code fence around the JSON,
// trailing commas, single-quoted strings, Python's True/False/None, `//` and `/* */` comments, a JSON
// string holding the JSON.
// Everything else is refused, and two things in particular are never "fixed": text that stops before
// its brackets close (the model ran out of tokens; closing it would execute half a call) and `...`
// standing where content should be. A general JSON repairer (jsonrepair) does both silently, so this
// layer uses a small scanner of its own instead.
// Every step is one pass over the text (no backtracking pattern), and text over the size cap or
// nested past the depth cap (limits.ts) is refused before anything else reads it.
import { formatCount, gateLimits, type GateLimits } from './limits.ts';
import { isSpaceCode } from './text-json.ts';
import type { Repair } from './types.ts';

export type ParsedArguments =
  | { ok: true; value: unknown; repairs: Repair[] }
  | { ok: false; reason: 'truncated' | 'elided' | 'syntax' | 'too_large' | 'too_deep'; message: string };

const PY_LITERALS = new Map([
  ['True', 'true'],
  ['False', 'false'],
  ['None', 'null'],
]);
const [DQUOTE, SQUOTE, SLASH, STAR, BACKSLASH, DOT, COMMA, ELLIPSIS] = ['"', "'", '/', '*', '\\', '.', ',', '…'].map((c) => c.charCodeAt(0)) as [number, number, number, number, number, number, number, number];
const [OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET] = ['{', '}', '[', ']'].map((c) => c.charCodeAt(0)) as [number, number, number, number];
const isWordStart = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
const isWordChar = (c: number) => isWordStart(c) || (c >= 0x30 && c <= 0x39);

function repair(from: string, to: string): Repair {
  return { kind: 'json_syntax', path: '$', from, to, category: 'malformed_json' };
}

export function parseArgumentsText(raw: string, overrides?: Partial<GateLimits>): ParsedArguments {
  const limits = gateLimits(overrides);
  if (raw.length > limits.maxArgumentsChars) {
    return {
      ok: false,
      reason: 'too_large',
      message: `${formatCount(raw.length)} characters long, over the limit of ${formatCount(limits.maxArgumentsChars)}: they were not read. Send a smaller call (for a large file, write the first part, then add the rest in further calls)`,
    };
  }
  const text = raw.trim();
  // An empty arguments string is how several APIs stream a call without parameters.
  if (text === '') return { ok: true, value: {}, repairs: [] };
  if (nestsDeeperThan(text, limits.maxNestingDepth)) {
    return { ok: false, reason: 'too_deep', message: `nested more than ${limits.maxNestingDepth} levels deep (objects and arrays): send a flatter value` };
  }
  let strict: { value: unknown } | undefined;
  try {
    strict = { value: JSON.parse(text) };
  } catch {
    // fall through to the lenient path, which is only ever taken for text JSON.parse refused
  }
  if (strict) return unwrapJsonString(strict.value, [], limits);
  const repairs: Repair[] = [];
  let body = text;
  const fenced = unfence(body);
  if (fenced !== undefined) {
    body = fenced;
    repairs.push(repair('code fence', 'JSON'));
  }
  const normalised = normalise(body, repairs);
  if (!normalised.ok) return normalised;
  let value: unknown;
  try {
    value = JSON.parse(normalised.json);
  } catch (e) {
    return { ok: false, reason: 'syntax', message: `not valid JSON (${(e as Error).message.split('\n')[0]})` };
  }
  return unwrapJsonString(value, repairs, limits);
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

/**
 * Rewrites the accepted non-JSON spellings into JSON, and refuses truncation and elision. Strings are
 * copied verbatim (so `...` inside a string value is data, not an elision). One pass: what needs no
 * rewriting is copied in slices, not character by character.
 */
export function normalise(s: string, repairs: Repair[]): { ok: true; json: string } | Extract<ParsedArguments, { ok: false }> {
  let out = '';
  let copied = 0; // s[copied, i) is still to be copied as it is
  const rewrite = (from: number, to: number, replacement: string) => {
    out += s.slice(copied, from) + replacement;
    copied = to;
  };
  const stack: number[] = [];
  let sawTrailingComma = false;
  let sawSingleQuotes = false;
  let sawPyLiteral = false;
  let sawComment = false;
  let i = 0;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === DQUOTE || c === SQUOTE) {
      const end = stringEnd(s, i, c);
      if (end < 0) return { ok: false, reason: 'truncated', message: 'the arguments end inside a string: the JSON was cut off' };
      if (c === SQUOTE) {
        sawSingleQuotes = true;
        rewrite(i, end + 1, requote(s.slice(i + 1, end)));
      }
      i = end + 1;
      continue;
    }
    if (c === SLASH && (s.charCodeAt(i + 1) === SLASH || s.charCodeAt(i + 1) === STAR)) {
      // A comment the model added to explain a value: dropping it changes no value.
      const end = commentEnd(s, i);
      if (end < 0) return { ok: false, reason: 'truncated', message: 'the arguments end inside a comment: the JSON was cut off' };
      sawComment = true;
      rewrite(i, end, '');
      i = end;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) stack.push(c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET);
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (stack.pop() !== c) return { ok: false, reason: 'syntax', message: `unbalanced brackets: unexpected "${s[i]}"` };
    } else if (c === DOT && s.startsWith('...', i)) {
      return { ok: false, reason: 'elided', message: '"..." stands where content should be: send the complete value' };
    } else if (c === ELLIPSIS) {
      return { ok: false, reason: 'elided', message: '"…" stands where content should be: send the complete value' };
    } else if (c === COMMA) {
      let j = i + 1;
      while (j < n && isSpaceCode(s.charCodeAt(j))) j++;
      if (s.charCodeAt(j) === CLOSE_BRACE || s.charCodeAt(j) === CLOSE_BRACKET) {
        sawTrailingComma = true;
        rewrite(i, j, '');
        i = j;
        continue;
      }
    } else if (isWordStart(c)) {
      let j = i + 1;
      while (j < n && isWordChar(s.charCodeAt(j))) j++;
      const literal = PY_LITERALS.get(s.slice(i, j));
      if (literal) {
        sawPyLiteral = true;
        rewrite(i, j, literal);
      }
      i = j;
      continue;
    }
    i++;
  }
  if (stack.length > 0) {
    return { ok: false, reason: 'truncated', message: `the arguments stop before ${stack.length} bracket(s) close: the JSON was cut off` };
  }
  out += s.slice(copied);
  if (sawTrailingComma) repairs.push(repair('trailing comma', 'removed'));
  if (sawSingleQuotes) repairs.push(repair("'single quotes'", '"double quotes"'));
  if (sawComment) repairs.push(repair('comments', 'removed'));
  if (sawPyLiteral) repairs.push(repair('True/False/None', 'true/false/null'));
  return { ok: true, json: out };
}

/**
 * Whether objects and arrays in `s` nest more than `max` levels deep, reading strings (double or
 * single quoted) and comments as normalise does. Stops at the first level past `max`, so a value
 * nested 100,000 deep costs no more than one nested 65 deep, and never reaches JSON.parse.
 */
export function nestsDeeperThan(s: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === DQUOTE || c === SQUOTE) {
      i = stringEnd(s, i, c);
      if (i < 0) return false;
    } else if (c === SLASH && (s.charCodeAt(i + 1) === SLASH || s.charCodeAt(i + 1) === STAR)) {
      const end = commentEnd(s, i);
      if (end < 0) return false;
      i = end - 1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && depth > 0) depth--;
  }
  return false;
}

/** End of the comment opening at `i` (`//` to the line feed, which stays; `/* … *\/`), or -1 when a block comment never closes. */
function commentEnd(s: string, i: number): number {
  if (s.charCodeAt(i + 1) === SLASH) {
    const nl = s.indexOf('\n', i);
    return nl < 0 ? s.length : nl;
  }
  const close = s.indexOf('*/', i + 2);
  return close < 0 ? -1 : close + 2;
}

/** The body of a single-quoted string as a double-quoted JSON string (escapes kept as written). */
function requote(body: string): string {
  let out = '"';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\') {
      const next = body[i + 1] ?? '';
      out += next === "'" ? "'" : c + next;
      i++;
    } else out += c === '"' ? '\\"' : c;
  }
  return out + '"';
}

/** Index of the closing quote of the string opening at `start`, or -1 when the text ends first. */
function stringEnd(s: string, start: number, quote: number): number {
  for (let i = start + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === quote) return i;
  }
  return -1;
}
