// The protocols the gateway speaks besides Chat Completions, as codecs around its one core
// (runGateway): a request is translated into the core's Chat Completions request (messages-in.ts,
// responses-in.ts), the core gates and re-asks, and its answer is written in the client's protocol:
// a whole answer translated once (its status, headers and x-rebound-verdict kept), a stream through
// a channel that turns the core's chunks into the protocol's events as they are written
// (messages-out.ts, responses-out.ts). docs/gateway-messages.md, docs/gateway-responses.md.
import { jsonText } from 'rebound-gate/internal';
import { jsonObject } from './json-object.ts';
import type { GatewayProtocol } from '../../vocabulary.ts';
import type { GatewayResponse } from '../gateway-response.ts';
import type { StreamChannel } from '../stream.ts';
import type { MessagesBody } from './messages-in.ts';
import { anthropicError } from './anthropic-error.ts';
import { completionToMessage, messagesChannel } from './messages-out.ts';
import { freeformTools, type ResponsesBody } from './responses-in.ts';
import { completionToResponse, type ResponseEcho, responsesChannel } from './responses-out.ts';

/** The protocol a request came in, as the activity rows and spans name it. */
export type Protocol = GatewayProtocol;

export interface ClientCodec {
  protocol: Protocol;
  /** The channel the core's stream is written to: the client's events go to `out`. */
  channel(out: StreamChannel): StreamChannel;
  /** A whole answer (or an error) in the client's protocol. */
  translate(result: JsonAnswer): GatewayResponse;
}

type Json = Record<string, unknown>;

/** A whole answer: a JSON body. */
export type JsonAnswer = GatewayResponse & { kind: 'json'; body: string };

/**
 * The JSON body of a whole answer, translated by `ok` (2xx) or `error`; a body that is not JSON is passed on.
 * Written by jsonText: a Responses answer echoes the request's tools, whose schema may nest past what
 * JSON.stringify can write (docs/configuration.md § Limits).
 */
function translated(result: JsonAnswer, ok: (json: Json) => Json, error: (status: number, json: Json) => Json): GatewayResponse {
  const json = jsonObject(result.body);
  if (!json) return result;
  const body = result.status >= 200 && result.status < 300 ? ok(json) : error(result.status, json);
  return { ...result, headers: { ...result.headers, 'content-type': 'application/json' }, body: jsonText(body) };
}

export function messagesCodec(body: MessagesBody): ClientCodec {
  return {
    protocol: 'messages',
    // Methods, not arrow functions made per request, as eventChannel's (sse-text.ts).
    channel(out) {
      return messagesChannel(out, body.model);
    },
    translate(result) {
      return translated(result, (json) => completionToMessage(json, body.model), anthropicError);
    },
  };
}

export function responsesCodec(body: ResponsesBody): ClientCodec {
  const echo: ResponseEcho = {
    model: body.model,
    freeform: freeformTools(body),
    instructions: body.instructions,
    tools: body.tools,
    tool_choice: body.tool_choice,
    parallel_tool_calls: body.parallel_tool_calls,
  };
  return {
    protocol: 'responses',
    channel(out) {
      return responsesChannel(out, echo);
    },
    // Errors stay OpenAI's shape, which the Responses API shares.
    translate(result) {
      return translated(
        result,
        (json) => completionToResponse(json, echo),
        (_status, json) => json,
      );
    },
  };
}
