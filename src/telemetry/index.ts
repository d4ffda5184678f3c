// OpenTelemetry traces of turns, model calls, the gate and tools, and gateway requests, in the GenAI
// semantic conventions (spans.ts says which). This file is what the rest of the app imports: the hooks'
// shapes, in Rebound's terms, and createTracing, which loads the SDK and the OTLP exporter (engine.ts)
// with import() on the first traced turn or request, so an app with tracing off never evaluates them
// and the Worker's startup script does not hold them (scripts/build-worker.ts splits them out).
// Tracing off is `undefined`: every hook is one optional call that does nothing.
import type { ProposedCall, Verdict } from 'rebound-gate';
import type { TracingConfig } from '../otel-config.ts';
import type { CallOutcomeKind, ChatMessage, Usage } from '../vocabulary.ts';

/** A caller's W3C trace context, as its request carried it (the header values, unparsed). */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** The carrier of an incoming request: a turn or a gateway request continues the caller's trace. */
export function carrierOf(headers: Headers): TraceCarrier | undefined {
  const traceparent = headers.get('traceparent') ?? undefined;
  if (!traceparent) return undefined;
  return { traceparent, tracestate: headers.get('tracestate') ?? undefined };
}

export interface Tracing {
  /** The turn's `invoke_agent` span, a child of the caller's span when `carrier` holds one. */
  startTurn(start: TurnStart): Promise<TurnTrace>;
  /** A gateway request's `chat {model}` span. */
  startGateway(start: GatewayStart): Promise<GatewayTrace>;
  /** Exports every ended span; hand it to waitUntil on the edge. Never rejects, and is bounded by the export timeout. */
  flush(): Promise<void>;
  /** Spans dropped so far (a collector down or slow, a full queue): for tests and benches. */
  stats?(): { dropped: number };
}

export interface TurnStart {
  turnId: string;
  sessionId: string;
  model: string;
  demo: boolean;
  carrier?: TraceCarrier;
  /**
   * A turn going on after a pause for approval: the paused turn's span (TurnTrace.carrier, stored with
   * the pause). The new span is its child, in its trace, and links to it.
   */
  continues?: TraceCarrier;
}

export interface TurnTrace {
  /** A model call of the turn (`chat {model}`), a child of the turn's span. */
  chat(start: ChatStart): ChatTrace;
  /** A proposed call (`execute_tool {name}`), executed or not: the gate's verdict and what the loop did. */
  call(call: ProposedCall): CallTrace;
  /** The forced summary, the loop breaker: an event on the turn's span. */
  event(name: string, attributes: Record<string, string | number | boolean>): void;
  /** A person's decision on a call that waited, as the continuation applies it: an event on the turn's span. */
  approval(decision: ApprovalDecision): void;
  /** The span's own trace context, stored with a pause so that the continuation links to it. */
  readonly carrier: TraceCarrier;
  /** Ends the span; once (a second call does nothing). */
  end(end: TurnEnd): void;
}

export interface TurnEnd {
  reason: string;
  iterations: number;
  usage: Usage;
  /** The turn paused (reason `awaiting_approval`): how many of its calls wait for a person. */
  waiting?: number;
}

export interface ApprovalDecision {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  /** `requested`: nobody decided (the turn was stopped while it waited). */
  decision: 'approved' | 'denied' | 'expired' | 'requested';
  /** From the request to the decision (or the expiry), ms; absent when nobody decided. */
  waitMs?: number;
}

export interface ChatStart {
  model: string;
  /** `openai` for an OpenAI-compatible upstream, `rebound.demo` for the demo model. */
  provider: string;
  /** The upstream's base URL, for server.address and server.port. */
  baseURL?: string;
  /** Recorded only with content capture on. */
  messages?: readonly ChatMessage[];
}

export interface ChatTrace {
  /** traceparent (and tracestate) for the upstream request: the upstream's spans join this one. */
  readonly headers: Record<string, string>;
  /** A failed attempt that is retried. */
  retry(attempt: number, error: unknown): void;
  end(end: ChatEnd): void;
}

export interface ChatEnd {
  finishReason?: string | null;
  usage?: Usage | null;
  responseModel?: string | null;
  /** Set when the call failed (after its retries). */
  error?: unknown;
  /** Recorded only with content capture on. */
  text?: string;
  toolCalls?: readonly { id: string; name: string; arguments: string }[];
}

export interface CallTrace {
  /** traceparent for a tool that makes a request (an MCP server). */
  readonly headers: Record<string, string>;
  end(end: CallEnd): void;
}

export interface CallEnd {
  /**
   * What the loop did: ran it, the gate blocked it, the loop breaker withheld its tool, a person denied it
   * or let it expire; or it waits for a person (the turn paused; the decided call gets a span of its own).
   */
  outcome: CallOutcomeKind | 'awaiting_approval';
  /** Absent when the call was withheld before the gate. */
  verdict?: Verdict;
  /** The category the activity log records for the call. */
  category: string;
  /** The tool that ran (the gate may have resolved another name than the one proposed). */
  tool?: { name: string; description?: string; mcp?: { server: string; tool: string; protocolVersion?: string } };
  /** For an executed call: whether the tool succeeded, and its error. */
  ok?: boolean;
  error?: string | null;
  timedOut?: boolean;
  /** The repeat the loop breaker escalated, if any. */
  escalation?: string | null;
  /** The result's JSON, recorded only with content capture on. */
  result?: string;
  /** A call that waited for a person: what they said (`requested`: nobody did before a stop). */
  approval?: 'approved' | 'denied' | 'expired' | 'requested';
  /** Its MCP server asked the person a question: `asked` while the turn waits, then the answer (or expired / unanswered). */
  elicitation?: 'asked' | 'accept' | 'decline' | 'cancel' | 'expired' | 'unanswered';
}

export interface GatewayStart {
  /** The model the client asked for, and the one sent upstream. */
  model: string;
  upstreamModel: string;
  stream: boolean;
  baseURL?: string;
  carrier?: TraceCarrier;
  /** The protocol the client spoke (default chat: Chat Completions), and the upstream's provider (default openai). */
  protocol?: 'chat' | 'messages' | 'responses';
  provider?: 'openai' | 'anthropic';
}

export interface GatewayTrace {
  /** One upstream attempt (`chat {model}`): the first, or a re-ask for a blocked call, as a child span. */
  attempt(attempt: number): ChatTrace;
  /** A gated call of the answer: its verdict, as an `execute_tool`-free guardrail event on the request's span. */
  gated(call: { id: string; name: string }, verdict: Verdict, attempt: number): void;
  end(end: GatewayEnd): void;
}

export interface GatewayEnd {
  /** The answer's overall verdict (`none`, `pass`, `repaired`, `blocked`) and the attempts it took. */
  verdict: string;
  attempts: number;
  status: number;
  finishReason?: string | null;
  usage?: Usage | null;
  error?: unknown;
}

/** What engine.ts exports: the SDK behind the hooks. */
export type CreateEngine = (config: TracingConfig, log: (line: string) => void) => Tracing;

/**
 * Tracing for an app, or undefined when it is off. The engine (SDK, exporter) is imported on the
 * first span; should that import fail, tracing says so once and stays off, and the turn goes on.
 */
export function createTracing(config: TracingConfig | null, log: (line: string) => void = (line) => console.error(line)): Tracing | undefined {
  if (!config) return undefined;
  let engine: Promise<Tracing> | undefined;
  let loaded: Tracing | undefined;
  const load = () => {
    engine ??= import('./engine.ts').then(
      (m) => (loaded = m.createEngine(config, log)),
      (err: unknown) => {
        log(`rebound: tracing is off: its module could not be loaded (${err instanceof Error ? err.message : String(err)})`);
        return OFF;
      },
    );
    return engine;
  };
  return {
    startTurn: async (start) => (await load()).startTurn(start),
    startGateway: async (start) => (await load()).startGateway(start),
    flush: () => (engine ? engine.then((e) => e.flush()) : Promise.resolve()),
    stats: () => loaded?.stats?.() ?? { dropped: 0 },
  };
}

const NO_HEADERS: Record<string, string> = {};
const OFF_CHAT: ChatTrace = { headers: NO_HEADERS, retry() {}, end() {} };
const OFF_CALL: CallTrace = { headers: NO_HEADERS, end() {} };
const OFF: Tracing = {
  startTurn: async () => ({ chat: () => OFF_CHAT, call: () => OFF_CALL, event() {}, approval() {}, carrier: {}, end() {} }),
  startGateway: async () => ({ attempt: () => OFF_CHAT, gated() {}, end() {} }),
  flush: async () => {},
};
