// rebound-gate/host: the adapter kit, what a host that gates a model's answers needs besides the verdict,
// kept out of the root export so that the root is the gate a user calls (gate, compileTools, the types,
// path index, extension keywords, limits). One way for Rebound's gateway and this package's three
// adapters to handle an answer: blockedToolResult (what the model is told of a blocked call), splitCalls
// (the re-ask policy: which calls go out, which a re-ask names), sameCall, HeldAnswer and TextHold (a
// streamed answer's text held where it may be a call), extractTextCalls and gatedTextCalls (calls written
// into a text), callsFinish (when the finish must say tool calls), reaskLoop and reaskStream (the one
// re-ask loop: when a re-ask follows an answer, one 1-based attempt counter). Public: its export names are pinned by
// packages/gate/api.json and packages/gate/CHANGELOG.md. The helpers Rebound's server shares with the
// gate are rebound-gate/internal (internal.ts), which the published package does not expose.
export { type BlockedNote, type BlockedToolResult, blockedToolResult } from './blocked-result.ts';
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
export {
  type AnswerRead,
  type ReaskAttempt,
  type ReaskEnd,
  type ReaskEnded,
  type ReaskLoopRun,
  type ReaskStreamRun,
  reaskLoop,
  reaskStream,
} from './reask-loop.ts';
export { extractTextCalls, type TextCall } from './text-calls.ts';
export { TextHold } from './text-hold.ts';
