// Stands in for `jose` inside the MCP client in the Worker build (scripts/build-worker.ts). The client
// imports jose with import() for its private_key_jwt and DPoP helpers only, which Rebound never uses (it
// authenticates to MCP servers with the static `headers` of MCP_SERVERS). A module both imported by the
// app (JWT verification) and by an import() becomes a chunk of its own, whole and loaded at startup:
// ~12 KB gzip of the Worker's startup script for code that never runs.
function unavailable(): never {
  throw new Error('MCP OAuth (private_key_jwt, DPoP) is not built into the Worker: give the server a token in MCP_SERVERS "headers"');
}

export const SignJWT = unavailable;
export const calculateJwkThumbprint = unavailable;
export const exportJWK = unavailable;
export const generateKeyPair = unavailable;
export const importJWK = unavailable;
export const importPKCS8 = unavailable;
