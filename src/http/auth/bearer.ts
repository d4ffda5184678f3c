// The two things every bearer-key check needs, in one place: the value of an `Authorization: Bearer …`
// header, and a comparison of a given secret with the expected one whose time does not depend on where
// they differ. Used by the gateway's keys (gateway.ts) and local mode's token (local-token.ts).

/** The token of "Bearer <token>" (any case, surrounding spaces allowed); undefined for anything else. */
export function bearerValue(header: string | null): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/** Compares in time independent of where the strings differ (the length is not secret). */
export function sameSecret(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
