// The spans, in the OpenTelemetry GenAI semantic conventions (development status; followed as of
// open-telemetry/semantic-conventions-genai commit e8fc5751506258db1459d1bde47994e01dee922e, agent and
// model spans, and f5e3733b19bdb5cb9074c2ec26da9e375d52a40a, guardrails), plus Rebound's own `rebound.*`
// attributes for what the conventions have no name for (the gate, the loop breaker):
//   invoke_agent rebound    INTERNAL  a turn; the forced summary and the loop breaker are its events
//   chat {model}            CLIENT    a model call (its retries are events); child of the turn
//   execute_tool {name}     INTERNAL  every proposed call, executed or not: the gate's verdict, what the loop
//                                     did (rebound.call.outcome), repairs and problems as bounded events
// A call the gate blocks gets an execute_tool span without execution rather than the conventions'
// apply_guardrail span: that one is a CLIENT span for a request to a remote guardrail service, and the
// gate is an in-process check of a tool call. The verdict is also a `gen_ai.guardrail.result` event,
// which the conventions give to dedicated in-process guardrail APIs.
// The gateway: a request is a SERVER span `chat {model}`, each upstream attempt a CLIENT child span.
// Content (messages, arguments, results, the gate's messages) only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT.
import type { Verdict } from 'rebound-gate';
import type { ChatMessage } from '../vocabulary.ts';
import { type Attributes, type Context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { CallEnd, CallTrace, ChatEnd, ChatStart, ChatTrace, GatewayStart, GatewayTrace, TraceCarrier, TurnStart, TurnTrace } from './index.ts';

/** What the spans need of the engine (engine.ts makes it): they import nothing else of it. */
export interface SpanFactory {
  tracer: Tracer;
  parentOf(carrier: TraceCarrier | undefined): Context;
  headersOf(span: Span): Record<string, string>;
  captureContent: boolean;
}

export const AGENT_NAME = 'rebound';
/** The most characters of content one attribute holds (messages, arguments, results). */
export const MAX_CONTENT_CHARS = 16_000;
/** Repairs and problems recorded per call; the rest are counted in rebound.gate.*_dropped. */
export const MAX_GATE_EVENTS = 8;
/** The longest name in a span name or attribute (a hallucinated tool name can be long). */
const MAX_NAME = 128;

export function turnSpans(f: SpanFactory, start: TurnStart): TurnTrace {
  const provider = start.demo ? 'rebound.demo' : 'openai';
  // A continuation after a pause: a child of the paused turn's span (same trace), linked to it.
  const paused = start.continues ? trace.getSpanContext(f.parentOf(start.continues)) : undefined;
  const span = f.tracer.startSpan(
    `invoke_agent ${AGENT_NAME}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': AGENT_NAME,
        'gen_ai.conversation.id': start.sessionId,
        'gen_ai.provider.name': provider,
        'gen_ai.request.model': start.model,
        'rebound.turn.id': start.turnId,
        ...(paused ? { 'rebound.turn.continued': true } : {}),
      },
      ...(paused ? { links: [{ context: paused, attributes: { 'rebound.link.type': 'continues_after_approval' } }] } : {}),
    },
    f.parentOf(paused ? start.continues : start.carrier),
  );
  const context = trace.setSpan(f.parentOf(undefined), span);
  let ended = false;
  let carrier: TraceCarrier | undefined;
  return {
    chat: (chat) => chatSpan(f, { chat, parent: context, conversation: start.sessionId }),
    call: (call) => {
      const name = cut(call.name, MAX_NAME);
      const callSpan = f.tracer.startSpan(
        `execute_tool ${name}`,
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': name,
            'gen_ai.tool.call.id': cut(call.id, MAX_NAME),
            ...(f.captureContent ? { 'gen_ai.tool.call.arguments': cut(call.arguments, MAX_CONTENT_CHARS) } : {}),
          },
        },
        context,
      );
      return callTrace(f, callSpan);
    },
    event: (name, attributes) => span.addEvent(name, attributes),
    approval: (d) =>
      span.addEvent('rebound.approval', {
        'rebound.approval.id': d.approvalId,
        'rebound.approval.decision': d.decision,
        'gen_ai.tool.call.id': cut(d.toolCallId, MAX_NAME),
        'gen_ai.tool.name': cut(d.toolName, MAX_NAME),
        ...(d.waitMs !== undefined ? { 'rebound.approval.wait_ms': d.waitMs } : {}),
      }),
    get carrier() {
      carrier ??= f.headersOf(span);
      return carrier;
    },
    end: (end) => {
      if (ended) return;
      ended = true;
      span.setAttributes({
        'gen_ai.usage.input_tokens': end.usage.promptTokens,
        'gen_ai.usage.output_tokens': end.usage.completionTokens,
        'rebound.turn.reason': end.reason,
        'rebound.turn.iterations': end.iterations,
        ...(end.waiting !== undefined ? { 'rebound.turn.awaiting_approval': end.waiting } : {}),
      });
      if (end.reason === 'error') {
        span.setAttribute('error.type', 'rebound.turn.error');
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'the turn ended with an error' });
      }
      span.end();
    },
  };
}

function callTrace(f: SpanFactory, span: Span): CallTrace {
  let headers: Record<string, string> | undefined;
  return {
    // Only a tool that makes a request (an MCP server's) reads them: made on first use.
    get headers() {
      headers ??= f.headersOf(span);
      return headers;
    },
    end: (end: CallEnd) => {
      const attributes: Attributes = { 'rebound.call.outcome': end.outcome, 'rebound.call.category': end.category };
      if (end.tool) {
        const name = cut(end.tool.name, MAX_NAME);
        span.updateName(`execute_tool ${name}`);
        attributes['gen_ai.tool.name'] = name;
        attributes['gen_ai.tool.type'] = end.tool.mcp ? 'extension' : 'function';
        if (end.tool.description) attributes['gen_ai.tool.description'] = cut(end.tool.description, 1_000);
        if (end.tool.mcp) {
          // The MCP conventions' client attributes that apply to a call made through an MCP session.
          attributes['mcp.method.name'] = 'tools/call';
          attributes['rebound.mcp.server'] = end.tool.mcp.server;
          attributes['rebound.mcp.tool'] = cut(end.tool.mcp.tool, MAX_NAME);
          if (end.tool.mcp.protocolVersion) attributes['mcp.protocol.version'] = end.tool.mcp.protocolVersion;
        }
      }
      if (end.escalation) attributes['rebound.loop_breaker.escalation'] = end.escalation;
      if (end.approval) attributes['rebound.approval.decision'] = end.approval;
      if (end.elicitation) attributes['rebound.mcp.elicitation'] = end.elicitation;
      if (end.verdict) gateAttributes(span, { verdict: end.verdict, attributes, content: f.captureContent });
      else {
        // Withheld by the loop breaker before it could run: told to the client as blocked, repeated_failure.
        attributes['rebound.gate.verdict'] = 'blocked';
        attributes['rebound.gate.category'] = end.category;
      }
      if (end.outcome === 'executed' && end.ok === false) {
        attributes['error.type'] = end.timedOut ? 'timeout' : 'tool_error';
        span.setStatus({ code: SpanStatusCode.ERROR, ...(f.captureContent && end.error ? { message: cut(end.error, 1_000) } : {}) });
      }
      if (f.captureContent && end.result !== undefined) attributes['gen_ai.tool.call.result'] = cut(end.result, MAX_CONTENT_CHARS);
      span.setAttributes(attributes);
      span.end();
    },
  };
}

/** The gate's verdict on the call's span: attributes, a guardrail result event, repairs and problems as bounded events. */
function gateAttributes(span: Span, { verdict, attributes, content }: { verdict: Verdict; attributes: Attributes; content: boolean }): void {
  attributes['rebound.gate.verdict'] = verdict.verdict;
  attributes['rebound.gate.category'] = verdict.category;
  span.addEvent('gen_ai.guardrail.result', {
    'gen_ai.guardrail.component.name': 'rebound.gate',
    'gen_ai.guardrail.source': 'tool_input',
    'gen_ai.guardrail.result.type': 'verdict',
    'gen_ai.guardrail.result.value': verdict.verdict,
  });
  if (verdict.verdict === 'repaired') {
    attributes['rebound.gate.repairs'] = verdict.repairs.length;
    for (const r of verdict.repairs.slice(0, MAX_GATE_EVENTS)) {
      span.addEvent('rebound.gate.repair', {
        'rebound.repair.kind': r.kind,
        'rebound.repair.category': r.category,
        'rebound.repair.path': cut(r.path, MAX_NAME),
        ...(content && r.from !== undefined ? { 'rebound.repair.from': cut(r.from, 1_000) } : {}),
        ...(content && r.to !== undefined ? { 'rebound.repair.to': cut(r.to, 1_000) } : {}),
      });
    }
  }
  if (verdict.verdict === 'blocked') {
    attributes['rebound.gate.problems'] = verdict.problems.length;
    for (const p of verdict.problems.slice(0, MAX_GATE_EVENTS)) {
      span.addEvent('rebound.gate.problem', {
        'rebound.problem.category': p.category,
        'rebound.problem.path': cut(p.path, MAX_NAME),
        ...(content ? { 'rebound.problem.message': cut(p.message, 1_000) } : {}),
      });
    }
  }
}

/** One model call's span: a client span under `parent` (the turn's, or the gateway request's). */
interface ChatSpanOptions {
  chat: ChatStart;
  parent: ReturnType<SpanFactory['parentOf']>;
  conversation?: string;
}

function chatSpan(f: SpanFactory, { chat, parent, conversation }: ChatSpanOptions): ChatTrace {
  const server = serverOf(chat.baseURL);
  const span = f.tracer.startSpan(
    `chat ${cut(chat.model, MAX_NAME)}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': chat.provider,
        'gen_ai.request.model': cut(chat.model, MAX_NAME),
        ...(conversation ? { 'gen_ai.conversation.id': conversation } : {}),
        ...server,
        ...(f.captureContent && chat.messages ? { 'gen_ai.input.messages': inputMessages(chat.messages) } : {}),
      },
    },
    parent,
  );
  let retries = 0;
  return {
    headers: f.headersOf(span),
    retry: (attempt, error) => {
      retries = attempt;
      span.addEvent('rebound.model.retry', { 'rebound.retry.attempt': attempt, 'error.type': errorType(error) });
    },
    end: (end: ChatEnd) => endChat(f, span, { end, retries }),
  };
}

function endChat(f: SpanFactory, span: Span, { end, retries }: { end: ChatEnd; retries: number }): void {
  const attributes: Attributes = { 'rebound.model.attempts': retries + 1 };
  if (end.responseModel) attributes['gen_ai.response.model'] = cut(end.responseModel, MAX_NAME);
  if (end.finishReason) attributes['gen_ai.response.finish_reasons'] = [end.finishReason];
  if (end.usage) {
    attributes['gen_ai.usage.input_tokens'] = end.usage.promptTokens;
    attributes['gen_ai.usage.output_tokens'] = end.usage.completionTokens;
  }
  if (end.error !== undefined) {
    attributes['error.type'] = errorType(end.error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: cut(end.error instanceof Error ? end.error.message : String(end.error), 1_000) });
  } else if (f.captureContent && (end.text !== undefined || end.toolCalls?.length)) {
    attributes['gen_ai.output.messages'] = outputMessages(end);
  }
  span.setAttributes(attributes);
  span.end();
}

export function gatewaySpans(f: SpanFactory, start: GatewayStart): GatewayTrace {
  const span = f.tracer.startSpan(
    `chat ${cut(start.model, MAX_NAME)}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': cut(start.model, MAX_NAME),
        'rebound.gateway.upstream_model': cut(start.upstreamModel, MAX_NAME),
        'rebound.gateway.stream': start.stream,
        'rebound.gateway.protocol': start.protocol ?? 'chat',
      },
    },
    f.parentOf(start.carrier),
  );
  const context = trace.setSpan(f.parentOf(undefined), span);
  let gated = 0;
  return {
    attempt: (attempt) => {
      const child = chatSpan(f, { chat: { model: start.upstreamModel, provider: start.provider ?? 'openai', baseURL: start.baseURL }, parent: context });
      return {
        headers: child.headers,
        retry: child.retry,
        end: (end) => {
          child.end(end);
          if (attempt > 1) span.addEvent('rebound.gateway.retry', { 'rebound.retry.attempt': attempt });
        },
      };
    },
    gated: (call, verdict, attempt) => {
      if (++gated > MAX_GATE_EVENTS * 4) return;
      span.addEvent('gen_ai.guardrail.result', {
        'gen_ai.guardrail.component.name': 'rebound.gate',
        'gen_ai.guardrail.source': 'tool_input',
        'gen_ai.guardrail.result.type': 'verdict',
        'gen_ai.guardrail.result.value': verdict.verdict,
        'gen_ai.tool.name': cut(call.name, MAX_NAME),
        'gen_ai.tool.call.id': cut(call.id, MAX_NAME),
        'rebound.gate.verdict': verdict.verdict,
        'rebound.gate.category': verdict.category,
        'rebound.gateway.attempt': attempt,
      });
    },
    end: (end) => {
      const attributes: Attributes = {
        'rebound.gate.verdict': end.verdict,
        'rebound.gateway.attempts': end.attempts,
        'http.response.status_code': end.status,
        'rebound.gate.calls': gated,
      };
      if (end.finishReason) attributes['gen_ai.response.finish_reasons'] = [end.finishReason];
      if (end.usage) {
        attributes['gen_ai.usage.input_tokens'] = end.usage.promptTokens;
        attributes['gen_ai.usage.output_tokens'] = end.usage.completionTokens;
      }
      if (end.error !== undefined || end.status >= 500) {
        attributes['error.type'] = end.error !== undefined ? errorType(end.error) : String(end.status);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.setAttributes(attributes);
      span.end();
    },
  };
}

/** error.type: the upstream's status when there is one, a timeout or a cancel, else the error's class. */
export function errorType(error: unknown): string {
  if (error && typeof error === 'object') {
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number') return String(status);
    const name = (error as { name?: unknown }).name;
    const message = (error as { message?: unknown }).message;
    if (name === 'AbortError') return 'cancelled';
    if (typeof message === 'string' && /in time|timeout/i.test(message)) return 'timeout';
    if (typeof name === 'string' && name) return name;
  }
  return '_OTHER';
}

function serverOf(baseURL: string | undefined): Attributes {
  if (!baseURL) return {};
  try {
    const u = new URL(baseURL);
    return { 'server.address': u.hostname, 'server.port': u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80 };
  } catch {
    return {};
  }
}

/** The conventions' input messages (role and parts), oldest dropped first to fit MAX_CONTENT_CHARS. */
function inputMessages(messages: readonly ChatMessage[]): string {
  const parts = messages.map((m) => JSON.stringify(messageParts(m)));
  let size = 2;
  let from = parts.length;
  while (from > 0 && size + parts[from - 1]!.length + 1 <= MAX_CONTENT_CHARS) size += parts[--from]!.length + 1;
  if (from === parts.length && parts.length > 0) return `[${cut(parts[parts.length - 1]!, MAX_CONTENT_CHARS - 2)}]`;
  return `[${parts.slice(from).join(',')}]`;
}

function messageParts(m: ChatMessage): object {
  const parts: object[] = [];
  if (typeof m.content === 'string' && m.content) parts.push({ type: 'text', content: m.content });
  if (m.role === 'assistant' && m.tool_calls) {
    for (const c of m.tool_calls) parts.push({ type: 'tool_call', id: c.id, name: c.function.name, arguments: c.function.arguments });
  }
  if (m.role === 'tool') return { role: 'tool', parts: [{ type: 'tool_call_response', id: m.tool_call_id, response: m.content }] };
  return { role: m.role, parts };
}

function outputMessages(end: ChatEnd): string {
  const parts: object[] = [];
  if (end.text) parts.push({ type: 'text', content: end.text });
  for (const c of end.toolCalls ?? []) parts.push({ type: 'tool_call', id: c.id, name: c.name, arguments: c.arguments });
  return cut(JSON.stringify([{ role: 'assistant', parts, finish_reason: end.finishReason ?? 'stop' }]), MAX_CONTENT_CHARS);
}

/** At most `max` characters, marked when cut. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
