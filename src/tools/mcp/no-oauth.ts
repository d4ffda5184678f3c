// Stands in for the MCP SDK's OAuth client (its client/auth.js) in the Worker build
// (scripts/build-worker.ts). Rebound authenticates to MCP servers with the static `headers` of
// MCP_SERVERS and never gives the transport an authProvider, and the transport calls the OAuth code only
// when it has one; leaving it out (with the SDK's OAuth schemas and PKCE) saves ~6.5 KB gzip. The
// exports are the ones the SDK's Streamable HTTP transport imports.
export class UnauthorizedError extends Error {
  constructor(message?: string) {
    super(message ?? 'Unauthorized');
  }
}

export function auth(): never {
  throw new Error('MCP OAuth is not built into the Worker: give the server a token in MCP_SERVERS "headers"');
}

export function extractWWWAuthenticateParams(): Record<string, never> {
  return {};
}
