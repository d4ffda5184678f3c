// Every error the API returns has the same JSON shape: what went wrong and what to do about it. Errors
// from the layers below (a bad credential, another user's session) are classes of their own, so that
// those layers need not know HTTP; toApiError is the one place that says which response each becomes.
import type { Context, ErrorHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { AuthError } from '../auth-error.ts';
import { cut, MAX_ERROR_MESSAGE } from '../quote.ts';
import { SessionForbiddenError } from '../store/types.ts';
import { TooManyReadersError } from '../turns/readers.ts';

export interface ApiErrorBody {
  error: { status: number; code: string; message: string };
}

export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: string;
  constructor(status: ContentfulStatusCode, code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
    this.code = code;
    this.name = 'ApiError';
  }
}

const INTERNAL = 'Something went wrong on our side. Try again; if it persists, check the server log.';

/**
 * The response every error becomes, decided once: ApiErrors (and their subclasses, such as
 * AuthConfigError) as they are, the lower layers' errors by class, anything else a 500 that says
 * nothing of the server's inside (`code: 'internal'`; the caller logs the error, kept as `cause`).
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof AuthError) return new ApiError(err.status, err.status === 401 ? 'unauthorized' : 'forbidden', err.message, { cause: err });
  if (err instanceof TooManyReadersError) return new ApiError(429, 'too_many_readers', err.message, { cause: err });
  if (err instanceof SessionForbiddenError) {
    return new ApiError(403, 'forbidden', 'This session belongs to another user. Omit sessionId to start a new session (useChat: use another chat id).', {
      cause: err,
    });
  }
  return new ApiError(500, 'internal', INTERNAL, { cause: err });
}

/** The error as JSON; its message is cut to MAX_ERROR_MESSAGE, so no error body passes 16 KB. */
export function errorResponse(c: Context, { status, code, message }: Pick<ApiError, 'status' | 'code' | 'message'>) {
  return c.json<ApiErrorBody>({ error: { status, code, message: cut(message, MAX_ERROR_MESSAGE) } }, status);
}

/** app.onError: any error thrown by a route or middleware, as its response; the unexpected ones are logged. */
export const onApiError: ErrorHandler = (err, c) => {
  const api = toApiError(err);
  if (api.code === 'internal' && api.cause === err) console.error('rebound: unhandled error', err);
  return errorResponse(c, api);
};
