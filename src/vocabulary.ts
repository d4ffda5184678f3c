// The words the layers share: the chat messages the model reads and the store keeps, token usage,
// the events of a turn (docs/http-api.md § SSE protocol), how a turn ends, and what the model reads as
// a tool's result. It sits at the bottom of
// the layers (test/runtimes/layers.test.ts), beside the gate, and imports nothing but the gate's types,
// so model/, store/, loop/, turns/ and http/ can all speak it without importing one another.
import type { Category, Repair, VerdictKind } from 'rebound-gate';
import type { BlockedToolResult } from 'rebound-gate/host';

/** A message in OpenAI chat-completions shape, as stored in agent_messages and sent upstream. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: AssistantToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface AssistantToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * What the model reads as the result of one tool call (the tool message's content, as JSON): one shape
 * for every outcome. `ok: true`: the tool ran, `result` is what it returned (a string holding the start
 * of its JSON when it was too long, with `truncated` saying so). `ok: false`: `error` says what went
 * wrong; a call the gate blocked adds its `suggestions` (and, for a path, the nearest folder's
 * `listing`), a run that failed the tool's `hint`, and a repeated failure the tool's `schema` and a
 * valid `example` (src/loop/loop-breaker.ts). The failure's shape is the gate's blocked message
 * (rebound-gate's BlockedToolResult), defined once, with the run's `hint`, and for a call a person
 * denied (or let expire: docs/approval.md § Denied or expired) their `reason`, when they gave one.
 */
export type ToolResultPayload = { ok: true; result: unknown; truncated?: string } | (BlockedToolResult & { hint?: string; reason?: string });

/**
 * One file a tool changed, as the page shows it (functions/workspace/diff.ts): a unified diff of its
 * text before and after, capped. `added`/`removed` count every changed line, the cap notwithstanding.
 */
export interface FileDiff {
  path: string;
  change: 'created' | 'modified' | 'deleted';
  added: number;
  removed: number;
  /** "@@ -a,b +c,d @@" headers and " ", "-", "+" lines, joined by "\n"; "" for a binary file or no change. */
  hunks: string;
  /** Lines of hunks left out by the cap (the diff goes on past what is shown). */
  omitted?: number;
  binary?: true;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

/** Which part of Rebound gated a call (agent_activity.source): the agent loop, or the gateway for another app. */
export type ActivitySource = 'loop' | 'gateway';

/** The protocol a gateway call came in (agent_activity.protocol): Chat Completions, Anthropic Messages, Responses. */
export type GatewayProtocol = 'chat' | 'messages' | 'responses';

/**
 * Why a turn ends with a forced summary (the `forced_summary` event): a budget ran out, or the model
 * made no progress (NO_PROGRESS_ITERATIONS iterations in a row whose every call repeated a failure).
 */
export type SummaryReason = 'iteration_limit' | 'time_budget' | 'no_progress';

/**
 * Why a turn's stream ended: the reason its `done` event carries. `interrupted`: the process running the
 * turn died, and a later one closed it (src/store/interrupted.ts), appending this `done` to its stored
 * log, so a reader replaying it after a restart sees it end.
 */
export type DoneReason = 'completed' | SummaryReason | 'aborted' | 'error' | 'interrupted';

/** How a turn ended, as agent_turns records it: its `done` reason. */
export type TurnOutcome = DoneReason;

/**
 * Where a turn is in its life (agent_turns.status): created, claimed and running, paused until a person
 * decides on its calls (docs/approval.md § The pause is stored state: it holds no model connection, process or request meanwhile;
 * its state is stored), then running again, and finished.
 */
export type TurnStatus = 'pending' | 'running' | 'awaiting_approval' | 'finished';

/** What a person (or the clock) decided on a call that needed approval: the `approval` of its tool_result. */
export type ApprovalDecision = 'approved' | 'denied' | 'expired';

/** agent_activity.approval: asked and never answered (the turn ended while it waited), or the decision. */
export type ApprovalState = 'requested' | ApprovalDecision;

/** What came of an MCP server's question to the person (docs/approval.md § A server's question): their action, or expired / unanswered (the turn stopped first). */
export type Elicitation = 'accept' | 'decline' | 'cancel' | 'expired' | 'unanswered';

/**
 * What the loop did with one proposed call (src/calls/call-outcome.ts's `kind`), never the gate's Verdict:
 * it ran; the gate blocked it; the loop breaker withheld its tool; a person denied it; nobody decided in
 * APPROVAL_TIMEOUT_MS. A call that waits for a decision has no outcome yet.
 */
export type CallOutcomeKind = 'executed' | 'blocked' | 'withheld' | 'denied' | 'expired';

export type TurnEvent =
  | { event: 'turn_start'; data: { turnId: string; sessionId: string; model: string; demo: boolean } }
  | { event: 'text_delta'; data: { text: string } }
  | { event: 'tool_call'; data: { id: string; name: string; arguments: string; iteration: number } }
  | {
      event: 'tool_result';
      data: {
        id: string;
        name: string;
        verdict: VerdictKind;
        category: Category;
        ok: boolean;
        /** What the model got: past 40,000 characters of JSON, the start of that JSON as a string, and `truncated`. */
        result?: unknown;
        /** Present when `result` was cut: says the original length ("the result is 20971522 characters of JSON; …"). */
        truncated?: string;
        error?: string;
        suggestions?: string[];
        repairs?: Repair[];
        /** What the call changed in the workspace, for the page only: the model's tool message never carries it. */
        diffs?: FileDiff[];
        /** For a call that waited for a person: their decision, beside the gate's verdict. */
        approval?: ApprovalDecision;
        /** The reason a person typed when they denied the call (the page shows it; the model reads it in the tool message too). */
        reason?: string;
        durationMs: number;
      };
    }
  | {
      /**
       * A call that passed the gate waits for a person (docs/approval.md § The stream): the turn pauses once every
       * other call of its batch has run. `name` and `arguments` are the call as it will run (repaired);
       * `diffs` what a file write would change; decide with POST /v1/turns/:turnId/approvals/:approvalId
       * before `expiresAt` (ISO), or it is expired.
       */
      event: 'approval_required';
      data: {
        approvalId: string;
        toolCallId: string;
        name: string;
        arguments: Record<string, unknown>;
        diffs?: FileDiff[];
        expiresAt: string;
      };
    }
  | {
      /**
       * A call's MCP server asked the person a question (elicitation; docs/approval.md § A server's question):
       * the turn pauses until POST /v1/turns/:turnId/inputs/:inputId answers it or `expiresAt` passes.
       * `mode` form: a flat form from `requestedSchema`; url: a link to `url` for the person (never fetched by the server).
       */
      event: 'input_required';
      data: {
        inputId: string;
        toolCallId: string;
        /** The tool as the model called it (repaired), and the server and its own name for it. */
        name: string;
        server: string;
        tool: string;
        mode: 'form' | 'url';
        message: string;
        requestedSchema?: Record<string, unknown>;
        url?: string;
        expiresAt: string;
      };
    }
  | { event: 'forced_summary'; data: { reason: SummaryReason } }
  | { event: 'agent_error'; data: { message: string; retryable: boolean } }
  | { event: 'done'; data: { reason: DoneReason; iterations: number; usage: Usage } };

export type EventName = TurnEvent['event'];
export type Emit = (event: TurnEvent) => void;

/** An event as a turn's log holds it: numbered from 1 within the turn (the SSE `id:`). */
export interface LoggedEvent {
  seq: number;
  event: TurnEvent;
}

/**
 * The end of a switch over a union, every member handled: a member added later fails to compile here
 * (its value is not `never`), and a value the types did not foresee (data from outside) throws, naming it.
 */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
