// A turn handed from the Worker to the Durable Object that runs it (src/entries/turn-routing.ts). With
// shared storage the Worker's app makes a request's checks and creates or finds its turn, and the
// turn's object streams it: a request carrying HANDOFF_HEADER is answered with the turn's handle (where
// its stream is) instead of the stream. POST /v1/chat has no need of it (POST /v1/turns is its handle);
// POST /v1/ui/chat and GET /v1/ui/chat/:id/stream, whose turn the URL does not name, answer it.
// The header grants nothing: the handle's stream token is for a turn the caller may already read.
import type { Context } from 'hono';
import type { TurnRecord } from '../store/types.ts';
import type { TurnTokens } from './turn-token.ts';

export const HANDOFF_HEADER = 'x-rebound-handoff';

/**
 * The answer's header naming a turn whose object must serve the request itself, body and all: useChat's
 * approval response (POST /v1/ui/chat), checked here but decided where its continuation is to run.
 */
export const FORWARD_HEADER = 'x-rebound-forward-to-turn';

/** Where a turn is streamed: its object's stream URL, relative to the app, in the format the request asked for. */
export interface TurnHandle {
  turnId: string;
  sessionId: string;
  streamUrl: string;
}

export function wantsHandle(c: Context): boolean {
  return c.req.header(HANDOFF_HEADER) !== undefined;
}

export interface HandleOptions {
  tokens: TurnTokens;
  /** The route's own path, without its parameters: what precedes it is where the app is mounted. */
  route: string;
  /** The stream's `format` (GET /v1/turns/:id/stream). */
  format: 'ui';
}

export async function turnHandle(c: Context, turn: TurnRecord, options: HandleOptions): Promise<TurnHandle> {
  const token = await options.tokens.issue(turn.id, turn.userId);
  // Relative to wherever the app is mounted (a Supabase function serves it under /<name>).
  const prefix = c.req.path.slice(0, c.req.path.lastIndexOf(options.route));
  const streamUrl = `${prefix}/v1/turns/${turn.id}/stream?token=${encodeURIComponent(token)}&format=${options.format}`;
  return { turnId: turn.id, sessionId: turn.sessionId, streamUrl };
}
