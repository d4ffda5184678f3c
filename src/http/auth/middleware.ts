// Authentication as Hono middleware, the way hono/bearer-auth does it: the app's authenticator checks
// the caller before the handler runs, so an unauthenticated request is refused before its body is read,
// and the handler finds who is calling in `c.get('principal')`. It is put on each /v1 route that needs
// it (`app.post('/v1/turns', authenticate(deps.auth), …)`) rather than on `/v1/*`, so that an unknown
// route stays a 404 and the routes with a scheme of their own keep it: the stream GET (its token), the
// gateway (GATEWAY_KEYS, gateway.ts). A refusal is thrown (AuthError, AuthConfigError) and becomes
// its response in app.onError (toApiError).
import { createMiddleware } from 'hono/factory';
import type { Authenticator, Principal } from '../deps.ts';

/** The context variables of an authenticated route. */
export interface AuthEnv {
  Variables: { principal: Principal };
}

export function authenticate(auth: Authenticator) {
  return createMiddleware<AuthEnv>(async function authenticate(c, next) {
    c.set('principal', await auth.authenticate(c.req.raw));
    await next();
  });
}
