// Which Rebound session a `useChat` chat id names. The id is the client's (any string), sessions are
// UUIDs owned by one user, so the session id is derived from both: a name-based UUID (version 5,
// RFC 9562: SHA-1 over a namespace and the name) of the pair (user, chat id). The same user and chat
// always reach the same session, on every instance and runtime, without a table to keep; another user
// with the same chat id reaches a different session, never theirs (ensureSession would refuse it anyway).

/** Rebound's namespace for chat ids (a fixed random UUID). */
const CHAT_NAMESPACE = '3c0f5d9e-8a47-4b6e-9f21-6d2a7c1e0b53';

/** The session of `chatId` for `userId` (null: the local user). */
export function chatSessionId(userId: string | null, chatId: string): Promise<string> {
  return uuidV5(CHAT_NAMESPACE, JSON.stringify([userId, chatId]));
}

/** A version-5 UUID of `name` in `namespace` (RFC 9562 §5.5), with Web Crypto (every runtime has it). */
export async function uuidV5(namespace: string, name: string): Promise<string> {
  const ns = hexBytes(namespace);
  const text = new TextEncoder().encode(name);
  const input = new Uint8Array(ns.length + text.length);
  input.set(ns);
  input.set(text, ns.length);
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-1', input)).slice(0, 16);
  hash[6] = (hash[6]! & 0x0f) | 0x50; // version 5
  hash[8] = (hash[8]! & 0x3f) | 0x80; // the RFC variant
  const hex = Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function hexBytes(uuid: string): Uint8Array {
  const hex = uuid.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new Error(`uuidV5: the namespace must be a UUID, got ${JSON.stringify(uuid)}`);
  return Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16));
}
