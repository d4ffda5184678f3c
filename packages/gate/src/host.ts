// rebound-gate/host: what a host that gates a model's answers needs besides the verdict, kept out of the
// root export so that the root is the gate a user calls (gate, compileTools, the types, path index,
// extension keywords, limits). Two kinds, both used by Rebound's own server and by this package's
// adapters, both allowed to change with them:
// - the pieces of a gating host's answer handling, one way for the gateway and the three adapters:
//   blockedToolResult (what the model is told of a blocked call), splitCalls (the re-ask policy: which
//   calls go out, which a re-ask names), sameCall, HeldAnswer and TextHold (a streamed answer's text
//   held where it may be a call), extractTextCalls and gatedTextCalls (calls written into a text),
//   callsFinish (when the finish must say tool calls);
// - the helpers Rebound's server shares with the gate rather than keeping copies: bounded strings and
//   values (bound, echo, MAX_NAME), JSON (jsonText, isPlainObject, deepEqual, validate, schemaExample),
//   content checks (checkContent) and workspace paths (readWorkspacePath).
export { type BlockedNote, type BlockedToolResult, blockedToolResult } from './blocked-result.ts';
export { bound } from './bounded.ts';
export { checkContent } from './content/content.ts';
export {
  callsFinish,
  type GatedTextCalls,
  gatedTextCalls,
  HeldAnswer,
  type HeldAnswerEnd,
  type HeldAnswerOptions,
  type SplitCalls,
  sameCall,
  splitCalls,
} from './held-answer.ts';
export { jsonText } from './json/json-text.ts';
export { echo, MAX_NAME } from './message.ts';
export { readWorkspacePath, type WorkspacePath } from './paths/workspace-path.ts';
export { isPlainObject } from './plain-object.ts';
export { schemaExample } from './schema/schema-example.ts';
export { deepEqual, validate } from './schema/schema.ts';
export { extractTextCalls, type TextCall } from './text-calls.ts';
export { TextHold } from './text-hold.ts';
