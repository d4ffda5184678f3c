// The one way to make a secret: hex of bytes from the platform's CSPRNG (crypto.getRandomValues, the same
// on Node, workerd and Deno). Used where no secret is configured: a per-process TURN_TOKEN_SECRET.
export function randomSecret(bytes = 32): string {
  const values = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(values, (b) => b.toString(16).padStart(2, '0')).join('');
}
