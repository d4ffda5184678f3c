// A missing or bad credential, as data the HTTP layer turns into a 401 or 403. It sits at the bottom of
// the layers (test/runtimes/layers.test.ts) because the layers below http raise it too: the dashboard's
// Supabase source refuses an unscoped request.
export class AuthError extends Error {
  readonly status: 401 | 403;

  constructor(message: string, options: { status?: 401 | 403; cause?: unknown } = {}) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.status = options.status ?? 401;
    this.name = 'AuthError';
  }
}
