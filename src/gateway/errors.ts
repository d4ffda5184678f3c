// Errors as an OpenAI client expects them: `{error: {message, type, param, code}}` with the HTTP
// status. The gateway's clients are SDKs that read exactly this shape (the openai package raises
// `APIError` from it, the AI SDK `APICallError`), so its own refusals use it too; `status` is added,
// as in the rest of Rebound's API, and clients ignore it.
import { cut, MAX_ERROR_MESSAGE } from '../quote.ts';

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null; status?: number };
}

const TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
  502: 'upstream_error',
  503: 'service_unavailable_error',
  504: 'upstream_timeout_error',
};

/** A request the gateway refuses or cannot serve, with what to do instead. */
export class GatewayError extends Error {
  readonly status: number;
  readonly code: string;
  readonly param: string | null;
  /** Headers of the refusal, such as a 429's Retry-After. */
  readonly headers: Record<string, string>;
  constructor(status: number, code: string, message: string, param: string | null = null, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.param = param;
    this.headers = headers;
    this.name = 'GatewayError';
  }

  body(): OpenAIErrorBody {
    return openAIError({ status: this.status, code: this.code, message: this.message, param: this.param });
  }
}

/** What openAIError puts in the body (param: the request field at fault, if any). */
export interface OpenAIErrorFields {
  status: number;
  code: string;
  message: string;
  param?: string | null;
}

/** The error in OpenAI's shape; its message is cut to MAX_ERROR_MESSAGE, so no error body the gateway makes passes 16 KB. */
export function openAIError({ status, code, message, param = null }: OpenAIErrorFields): OpenAIErrorBody {
  return {
    error: { message: cut(message, MAX_ERROR_MESSAGE), type: TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error'), param, code, status },
  };
}

/** Whether an upstream's error body already has the OpenAI shape (then it is passed on as it is). */
export function isOpenAIErrorBody(value: unknown): value is OpenAIErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const error = (value as { error?: unknown }).error;
  return typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string';
}
