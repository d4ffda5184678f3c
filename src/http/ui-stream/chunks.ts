// The AI SDK's UI message stream (protocol v1, what `useChat` reads), as far as Rebound writes it: the
// chunk types and fields below are the ones every client from ai 5 to ai 7 accepts. ai 5's schema is
// strict (an unknown field, or a chunk type it does not know, fails the whole stream), so nothing is
// added here that ai 5 lacked: no `finishReason` on finish, no `reason` on abort. The exception is a
// turn that waits for a person (docs/use-chat.md § Approval): the approval chunks (`tool-approval-request`,
// `tool-approval-response`, `tool-output-denied`) came with ai 6, so approval needs ai ≥ 6; a stream
// without approvals never carries them. The `ai` package is a devDependency only; the tests validate
// every chunk with its own `uiMessageChunkSchema`.
import type { Repair, VerdictKind } from 'rebound-gate';
import type { ApprovalDecision, DoneReason, SummaryReason, TurnEvent, Usage } from '../../vocabulary.ts';

/** The assistant message's metadata: what `start` carries (the turn), then what `finish` adds (how it ended). */
export type StartMetadata = Extract<TurnEvent, { event: 'turn_start' }>['data'];
export interface FinishMetadata {
  reason: DoneReason;
  iterations: number;
  usage: Usage;
}
export type ReboundMessageMetadata = StartMetadata & Partial<FinishMetadata>;

/** `data-rebound-verdict`: what the gate made of one call, kept in the message beside its tool part. */
export interface VerdictData {
  toolCallId: string;
  /** The tool that ran (a repaired call may have been renamed), or the name the model wrote. */
  toolName: string;
  verdict: VerdictKind;
  category: string;
  /** What the gate changed (empty unless repaired). */
  repairs: Repair[];
  /** What the gate offered instead (blocked calls). */
  suggestions?: string[];
  /** For a call that waited for a person: their decision (or expired), beside the gate's verdict. */
  approval?: ApprovalDecision;
}

/**
 * `data-rebound-approval`: what a person decides on, beside the tool part in `approval-requested`: the
 * call as it will run (repaired), what a file write would change, and until when the decision is open.
 */
export type ApprovalData = Omit<Extract<TurnEvent, { event: 'approval_required' }>['data'], 'name'> & { toolName: string };

/**
 * `data-rebound-input`: a call's MCP server asks the person a question (the input_required event, whole);
 * answered with POST /v1/turns/:turnId/inputs/:inputId (docs/use-chat.md).
 */
export type InputData = Extract<TurnEvent, { event: 'input_required' }>['data'];

/** `data-rebound-forced-summary` (transient: useChat hands it to onData and keeps it out of the message). */
export interface ForcedSummaryData {
  reason: SummaryReason;
}

/** Server-side tools: the client must neither run them (onToolCall) nor send their results back. */
interface ToolFlags {
  dynamic: true;
  providerExecuted: true;
}

export type UiChunk =
  | { type: 'start'; messageId: string; messageMetadata: StartMetadata }
  | { type: 'start-step' }
  | { type: 'finish-step' }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | ({ type: 'tool-input-start'; toolCallId: string; toolName: string } & ToolFlags)
  | ({ type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown } & ToolFlags)
  | ({ type: 'tool-input-error'; toolCallId: string; toolName: string; input: unknown; errorText: string } & ToolFlags)
  | ({ type: 'tool-output-available'; toolCallId: string; output: unknown } & ToolFlags)
  | ({ type: 'tool-output-error'; toolCallId: string; errorText: string } & ToolFlags)
  | { type: 'data-rebound-verdict'; id: string; data: VerdictData }
  | { type: 'data-rebound-forced-summary'; data: ForcedSummaryData; transient: true }
  | { type: 'data-rebound-approval'; id: string; data: ApprovalData }
  | { type: 'data-rebound-input'; id: string; data: InputData }
  /** `signature`: Rebound's HMAC of the approval (ui-stream/approval-signature.ts), checked when the response comes back. */
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string; signature?: string }
  | { type: 'tool-approval-response'; approvalId: string; approved: boolean; reason?: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'error'; errorText: string }
  | { type: 'message-metadata'; messageMetadata: FinishMetadata }
  | { type: 'finish'; messageMetadata: FinishMetadata }
  /** The end of a stream at a pause for approval: the turn goes on once decided, in the next request's stream. */
  | { type: 'finish' }
  | { type: 'abort' };

/** The response headers of a UI message stream (besides the SSE ones every stream has). */
export const UI_MESSAGE_STREAM_HEADERS = { 'x-vercel-ai-ui-message-stream': 'v1' } as const;
