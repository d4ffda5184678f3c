// ChatMessage <-> agent_messages row, shared by the SQL stores.
import type { ChatMessage } from './types.ts';

export interface MessageRow {
  role: ChatMessage['role'];
  content: string | null;
  tool_calls: unknown;
  tool_call_id: string | null;
}

export function messageRow(m: ChatMessage): MessageRow {
  return {
    role: m.role,
    content: m.content,
    tool_calls: m.role === 'assistant' && m.tool_calls ? m.tool_calls : null,
    tool_call_id: m.role === 'tool' ? m.tool_call_id : null,
  };
}

export function rowMessage(r: MessageRow): ChatMessage {
  switch (r.role) {
    case 'system':
    case 'user':
      return { role: r.role, content: r.content ?? '' };
    case 'tool':
      return { role: 'tool', tool_call_id: r.tool_call_id ?? '', content: r.content ?? '' };
    case 'assistant': {
      const calls = typeof r.tool_calls === 'string' ? JSON.parse(r.tool_calls) : r.tool_calls;
      return Array.isArray(calls) && calls.length > 0
        ? { role: 'assistant', content: r.content, tool_calls: calls }
        : { role: 'assistant', content: r.content };
    }
  }
}
