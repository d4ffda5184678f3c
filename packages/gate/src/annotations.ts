// What a tool says about itself, in MCP's shape (spec 2025-06-18, `ToolAnnotations`): hints a client
// may act on, never guarantees. Defined once, here, so that the gate (which must not import the
// server), own tools (src/tools/define.ts), MCP tools (src/tools/mcp/) and a gateway request's tools
// all carry the same words.
//
// The gate reads one thing from them, and this is the one place its rule is stated (issues 24, 29):
// **only a tool known to change nothing may be reached by something the model did not write as a call
// to it.** That is a tool name guessed beyond a near-certain typo (tool-name.ts: a repair, a
// suggestion) and a call taken from prose rather than from a calling form (text-calls.ts). A tool is
// known to change nothing when its annotations say `readOnlyHint: true`, or, for a tool without
// annotations (a gateway request's tools, the corpora), when its name reads as a lookup: a word of
// READ_ONLY_WORDS in it and no word of CHANGING_WORDS. Anything else (writes, deletes, pays, sends,
// and every verb nobody listed: `flush_db`, `deactivate_user`, `cancel_sub`) is reached only by its
// own name, written as a call.
// `isDestructive` says the narrower thing MCP means by destructive (GET /v1/tools shows it).
import { words } from './words.ts';

/** MCP's tool annotations. */
export interface ToolAnnotations {
  /** A human-readable title. */
  title?: string;
  /** The tool does not change its environment (MCP default: false). */
  readOnlyHint?: boolean;
  /** When it changes its environment, it may destroy or overwrite (MCP default: true). */
  destructiveHint?: boolean;
  /** Calling it again with the same arguments has no further effect (MCP default: false). */
  idempotentHint?: boolean;
  /** It reaches outside a closed world, such as the web (MCP default: true). */
  openWorldHint?: boolean;
}

/** The words that make a tool without annotations destructive, as whole words of its name. */
export const DESTRUCTIVE_WORDS: readonly string[] = ['delete', 'remove', 'drop', 'destroy', 'erase', 'truncate', 'overwrite', 'reset', 'kill'];

/** The verbs of a lookup: a tool without annotations whose name has one of these (and none of CHANGING_WORDS) changes nothing. */
export const READ_ONLY_WORDS: readonly string[] = [
  ...['get', 'list', 'read', 'search', 'find', 'fetch', 'query', 'describe', 'show', 'view', 'lookup', 'count', 'check'],
  ...['stat', 'stats', 'inspect', 'retrieve', 'browse', 'peek', 'preview', 'calculate', 'calc', 'compute', 'estimate'],
];

/**
 * Words that undo a read-only verb beside them (`get_or_create_user`, `fetch_and_delete`,
 * `read_then_write`): the destructive ones and the common verbs of change. Not a list of every change
 * (nobody could write one): a name with none of READ_ONLY_WORDS is not read-only whatever its verb.
 */
export const CHANGING_WORDS: readonly string[] = [
  ...DESTRUCTIVE_WORDS,
  ...['create', 'write', 'update', 'set', 'put', 'patch', 'edit', 'modify', 'replace', 'insert', 'add', 'append', 'save', 'upload'],
  ...['send', 'pay', 'refund', 'buy', 'purchase', 'sell', 'cancel', 'submit', 'publish', 'deploy', 'install', 'exec', 'execute'],
  ...['move', 'rename', 'apply', 'approve', 'revoke', 'disable', 'enable', 'activate', 'deactivate', 'flush', 'purge', 'wipe', 'restart'],
  // A lookup verb beside one of these acts (`show_notification` notifies, `count_vote` votes, `check_out_cart` buys).
  ...['notify', 'notification', 'vote', 'out', 'checkout', 'login', 'logout', 'reserve', 'invite', 'share', 'transfer', 'charge'],
  ...['mint', 'trigger', 'launch', 'dispatch', 'start', 'stop'],
  ...['and', 'then'],
];

const DESTRUCTIVE = new Set(DESTRUCTIVE_WORDS);
const READ_ONLY = new Set(READ_ONLY_WORDS);
const CHANGING = new Set(CHANGING_WORDS);

/**
 * Destructive in MCP's sense. With annotations, MCP's defaults: destructive unless
 * `readOnlyHint === true` or `destructiveHint === false`. Without, by its name: one of
 * DESTRUCTIVE_WORDS as a whole word of it (`delete_file`, `dropTable`, `kill-process`; not `profile`,
 * `dropdown_options`).
 */
export function isDestructive(tool: { name: string; annotations?: ToolAnnotations }): boolean {
  const a = tool.annotations;
  if (a) return !(a.readOnlyHint === true || a.destructiveHint === false);
  return words(tool.name).some((w) => DESTRUCTIVE.has(w));
}

/**
 * Known to change nothing (the rule at the top of this file): `readOnlyHint: true`, or without
 * annotations a name with a word of READ_ONLY_WORDS and none of CHANGING_WORDS (`get_weather`,
 * `searchFiles`, `hotel_room_pricing_get`; not `flush_db`, `get_or_create_user`, `solve_quadratic`).
 */
export function isReadOnly(tool: { name: string; annotations?: ToolAnnotations }): boolean {
  if (tool.annotations) return tool.annotations.readOnlyHint === true;
  const w = words(tool.name);
  return w.some((x) => READ_ONLY.has(x)) && !w.some((x) => CHANGING.has(x));
}
