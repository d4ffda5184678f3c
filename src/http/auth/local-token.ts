// Local mode's one credential. A server without Supabase auth used to trust its network position
// (loopback and a loopback Host), but a reverse proxy on the same machine makes every stranger
// loopback: nginx's proxy_pass, by default, connects from 127.0.0.1 and rewrites Host to the
// upstream's own address. So local mode takes a secret only the local user has, as Jupyter does: a
// token made at first start (npm start keeps it in DATA_DIR/local-token; plain Deno, which keeps
// nothing, makes one per process), printed in the start banner's chat URL (`…?token=…`), which the
// chat page moves into localStorage and sends as its bearer; API clients send it as their key.
// docs/deploy.md § Before you expose it.
import { AuthError } from '../../auth-error.ts';
import type { Authenticator } from '../deps.ts';
import { bearerValue, sameSecret } from './bearer.ts';

/** Where an entry's local token comes from: read or made only when local mode is chosen. */
export interface LocalAccess {
  /** The token (called once, when authFromEnv chooses local mode). */
  token(): string;
  /** Where its holder finds it, for the 401's message and the start log: "kept in the file local-token of …". */
  where: string;
}

/** The shortest token a server accepts (a file someone wrote by hand may hold less). */
export const LOCAL_TOKEN_MIN_CHARS = 32;

/** Local mode: every caller with the token is the same anonymous local user; without it, 401. */
export function localTokenAuth(token: string, where: string): Authenticator {
  if (token.length < LOCAL_TOKEN_MIN_CHARS) throw new Error(`a local access token needs ${LOCAL_TOKEN_MIN_CHARS} characters or more (it is ${where})`);
  const how = `send "Authorization: Bearer <local token>" (the token is ${where}), or open the chat URL printed at start (…?token=…)`;
  return {
    local: true,
    async authenticate(request) {
      const given = bearerValue(request.headers.get('authorization'));
      if (given !== undefined && sameSecret(given, token)) return { userId: null };
      throw new AuthError(
        given === undefined
          ? `Missing credentials: this server runs in local mode (no Supabase auth configured) and answers only its local access token: ${how}.`
          : `The bearer token is not this server's local access token: ${how}.`,
      );
    },
  };
}
