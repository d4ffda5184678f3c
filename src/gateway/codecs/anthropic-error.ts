// An error in Anthropic's shape, `{type: "error", error: {type, message}}` (docs/gateway-messages.md),
// from an OpenAI-shaped one. Apart from the rest of the Messages codec (messages-out.ts, loaded with
// import() on the first /v1/messages request) because the route's error handler writes every error
// of /v1/messages with it, the authentication's included, before the codec is loaded.
import { isPlainObject } from 'rebound-gate/internal';
import type { OpenAIErrorBody } from '../errors.ts';

type Json = Record<string, unknown>;

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

/** An OpenAI-shaped error (the gateway's own, or a chat upstream's) as Anthropic's. */
export function anthropicError(status: number, body: OpenAIErrorBody | Json): Json {
  const error = isPlainObject(body.error) ? body.error : {};
  const message = typeof error.message === 'string' ? error.message : `The request failed with status ${status}.`;
  return { type: 'error', error: { type: ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), message } };
}
