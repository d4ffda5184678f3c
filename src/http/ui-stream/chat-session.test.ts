import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { chatSessionId, uuidV5 } from './chat-session.ts';

describe('uuidV5', () => {
  it('gives the RFC 9562 / Python uuid5 values', async () => {
    // uuid.uuid5(uuid.NAMESPACE_DNS, 'www.example.com') and uuid.uuid5(uuid.NAMESPACE_URL, 'https://example.com/')
    expect(await uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(await uuidV5('6ba7b811-9dad-11d1-80b4-00c04fd430c8', 'https://example.com/')).toBe('dd2c1780-811a-5296-81c5-178a0ef488bc');
    expect(await uuidV5('6BA7B810-9DAD-11D1-80B4-00C04FD430C8', 'python.org')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
    await expect(uuidV5('not-a-uuid', 'x')).rejects.toThrow(/namespace must be a UUID/);
  });
});

describe('chatSessionId', () => {
  it('is a UUID, the same for the same user and chat, different for another user or chat', async () => {
    const a = await chatSessionId('user-a', 'chat-1');
    expect(z.uuid().safeParse(a).success).toBe(true);
    expect(await chatSessionId('user-a', 'chat-1')).toBe(a);
    const others = await Promise.all([
      chatSessionId('user-b', 'chat-1'),
      chatSessionId('user-a', 'chat-2'),
      chatSessionId(null, 'chat-1'),
      chatSessionId('null', 'chat-1'),
    ]);
    expect(new Set([a, ...others]).size).toBe(5);
    // The pair is encoded unambiguously: ("a\"", "b") and ("a", "\"b") are different chats.
    expect(await chatSessionId('a"', 'b')).not.toBe(await chatSessionId('a', '"b'));
  });
});
