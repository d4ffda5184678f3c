// Tools as a library's user writes them, `{name, description?, parameters}` (the shape of OpenAI's
// function tools and of every framework's JSON Schema export), read into the gate's ToolSpec once.
// Two extension keywords on a parameter's schema switch on the checks the gateway already offers:
//   "x-rebound-code": true   the value is code or a file body: placeholder and truncation checks
//   "x-rebound-path": true   the value names a path that must exist (checked only when the context
//                            gives a path index, `buildPathIndex`)
// Only top-level parameters are read (as the loop's own tools declare them). An upstream model never
// needs the keywords: `withoutExtensions` gives the schema to send it.
import type { GateContext, JSONSchema, ProposedCall, ToolAnnotations, ToolSpec, Verdict } from './types.ts';

export const CODE_KEYWORD = 'x-rebound-code';
export const PATH_KEYWORD = 'x-rebound-path';
const KEYWORDS = [CODE_KEYWORD, PATH_KEYWORD] as const;

/** A tool as given to the library. A schema-less tool takes an empty object. */
export interface Tool {
  name: string;
  description?: string | null;
  parameters?: JSONSchema | null;
  annotations?: ToolAnnotations;
}

/** Whether a parameter's schema sets `keyword` (true, or a non-empty string such as a language name). */
export function hasKeyword(schema: unknown, keyword: string): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const mark = (schema as Record<string, unknown>)[keyword];
  return mark === true || (typeof mark === 'string' && mark !== '');
}

// The specs toolSpec made: their keywords are read, so the gate takes them as they are without scanning
// their parameters again on every call (a gateway's toolset is read once and gated call after call).
const readSpecs = new WeakSet<ToolSpec>();

/** Whether `spec` came from toolSpec (or withFileParams on such a spec): its keywords are already read. */
export function wasRead(spec: object): boolean {
  return readSpecs.has(spec as ToolSpec);
}

/** `spec`, recorded as read: for a spec derived from one toolSpec made (file-tools.ts). */
export function markRead(spec: ToolSpec): ToolSpec {
  readSpecs.add(spec);
  return spec;
}

/** The gate's view of one tool: its top-level parameters marked as code or paths by the keywords. */
export function toolSpec(tool: Tool): ToolSpec {
  const parameters = tool.parameters ?? { type: 'object', properties: {} };
  const properties = parameters.properties ?? {};
  const marked = (keyword: string) => Object.keys(properties).filter((k) => hasKeyword(properties[k], keyword));
  const codeParams = marked(CODE_KEYWORD);
  const pathParams = marked(PATH_KEYWORD);
  return markRead({
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    parameters,
    ...(codeParams.length ? { codeParams } : {}),
    ...(pathParams.length ? { pathParams } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  });
}

/** `parameters` without the extension keywords (the same object when it has none), for an upstream model. */
export function withoutExtensions(parameters: JSONSchema): JSONSchema {
  const properties = parameters.properties;
  if (!properties || !Object.values(properties).some((p) => KEYWORDS.some((k) => hasKeyword(p, k)))) return parameters;
  const cleaned = Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => {
      const rest: Record<string, unknown> = { ...schema };
      for (const k of KEYWORDS) delete rest[k];
      return [name, rest as JSONSchema];
    }),
  );
  return { ...parameters, properties: cleaned };
}

/** A tool set read once, to check many calls against: `check(call, context?)` is `gate(call, tools, context)`. */
export interface CompiledTools {
  readonly tools: readonly ToolSpec[];
  check(call: ProposedCall, context?: GateContext): Verdict;
}
