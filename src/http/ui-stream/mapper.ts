// Rebound's turn events as UI message stream chunks: the second face of the same turn log, so a
// `useChat` app reads a turn (live, or replayed from its first event on resume) without knowing
// Rebound's own events. One mapper per stream; it keeps only what the protocol needs across events:
// the open text part, the open step, and each call's name and input for its result.
//
//   turn_start      → start {messageId: turnId, messageMetadata: {turnId, sessionId, model, demo}}
//   a model call    → start-step … finish-step (a call's results stay in its step)
//   text_delta      → text-start / text-delta / text-end
//   tool_call       → tool-input-start, tool-input-available (dynamic, run on the server)
//   tool_result     → tool-output-available (passed, repaired), tool-input-error (blocked: the gate's
//                     message the model received), tool-output-error (the tool failed); and for every
//                     call a data-rebound-verdict part {toolCallId, toolName, verdict, category, repairs, suggestions?}
//   approval_required → the call as it will run (tool-input-available again when the gate changed it),
//                     data-rebound-approval {approvalId, toolCallId, toolName, arguments, diffs?, expiresAt},
//                     tool-approval-request {approvalId, toolCallId, signature?}; at the pause (the
//                     route's reader says which event that is) the step ends and the stream finishes, as
//                     AI SDK servers do: the client's approval response is the next request
//   tool_result with `approval` → tool-approval-response first; denied or expired: tool-output-denied
//   forced_summary  → data-rebound-forced-summary (transient), before the summary's text
//   agent_error     → error
//   done            → finish {messageMetadata: {reason, iterations, usage}} (also `interrupted`: a turn a restart closed); an aborted turn:
//                     message-metadata with the same, then abort
import { jsonText } from 'rebound-gate/internal';
import type { Frame } from '../sse.ts';
import type { TurnEvent } from '../../vocabulary.ts';
import { UI_MESSAGE_STREAM_HEADERS, type StartMetadata, type UiChunk, type VerdictData } from './chunks.ts';
import { assertNever } from '../../vocabulary.ts';

type ToolResult = Extract<TurnEvent, { event: 'tool_result' }>['data'];
type ApprovalRequired = Extract<TurnEvent, { event: 'approval_required' }>['data'];

const SERVER_TOOL = { dynamic: true, providerExecuted: true } as const;

export class UiMessageStreamMapper {
  /** The open step: the iteration its tool calls belong to (null before its first call), and whether a result came. */
  private step: { iteration: number | null; hasResults: boolean } | null = null;
  private textId: string | null = null;
  private texts = 0;
  private readonly calls = new Map<string, { toolName: string; input: unknown }>();
  /** The approval each waiting call was asked under, by tool call id: its response names it. */
  private readonly approvals = new Map<string, string>();
  /** The turn_start's metadata: a continuation's stream starts with it again. */
  private started: StartMetadata | null = null;

  private readonly signatureOf: (approvalId: string) => string | undefined;
  /** `signatureOf`: the signature of an approval request, when the route signs them (approval-signature.ts). */
  constructor(signatureOf: (approvalId: string) => string | undefined = () => undefined) {
    this.signatureOf = signatureOf;
  }

  /** The chunks one event becomes (none for an empty text delta). */
  map(event: TurnEvent): UiChunk[] {
    const out: UiChunk[] = [];
    switch (event.event) {
      case 'turn_start':
        this.started = { ...event.data };
        out.push(this.start()!);
        break;
      case 'text_delta': {
        if (event.data.text === '') break;
        // Text after a step's results is the next model call's.
        if (this.step?.hasResults) this.endStep(out);
        this.openStep(out);
        if (this.textId === null) {
          this.textId = `text-${++this.texts}`;
          out.push({ type: 'text-start', id: this.textId });
        }
        out.push({ type: 'text-delta', id: this.textId, delta: event.data.text });
        break;
      }
      case 'tool_call': {
        const { id, name, iteration } = event.data;
        this.endText(out);
        if (this.step && this.step.iteration !== null && this.step.iteration !== iteration) this.endStep(out);
        this.openStep(out).iteration = iteration;
        this.callStarted(out, id, name, parseInput(event.data.arguments));
        break;
      }
      case 'tool_result':
        this.toolResult(out, event.data);
        break;
      case 'approval_required':
        this.approvalRequired(out, event.data);
        break;
      case 'input_required':
        // A server's question: a data part beside the call; the answer goes to POST /v1/turns/:turnId/inputs/:inputId.
        this.endText(out);
        out.push({ type: 'data-rebound-input', id: `input-${event.data.inputId}`, data: event.data });
        break;
      case 'forced_summary':
        this.endText(out);
        this.endStep(out);
        out.push({ type: 'data-rebound-forced-summary', data: { reason: event.data.reason }, transient: true });
        break;
      case 'agent_error':
        out.push({ type: 'error', errorText: event.data.message });
        break;
      case 'done': {
        this.endText(out);
        this.endStep(out);
        const metadata = { reason: event.data.reason, iterations: event.data.iterations, usage: event.data.usage };
        if (event.data.reason === 'aborted') out.push({ type: 'message-metadata', messageMetadata: metadata }, { type: 'abort' });
        else out.push({ type: 'finish', messageMetadata: metadata });
        break;
      }
      default:
        // A new event type must be mapped here, or useChat clients would never see it.
        return assertNever(event, 'turn event');
    }
    return out;
  }

  /** The `start` chunk again (a continuation's stream, after a decision), once the turn_start was mapped. */
  start(): UiChunk | null {
    return this.started && { type: 'start', messageId: this.started.turnId, messageMetadata: { ...this.started } };
  }

  /** The end of a stream at a pause for approval: the open text and step end, then finish (no metadata: the turn has not ended). */
  pause(): UiChunk[] {
    const out: UiChunk[] = [];
    this.endStep(out);
    out.push({ type: 'finish' });
    return out;
  }

  private approvalRequired(out: UiChunk[], approval: ApprovalRequired): void {
    const { approvalId, toolCallId, name, arguments: input, diffs, expiresAt } = approval;
    this.endText(out);
    const known = this.calls.get(toolCallId);
    if (!known) this.callStarted(out, toolCallId, name, input);
    else if (known.toolName !== name || JSON.stringify(known.input) !== JSON.stringify(input)) {
      // The person sees the call as it will run: the gate's repaired name and arguments.
      this.calls.set(toolCallId, { toolName: name, input });
      out.push({ type: 'tool-input-available', toolCallId, toolName: name, input, ...SERVER_TOOL });
    }
    this.approvals.set(toolCallId, approvalId);
    out.push({
      type: 'data-rebound-approval',
      id: `approval-${approvalId}`,
      data: { approvalId, toolCallId, toolName: name, arguments: input, ...(diffs ? { diffs } : {}), expiresAt },
    });
    const signature = this.signatureOf(approvalId);
    out.push({ type: 'tool-approval-request', approvalId, toolCallId, ...(signature ? { signature } : {}) });
  }

  private toolResult(out: UiChunk[], result: ToolResult): void {
    const toolCallId = result.id;
    // After a pause the result opens the continuation's first step.
    this.openStep(out);
    // A result always follows its call in a turn's log; should one come alone, its call is shown first.
    const call = this.calls.get(toolCallId) ?? this.callStarted(out, toolCallId, result.name, null);
    const approvalId = this.approvals.get(toolCallId);
    if (result.approval && approvalId) {
      const approved = result.approval === 'approved';
      out.push({ type: 'tool-approval-response', approvalId, approved, ...(!approved && result.error ? { reason: result.error } : {}) });
    }
    if (result.approval === 'denied' || result.approval === 'expired') {
      out.push({ type: 'tool-output-denied', toolCallId });
    } else if (result.verdict === 'blocked') {
      out.push({
        type: 'tool-input-error',
        toolCallId,
        toolName: call.toolName,
        input: call.input,
        errorText: result.error ?? 'The call was blocked.',
        ...SERVER_TOOL,
      });
    } else if (result.ok) {
      out.push({ type: 'tool-output-available', toolCallId, output: result.result ?? null, ...SERVER_TOOL });
    } else {
      out.push({ type: 'tool-output-error', toolCallId, errorText: result.error ?? 'The tool failed.', ...SERVER_TOOL });
    }
    const verdict: VerdictData = {
      toolCallId,
      toolName: result.name,
      verdict: result.verdict,
      category: result.category,
      repairs: result.repairs ?? [],
      ...(result.verdict === 'blocked' ? { suggestions: result.suggestions ?? [] } : {}),
      ...(result.approval ? { approval: result.approval } : {}),
    };
    out.push({ type: 'data-rebound-verdict', id: `verdict-${toolCallId}`, data: verdict });
    this.openStep(out).hasResults = true;
  }

  private callStarted(out: UiChunk[], toolCallId: string, toolName: string, input: unknown) {
    this.openStep(out);
    const call = { toolName, input };
    this.calls.set(toolCallId, call);
    out.push({ type: 'tool-input-start', toolCallId, toolName, ...SERVER_TOOL }, { type: 'tool-input-available', toolCallId, toolName, input, ...SERVER_TOOL });
    return call;
  }

  private openStep(out: UiChunk[]) {
    if (!this.step) {
      this.step = { iteration: null, hasResults: false };
      out.push({ type: 'start-step' });
    }
    return this.step;
  }

  private endStep(out: UiChunk[]): void {
    this.endText(out);
    if (!this.step) return;
    this.step = null;
    out.push({ type: 'finish-step' });
  }

  private endText(out: UiChunk[]): void {
    if (this.textId === null) return;
    out.push({ type: 'text-end', id: this.textId });
    this.textId = null;
  }
}

/** The call's input as the model wrote it: its JSON when it parses, else the raw text (a malformed call). */
function parseInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * SSE text for chunks: one `data:` line each; the stream's end (after done) is `data: [DONE]`. Written by
 * jsonText: a call's input is what the model wrote, nested at any depth (docs/configuration.md § Limits).
 */
export function uiFrames(chunks: UiChunk[], end: boolean): string {
  let text = '';
  for (const chunk of chunks) text += `data: ${jsonText(chunk)}\n\n`;
  return end ? `${text}data: [DONE]\n\n` : text;
}

/**
 * What the route's reader (approval-pause.ts) tells the format of a turn with approvals: the signatures
 * of its approval requests, the event at which the turn paused (the stream finishes after it), and for
 * a continuation the approvals just decided: the events up to the last one's request are what the
 * client has already, so they are mapped (the mapper needs its calls) but not sent.
 */
export interface UiStreamControl {
  signatures: Map<string, string>;
  /** The seq of the event the turn paused at (set before that event is framed), or null. */
  pauseSeq: number | null;
  /** The approvals a continuation answered: nothing is sent until each one's approval_required has been mapped. */
  answered?: Set<string>;
}

/** How one response writes a turn as a UI message stream: a fresh mapper, its frames and its headers. */
export function uiMessageStreamFormat(control?: UiStreamControl): { frame: Frame; headers: Record<string, string> } {
  const mapper = new UiMessageStreamMapper((id) => control?.signatures.get(id));
  const waiting = new Set(control?.answered);
  let muted = waiting.size > 0;
  let restart = false;
  const frame: Frame = (event, seq) => {
    const chunks = mapper.map(event);
    if (muted) {
      // The client's message ends at the pause: the step ends there, as the stream it read did.
      if (event.event === 'approval_required' && waiting.delete(event.data.approvalId) && waiting.size === 0) {
        mapper.pause();
        muted = false;
        restart = true;
      }
      return '';
    }
    if (restart && chunks.length > 0) {
      restart = false;
      const start = mapper.start();
      if (start) chunks.unshift(start);
    }
    if (control?.pauseSeq === seq) return uiFrames([...chunks, ...mapper.pause()], true);
    return uiFrames(chunks, event.event === 'done');
  };
  return { frame, headers: { ...UI_MESSAGE_STREAM_HEADERS } };
}
