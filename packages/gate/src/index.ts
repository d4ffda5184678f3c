// The gate: every proposed tool call passes these layers before anything runs.
//   1 arguments text → JSON   2 tool name → a tool   3 arguments → the tool's schema
//   4 path parameters → the context's path index     5 code parameters → content checks
// A call passes untouched when nothing is wrong, is repaired when every mistake has a repair that
// cannot change its meaning, and is blocked otherwise, with a message the model can act on.
// Arguments over the size cap or nested past the depth cap (limits.ts) are blocked before any layer
// reads them; so is a call to a tool whose schema is past the schema limits (schema-compile.ts: the
// caller is expected to have kept such a tool out of the toolset, each in its own way); every value of the model's that a message quotes is shortened with `echo`, and every
// string and list of the verdict is bounded on the way out (bounded.ts).
import { isReadOnly } from './annotations.ts';
import { parseArgumentsText } from './json/arguments-text.ts';
import { boundedVerdict } from './bounded.ts';
import { checkContent, checkFragment } from './content/content.ts';
import { checkPatch, patchIn } from './content/patch.ts';
import { blockedMessage, echo } from './message.ts';
import { checkSchema } from './schema/schema-compile.ts';
import { checkArguments } from './schema/schema-repair.ts';
import { isPlainObject } from './plain-object.ts';
import { type NameResolution, resolveToolName, toolNameMatcher } from './tool-name.ts';
import { readWorkspacePath } from './paths/workspace-path.ts';
import { CODE_KEYWORD, type CompiledTools, hasKeyword, PATH_KEYWORD, type Tool, toolSpec, wasRead } from './tools.ts';
import type { GateContext, Problem, ProposedCall, Repair, ToolSpec, Verdict } from './types.ts';

export type * from './types.ts';
export { DESTRUCTIVE_WORDS, isDestructive, isReadOnly, READ_ONLY_WORDS } from './annotations.ts';
// The rest of the public surface for a user of the gate; what a gating host needs besides (the blocked
// call's tool result, the re-ask policy, the text hold) is rebound-gate/host (host.ts). Everything else
// under src/ is the package's own and may change without notice (the helpers Rebound's server shares are
// rebound-gate/internal, which the published package does not expose).
export { MAX_ARGUMENTS_CHARS, MAX_ENUM_VALUES, MAX_NESTING_DEPTH, MAX_SCHEMA_BRANCHES, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES } from './limits.ts';
export { buildPathIndex } from './paths/paths.ts';
export { checkSchema, type SchemaCheck } from './schema/schema-compile.ts';
export { CODE_KEYWORD, type CompiledTools, hasKeyword, PATH_KEYWORD, type Tool, toolSpec, withoutExtensions } from './tools.ts';
export { withFileParams } from './file-tools.ts';

// When several mistakes were repaired, the verdict's category names the one that matters most.
const PRIORITY: Problem['category'][] = ['phantom_tool', 'malformed_json', 'missing_required', 'wrong_type', 'enum_violation', 'unknown_parameter'];

function mainCategory(repairs: readonly Repair[]): Problem['category'] {
  let best: Problem['category'] = repairs[0]?.category ?? 'wrong_type';
  for (const r of repairs) if (PRIORITY.indexOf(r.category) < PRIORITY.indexOf(best)) best = r.category;
  return best;
}

type Blocked = Extract<Verdict, { verdict: 'blocked' }>;

/** Said when a tool not known to be read-only was near the written name and not suggested (tool-name.ts, annotations.ts). */
const HELD_BACK = ' A tool that may change something is never guessed: call it by its exact name only if that is what the task needs.';

function blocked(
  tool: string,
  problems: Problem[],
  opts: { suggestions?: string[]; invented?: string[]; raw?: string; listing?: Blocked['listing'] } = {},
): Blocked {
  const suggestions = (opts.suggestions ?? []).slice(0, 3);
  const invented = opts.invented ?? [];
  const message = blockedMessage({ tool, problems, suggestions, invented, listing: opts.listing, rawArguments: opts.raw });
  const v: Blocked = { verdict: 'blocked', category: problems[0]!.category, problems, suggestions, message, invented };
  if (opts.listing) v.listing = opts.listing;
  return v;
}

/**
 * The verdict on one proposed call against the tools it may name: `pass` (run it as proposed),
 * `repaired` (run `call.args` instead: every mistake had a repair that cannot change its meaning) or
 * `blocked` (do not run it; give the model `message` as the tool's result). Tools may be ToolSpecs or
 * `{name, description?, parameters}` with the extension keywords (tools.ts), read on every call:
 * `compileTools` reads them once (a ToolSpec that toolSpec made is taken as it is, unread).
 */
export function gate(call: ProposedCall, toolset: readonly (ToolSpec | Tool)[], context: GateContext = {}): Verdict {
  const specs = toolset.every(isSpec) ? (toolset as readonly ToolSpec[]) : toolset.map(toolSpec);
  return boundedVerdict(gateCall(call, specs, context));
}

/** A tool set read once (extension keywords, defaults), to check many calls against. */
export function compileTools(toolset: readonly (ToolSpec | Tool)[]): CompiledTools {
  const tools: readonly ToolSpec[] = Object.freeze(toolset.map((t) => (isSpec(t) ? t : toolSpec(t))));
  return { tools, check: (call, context = {}) => boundedVerdict(gateCall(call, tools, context)) };
}

/** Already the gate's shape: parameters present, and no extension keyword left unread (toolSpec read them all). */
function isSpec(t: ToolSpec | Tool): t is ToolSpec {
  if (wasRead(t)) return true;
  if (!t.parameters) return false;
  const spec = t as ToolSpec;
  if (spec.codeParams !== undefined || spec.pathParams !== undefined) return true;
  return !Object.values(t.parameters.properties ?? {}).some((p) => hasKeyword(p, CODE_KEYWORD) || hasKeyword(p, PATH_KEYWORD));
}

/** `writtenName`: the name the model wrote, when the gate has already substituted the tool's name. */
function gateCall(call: ProposedCall, toolset: readonly ToolSpec[], context: GateContext, writtenName?: string): Verdict {
  // A name the toolset has as written (nearly every call) is resolveToolName's first answer, found here
  // without the names' list or the guessers. A held call is gated once a request, on cold caches and
  // in V8's interpreter, where each step costs what its code and data touch: so no closure over this
  // frame either (each would allocate its context on every call), the guesses' helpers are below
  // (docs/benchmarks.md § The streaming paths at the physical limit).
  const named = toolNamed(toolset, call.name);
  const names = named ? [] : toolset.map(nameOf);
  const resolved: NameResolution = named ? { kind: 'exact', name: named.name } : resolveToolName(call.name, names, guessers(toolset));
  const parsed = parseArgumentsText(call.arguments, context.limits, call.argumentsChars);
  // Arguments too large to read are not quoted back either: the message says their size.
  const raw = parsed.ok || parsed.reason !== 'too_large' ? call.arguments : undefined;

  if (resolved.kind === 'unknown' && parsed.ok && !/[A-Za-z]/.test(call.name)) {
    // No name at all (`""`, `[{` from a broken template): the arguments alone may identify the tool.
    // Only a tool known to change nothing: this is a guess (annotations.ts).
    const fits = fittingAsTheyStand(toolset, parsed.value);
    if (fits.length === 1 && readOnlyIn(toolset, fits[0]!.name)) return gateCall({ ...call, name: fits[0]!.name }, toolset, context, call.name);
  }
  if (resolved.kind === 'unknown') {
    const problems: Problem[] = [
      {
        category: 'phantom_tool',
        path: '$name',
        message: `There is no tool named "${echo(call.name, 80)}". Available: ${names.slice(0, 10).join(', ')}${names.length > 10 ? ', …' : ''}.${resolved.heldBack ? HELD_BACK : ''}`,
      },
    ];
    if (!parsed.ok) problems.push({ category: 'malformed_json', path: '$', message: `The arguments are ${parsed.message}.` });
    const wrapped = parsed.ok ? wrappedNames(parsed.value, names) : [];
    return blocked(call.name, problems, { suggestions: wrapped.length > 0 ? wrapped : resolved.suggestions });
  }
  const toolName = resolved.kind === 'similar' ? resolved.candidate : resolved.name;
  const tool = named ?? toolNamed(toolset, toolName)!;

  if (!parsed.ok) {
    const problems: Problem[] = [{ category: 'malformed_json', path: '$', message: `The arguments are ${parsed.message}.` }];
    if (resolved.kind === 'similar') problems.unshift(phantom(call.name));
    return blocked(call.name, problems, { raw, suggestions: resolved.kind === 'similar' ? resolved.suggestions : [] });
  }
  const repairs: Repair[] = [];
  if (resolved.kind !== 'exact' || writtenName !== undefined) {
    repairs.push({ kind: 'tool_name', path: '$name', from: writtenName ?? call.name, to: toolName, category: 'phantom_tool' });
  }
  for (const r of parsed.repairs) repairs.push(r);

  let args = parsed.value;
  if (Array.isArray(args) && args.length === 1 && isPlainObject(args[0])) {
    // A list holding the one arguments object: the model wrapped it, nothing is lost by unwrapping.
    repairs.push({ kind: 'unwrap_list', path: '$', from: 'array', to: 'object', category: 'wrong_type' });
    args = args[0];
  }
  if (!isPlainObject(args)) {
    const problems: Problem[] = [{ category: 'wrong_type', path: '$', message: 'The arguments must be a JSON object of parameter names to values.' }];
    return blocked(call.name, problems, { raw: call.arguments });
  }

  const readable = checkSchema(tool.parameters);
  if (!readable.ok) {
    const message = `The tool "${tool.name}" cannot be checked: its parameters schema ${readable.reason}. This call was not run.`;
    return blocked(tool.name, [{ category: 'wrong_type', path: '$', message }]);
  }
  const checked = checkArguments(args, tool.parameters);
  if (resolved.kind === 'similar' && !fitsAsTheyStand(checked)) {
    // A similar name is only trusted when the arguments fit that tool as they stand.
    return blocked(call.name, [phantom(call.name)], { suggestions: resolved.suggestions });
  }
  if (checked.status === 'blocked') {
    return blocked(tool.name, checked.problems, { suggestions: checked.suggestions, invented: checked.invented });
  }
  if (checked.status === 'repaired') repairs.push(...checked.repairs);
  const finalArgs = checked.args;
  const invented = checked.status === 'repaired' ? checked.invented : [];

  const later = checkPathsAndContent(tool, finalArgs, context);
  if (later) return { ...later, invented };

  const resolvedCall = { id: call.id, name: tool.name, args: finalArgs };
  if (repairs.length === 0) return { verdict: 'pass', category: 'valid', call: resolvedCall, invented };
  return { verdict: 'repaired', category: mainCategory(repairs), call: resolvedCall, repairs, invented };
}

/** The first tool of that name. */
function toolNamed(toolset: readonly ToolSpec[], name: string): ToolSpec | undefined {
  for (const t of toolset) if (t.name === name) return t;
  return undefined;
}

const nameOf = (t: ToolSpec): string => t.name;

const readOnlyIn = (toolset: readonly ToolSpec[], name: string): boolean => toolset.some((t) => t.name === name && isReadOnly(t));

/** What resolveToolName asks of the toolset when it guesses: which tools change nothing, which are a server's. */
function guessers(toolset: readonly ToolSpec[]) {
  return {
    readOnly: (name: string) => readOnlyIn(toolset, name),
    fromServer: (name: string) => toolset.some((t) => t.name === name && t.origin !== undefined),
  };
}

/** The tools the arguments fit as they stand (no name written: they alone may identify the tool). */
function fittingAsTheyStand(toolset: readonly ToolSpec[], value: unknown): ToolSpec[] {
  return toolset.filter((t) => isPlainObject(value) && checkSchema(t.parameters).ok && fitsAsTheyStand(checkArguments(value, t.parameters)));
}

/**
 * The arguments fit a tool whose name was guessed (similar, or none written): valid, or valid after
 * lossless conversions only. Nothing dropped as invented and no default filled in: one guess per
 * call, never a guessed tool on top of guessed values.
 */
function fitsAsTheyStand(checked: ReturnType<typeof checkArguments>): boolean {
  if (checked.status === 'pass') return true;
  return checked.status === 'repaired' && checked.invented.length === 0 && !checked.repairs.some((r) => r.kind === 'fill_default');
}

/**
 * The tools a wrapper call names inside its arguments, by their exact (or normalised) names: OpenAI
 * models call a `multi_tool_use.parallel` that does not exist with `{"tool_uses": [{"recipient_name":
 * "functions.get_weather", "parameters": {…}}]}`. The model named those tools itself: no guess.
 */
function wrappedNames(value: unknown, names: readonly string[]): string[] {
  const uses = isPlainObject(value) ? value.tool_uses : undefined;
  if (!Array.isArray(uses)) return [];
  const match = toolNameMatcher(names);
  const out: string[] = [];
  for (const use of uses.slice(0, 20)) {
    const written = isPlainObject(use) ? use.recipient_name : undefined;
    const m = typeof written === 'string' ? match(written) : undefined;
    if (m && m.kind !== 'ambiguous' && !out.includes(m.name)) out.push(m.name);
    if (out.length === 3) break;
  }
  return out;
}

function phantom(name: string): Problem {
  return { category: 'phantom_tool', path: '$name', message: `There is no tool named "${echo(name, 80)}".` };
}

/** Layers 4 and 5, for the parameters a tool declares as paths or as code. */
function checkPathsAndContent(tool: ToolSpec, args: Record<string, unknown>, context: GateContext): Blocked | undefined {
  // Most tools declare neither: nothing below reads their arguments.
  if (!tool.pathParams && !tool.codeParams && !tool.fragmentParams && !tool.patchParams) return undefined;
  const index = context.paths;
  if (index) {
    for (const param of tool.pathParams ?? []) {
      const value = args[param];
      if (typeof value !== 'string' || index.has(value)) continue;
      // Read as the workspace tools read it: an absolute path or one leaving the workspace is refused
      // there, so here too, with the relative path it most likely meant first among the suggestions.
      const read = readWorkspacePath(value);
      const message = read.refusal ?? `"${echo(value)}" does not exist.`;
      const suggestions = read.refusal && index.has(read.path) ? [read.path] : index.suggest(value, 3);
      return blocked(tool.name, [{ category: 'invalid_path', path: `$.${param}`, message }], { suggestions, listing: index.nearestListing(value) });
    }
  }
  // The file's name tells the content check its language: a declared path parameter, or the usual
  // names of one (write_file's path need not exist yet, so it is not declared as a path).
  const hintKeys = [...(tool.pathParams ?? []), ...Object.keys(args).filter((k) => /^(path|file_?path|file_?name|file)$/i.test(k))];
  const pathHint = hintKeys.map((k) => args[k]).find((v): v is string => typeof v === 'string');
  const hint = pathHint === undefined ? undefined : { path: pathHint };
  const ifString = (check: (text: string) => Problem[]) => (v: unknown) => (typeof v === 'string' ? check(v) : []);
  const checks: Array<[readonly string[] | undefined, (value: unknown) => Problem[]]> = [
    [tool.codeParams, ifString((text) => checkContent(text, hint))],
    [tool.fragmentParams, ifString((text) => checkFragment(text, hint))],
    [tool.patchParams, (v) => checkPatch(patchIn(v) ?? '')],
  ];
  for (const [params, check] of checks) {
    for (const param of params ?? []) {
      const found = check(args[param]);
      if (found.length === 0) continue;
      // Content problems are located within the content; re-anchor them at the parameter.
      const problems = found.map((p) => ({ ...p, path: `$.${param}${p.path.replace(/^\$/, '')}` }));
      return blocked(tool.name, problems);
    }
  }
  return undefined;
}
