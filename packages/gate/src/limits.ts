// Hard caps on what the gate will read from a model, in one place. Every layer already runs in time
// linear in its input; these caps bound the input itself, so that no model output can make a call
// (or a reply) cost more than a fixed amount of CPU and memory, and so that nothing downstream
// (schema walk, coercion, JSON.stringify in the loop, storage) ever meets a value deep enough to
// overflow the stack. Past a cap the call is blocked with a message that says the size and the limit.

/** Longest arguments text read at all (characters). Larger calls are blocked unparsed. */
export const MAX_ARGUMENTS_CHARS = 1_000_000;

/**
 * Deepest nesting of objects and arrays accepted in arguments (and in a call written into the text).
 * Real tool arguments nest a handful of levels; 64 leaves room for any schema while keeping every
 * recursive walk far from the stack limit.
 */
export const MAX_NESTING_DEPTH = 64;

/**
 * Longest reply searched for calls written into its text (characters): well above any model's output
 * limit. A longer reply is shown as it is, unsearched (the search keeps a few bytes per character).
 */
export const MAX_TEXT_CALL_CHARS = 2_000_000;

/**
 * What a host keeps of a streamed answer's text (HeldAnswer, TextHold): one character past what is
 * searched for calls, so that a text kept that long is known to be past the search. The rest is shown
 * as it comes and not kept: what a host holds of an answer does not grow with what the model streams.
 */
export const MAX_KEPT_TEXT_CHARS = MAX_TEXT_CALL_CHARS + 1;

/**
 * `kept + delta` cut to `max` characters: how a host keeps a text streamed in pieces (an answer's text
 * to MAX_KEPT_TEXT_CHARS, a call's arguments to MAX_ARGUMENTS_CHARS) without holding more than the gate reads.
 */
export function keptUpTo(kept: string, delta: string, max: number): string {
  if (kept.length + delta.length <= max) return kept + delta;
  return kept.length >= max ? kept : kept + delta.slice(0, max - kept.length);
}

/**
 * Longest tool name compared with the toolset's names (characters). Real names are at most 64 (the
 * OpenAI limit); a longer written name is no tool's misspelling: it is a phantom tool, unranked.
 */
export const MAX_TOOL_NAME_CHARS = 256;

/**
 * Most unknown parameter names a call may have for any of them to be compared with the declared
 * names (a rename, or a "did you mean"). A call with more is not misspelling a parameter: its unknown
 * names are all dropped as invented, and comparing each would cost time for nothing.
 */
export const MAX_RENAME_CANDIDATES = 32;

/** The caps a caller may override (GateContext.limits); unset fields take the defaults above. */
export interface GateLimits {
  maxArgumentsChars: number;
  maxNestingDepth: number;
}

export const DEFAULT_LIMITS: GateLimits = { maxArgumentsChars: MAX_ARGUMENTS_CHARS, maxNestingDepth: MAX_NESTING_DEPTH };

/** The defaults with a caller's overrides applied; a bad override is a programming error, said plainly. */
export function gateLimits(overrides?: Partial<GateLimits>): GateLimits {
  if (overrides === undefined) return DEFAULT_LIMITS;
  const limits = { ...DEFAULT_LIMITS, ...overrides };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`gate limits: ${key} must be a positive integer, got ${String(value)}`);
  }
  return limits;
}

/** 1234567 → "1,234,567": sizes in messages read at a glance. */
export const formatCount = (n: number): string =>
  Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');

// ---- tool schemas ------------------------------------------------------------------------------------
// A tool's parameters schema comes from a gateway client, an MCP server or functions/. The gate walks
// it per call, so its shape multiplies the work of every call: past these limits the gate does not
// read it at all (schema-compile.ts checks them once per schema, iteratively, before anything recursive).
// Within them a call's validation is linear in (argument size × schema size), and each value of the
// arguments is checked against at most MAX_SCHEMA_BRANCHES subschemas.

/**
 * Deepest JSON nesting of a parameters schema (objects and arrays, the schema itself at 1): each level
 * of `properties`, `items` or `anyOf` takes two. Real tool schemas nest a few levels; 32 keeps every
 * walk of the schema (and JSON.stringify of the request that carries it) far from the stack limit.
 */
export const MAX_SCHEMA_DEPTH = 32;

/** Most JSON values in a parameters schema (every object, array, string, number…, enum values included). */
export const MAX_SCHEMA_NODES = 20_000;

/**
 * Most subschemas one value of the arguments can be checked against through `anyOf`/`oneOf`: the
 * branches at its place in the schema, their own branches, and the branches of every schema that
 * reaches the same place (a property of each object branch). `anyOf: [string, null]` is 3; a union of
 * 10 object types whose `size` is `anyOf: [integer, null]` has 11 at the union and 30 at `size`.
 * This, not the schema's size, is what multiplies a call's work per value.
 */
export const MAX_SCHEMA_BRANCHES = 32;

/** Most values of one `enum` (looked up as a set; ranked for suggestions only when a call is blocked). */
export const MAX_ENUM_VALUES = 5_000;
