// The gate's vocabulary. Everything here is plain data so that a toolset can come from zod, an MCP
// server or a JSON file alike: the gate reads JSON Schema and nothing else.
import type { ToolAnnotations } from './annotations.ts';
import type { GateLimits } from './limits.ts';

export type { ToolAnnotations } from './annotations.ts';

/** A JSON Schema (draft 2020-12 subset as produced by zod's toJSONSchema and by MCP servers). */
export type JSONSchema = {
  type?: string | string[];
  properties?: Record<string, JSONSchema>;
  required?: string[];
  items?: JSONSchema;
  additionalProperties?: boolean | JSONSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JSONSchema[];
  oneOf?: JSONSchema[];
  default?: unknown;
  description?: string;
  [keyword: string]: unknown;
};

/** One tool as the gate sees it. */
export interface ToolSpec {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters: JSONSchema;
  /** Top-level parameters that name a path which must already exist in the context's path index. */
  pathParams?: string[];
  /** Top-level parameters that carry code or a file body (checked for placeholders and truncation). */
  codeParams?: string[];
  /** Top-level parameters that carry a piece of a file (an edit's new text): checked for placeholders only. */
  fragmentParams?: string[];
  /** Top-level parameters that may hold a patch in apply_patch's format (its text, or a shell command with it): its added lines are checked. */
  patchParams?: string[];
  /**
   * MCP's hints about the tool (annotations.ts). Absent: the tool's name decides whether it is
   * destructive (`isDestructive`), which is all the gate reads of them.
   */
  annotations?: ToolAnnotations;
  /**
   * Where the tool lives when it is not the app's own: an MCP server and its name there. The gate reads
   * only whether it is set: such a tool never wins a tie with the app's own (tool-name.ts).
   */
  origin?: { server: string; tool: string };
}

/** A tool call as the model proposed it: `arguments` is the raw text, exactly as streamed. */
export interface ProposedCall {
  id: string;
  name: string;
  arguments: string;
  /**
   * The arguments' whole length when `arguments` holds only their start: a host reading a stream keeps
   * a call's arguments up to MAX_ARGUMENTS_CHARS and counts the rest. Such a call is blocked unread
   * (too large), whatever the limits, and the message gives this length.
   */
  argumentsChars?: number;
}

/** A call the gate accepts: the resolved tool name and parsed arguments. */
export interface ResolvedCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export type Category =
  | 'valid'
  | 'execution_error'
  | 'phantom_tool'
  | 'malformed_json'
  | 'missing_required'
  | 'wrong_type'
  | 'enum_violation'
  | 'unknown_parameter'
  | 'invalid_path'
  | 'placeholder_content'
  | 'syntax_error'
  | 'text_embedded_call'
  /** Set by the loop, not the gate: the same call failed the same way earlier in the turn (loop/loop-breaker.ts). */
  | 'repeated_failure';

/** One thing that was wrong, at a JSON path such as `$.options.mode` or `$.files[2]`. */
export interface Problem {
  category: Exclude<Category, 'valid' | 'execution_error' | 'repeated_failure'>;
  path: string;
  message: string;
}

/** One change the gate made to a call, e.g. `{kind: 'coerce', path: '$.count', from: '"42"', to: '42'}`. */
export interface Repair {
  kind: string;
  path: string;
  from?: string;
  to?: string;
  /** The category of the mistake this repair fixed. */
  category: Problem['category'];
}

interface VerdictBase {
  /** Parameter names the model sent that the tool does not declare (kept: they are feature requests). */
  invented: string[];
}

/** What the gate decided, by name: the one spelling of these literals (activity rows, events, chunks use it). */
export type VerdictKind = Verdict['verdict'];

export type Verdict =
  | (VerdictBase & { verdict: 'pass'; category: 'valid'; call: ResolvedCall })
  | (VerdictBase & {
      verdict: 'repaired';
      /** The category of the first (most important) repaired mistake. */
      category: Problem['category'];
      call: ResolvedCall;
      repairs: Repair[];
    })
  | (VerdictBase & {
      verdict: 'blocked';
      category: Problem['category'];
      problems: Problem[];
      /** At most 3, best first: tool names, parameter names, enum values or paths. */
      suggestions: string[];
      /** The exact text the model receives as the tool result. */
      message: string;
      /** For path problems: the nearest existing folder and its entries. */
      listing?: { folder: string; entries: string[] };
    });

/** What the gate may consult besides the call and the toolset. Built once per path set, reused per call. */
export interface GateContext {
  paths?: PathIndex;
  /** Overrides of the hard caps in limits.ts (argument size, nesting depth); the defaults suit the loop. */
  limits?: Partial<GateLimits>;
}

/** An index over the paths that exist (workspace files and their folders). Built by `buildPathIndex`. */
export interface PathIndex {
  has(path: string): boolean;
  /** Up to `limit` existing paths most like `path`, best first; empty when nothing is close enough. */
  suggest(path: string, limit?: number): string[];
  /** The nearest existing ancestor folder of `path` and its direct entries. */
  nearestListing(path: string): { folder: string; entries: string[] };
  readonly size: number;
}
