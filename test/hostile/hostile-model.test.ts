// The hostile-model suite: a table of upstream replies a broken or adversarial model can send, each
// run as a real turn through the real local app (src/entries/local.ts: PGlite storage, the batching
// activity writer, the default tools) behind @hono/node-server, with the real openai client talking
// to the scripted upstream. Each row states what the client must see and what must be persisted:
// the session history exactly as the turn produced it (byte for byte, NUL and lone surrogates
// included), the turn closed with its outcome, and the activity rows of the turn written.
import { MAX_ARGUMENTS_CHARS } from 'rebound-gate';
import { bound, MAX_NAME } from 'rebound-gate/internal';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openLocalDeps, type LocalDeps } from '../../src/entries/local.ts';
import { createApp } from '../../src/http/app.ts';
import { noAuth } from '../../src/http/deps.ts';
import type { ChatMessage, DoneReason } from '../../src/vocabulary.ts';
import { decodeText } from '../../src/store/text-codec.ts';
import { listen, type RunningServer } from '../support/browser-server.ts';
import { startScriptedOpenAI, type ChatRequest, type Reply, type ScriptedServer, type ScriptedToolCall } from '../support/scripted-openai.ts';
import { chat, textOf, type SseEvent } from '../support/sse-client.ts';

const RETRIES = 2;
const MB = 1024 * 1024;

interface Row {
  name: string;
  /** The user's message (default "go"). */
  message?: string;
  /** The upstream's replies to this turn's requests, in order. */
  replies: Reply[];
  /** What the client must see. */
  client: {
    done: DoneReason;
    /** The agent_error the turn must end with; without it, no agent_error may come. */
    agentError?: RegExp;
    /** Further checks on the events (every tool_call event is already checked against the script). */
    check?: (events: SseEvent[], turn: TurnContext) => void;
  };
  /** What must be in PostgreSQL beyond the history, the closed turn and one activity row per call. */
  stored?: {
    /** agent_turns.prompt_tokens, as text (bigint); a list when several values are acceptable. */
    promptTokens?: string | null | Array<string | null>;
    /** Further checks on the turn's agent_activity rows, as stored. */
    activity?: (rows: Record<string, unknown>[]) => void;
  };
}

interface TurnContext {
  /** The requests this turn made upstream. */
  requests: ChatRequest[];
  /** Body bytes the upstream wrote for each of them. */
  sentBytes: number[];
  /** Growth of this process's resident set over the turn, at its peak. */
  rssGrowthBytes: number;
}

/** The same bytes every run: a linear congruential generator. */
function garbage(length: number, seed = 14): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

const call = (name: string, args: string, id = 'call_0'): ScriptedToolCall => ({ name, arguments: args, id });
const done: Reply = { text: 'Done.' };
const NUL = '\u0000';
const HIGH = '\uD800';
const LOW = '\uDC00';

const toolResults = (events: SseEvent[]) => events.filter((e) => e.event === 'tool_result').map((e) => e.data);
const KB = 1024;

/** write_file arguments with `extra` beside a valid path and content: what the gate drops as invented. */
const withExtra = (path: string, extra: string) => `{"path": "${path}", "content": "hi"${extra}}`;
/**
 * A call whose unknown parameter names the gate drops (and runs the call): what it echoes of those
 * names to the client (the tool_result event), the model (the tool message) and the activity row
 * stays a few KB, whatever their length or number.
 */
function boundedEchoRow(name: string, args: string, invented: (names: string[]) => void): Row {
  return {
    name,
    replies: [{ toolCalls: [call('write_file', args)], argChunk: 65_536 }, done],
    client: {
      done: 'completed',
      check: (events, turn) => {
        const [result] = toolResults(events);
        expect(result).toMatchObject({ verdict: 'repaired', ok: true, category: 'unknown_parameter' });
        expect(JSON.stringify(result).length).toBeLessThan(4 * KB);
        const toModel = turn.requests[1]!.messages.find((m) => m.role === 'tool')!;
        expect(toModel.content!.length).toBeLessThan(4 * KB);
      },
    },
    stored: {
      activity: ([row]) => {
        expect(row).toMatchObject({ verdict: 'repaired', category: 'unknown_parameter' });
        invented(row!.invented_params as string[]);
        // The row keeps the first 4,000 characters of the arguments; the rest of it is bounded too.
        expect(JSON.stringify(row).length).toBeLessThan(12 * KB);
        expect(JSON.stringify({ ...row, arguments: '' }).length).toBeLessThan(4 * KB);
      },
    },
  };
}
const upstreamError = (what: RegExp) => new RegExp(`^The model could not answer: .*${what.source}`);

const rows: Row[] = [
  // Bytes that PostgreSQL refuses or mangles, wherever the model can put them.
  { name: 'NUL in the text', replies: [{ text: `before${NUL}after and ${NUL}${NUL} twice` }], client: { done: 'completed' } },
  {
    name: 'NUL in tool arguments',
    replies: [{ toolCalls: [call('write_file', `{"path": "nul.txt", "content": "a${NUL}b"}`)] }, done],
    client: { done: 'completed', check: (events) => expect(toolResults(events)).toHaveLength(1) },
  },
  {
    name: 'NUL in a tool name',
    replies: [{ toolCalls: [call(`read${NUL}file`, '{"path": "a.txt"}')] }, done],
    client: { done: 'completed', check: (events) => expect(toolResults(events)).toMatchObject([{ verdict: 'blocked' }]) },
  },
  { name: 'lone surrogates in the text', replies: [{ text: `high ${HIGH} low ${LOW} reversed ${LOW}${HIGH} end` }], client: { done: 'completed' } },
  {
    name: 'lone surrogates in tool arguments',
    replies: [{ toolCalls: [call('write_file', `{"path": "s.txt", "content": "x${HIGH}y${LOW}z"}`)] }, done],
    client: { done: 'completed', check: (events) => expect(toolResults(events)).toHaveLength(1) },
  },
  {
    name: 'a lone surrogate in a tool name',
    replies: [{ toolCalls: [call(`read_file${HIGH}`, '{"path": "a.txt"}')] }, done],
    client: { done: 'completed', check: (events) => expect(toolResults(events)).toMatchObject([{ verdict: 'blocked' }]) },
  },
  { name: "NUL and a lone surrogate in the user's message", message: `hello${NUL}world ${HIGH}`, replies: [{ text: 'Noted.' }], client: { done: 'completed' } },

  // 200 responses that hold no completion: upstream errors, retried, then agent_error.
  {
    name: 'garbage bytes',
    replies: [{ raw: garbage(8192) }],
    client: { done: 'error', agentError: upstreamError(/(no completion|garbled|not a JSON object)/) },
  },
  {
    name: 'an HTML page',
    replies: [
      {
        raw: '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>\n',
        contentType: 'text/html; charset=utf-8',
      },
    ],
    client: { done: 'error', agentError: upstreamError(/held no completion.*text\/html.*<!DOCTYPE html>/) },
  },
  {
    name: 'a non-streaming JSON body',
    replies: [
      {
        raw: JSON.stringify({
          id: 'chatcmpl-x',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: 'Hi!' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 5, completion_tokens: 2 },
        }),
        contentType: 'application/json',
      },
    ],
    client: { done: 'error', agentError: upstreamError(/non-streaming JSON body/) },
  },
  {
    name: 'an endless line',
    replies: [{ endless: 'x'.repeat(65_536), prefix: 'data: {"choices":[{"index":0,"delta":{"content":"' }],
    client: {
      done: 'error',
      agentError: upstreamError(/SSE line longer than 1 MB.*line limit/),
      check: (_events, turn) => {
        // Each attempt is stopped at the 1 MB cap (plus what the sockets buffer), not read on.
        for (const bytes of turn.sentBytes) expect(bytes).toBeLessThan(32 * MB);
        // A loose bound on memory, not a timing assertion: without the cap this grows by hundreds of MB.
        expect(turn.rssGrowthBytes).toBeLessThan(200 * MB);
      },
    },
  },

  // Token counts that are not counts.
  {
    name: 'usage of 3e9 prompt tokens',
    replies: [{ text: 'Counted.', usage: { prompt_tokens: 3e9, completion_tokens: 20 } }],
    client: { done: 'completed', check: (events) => expect(events.at(-1)!.data.usage).toEqual({ promptTokens: 3e9, completionTokens: 20 }) },
    stored: { promptTokens: '3000000000' },
  },
  {
    name: 'usage "abc"',
    replies: [{ text: 'Counted.', usage: { prompt_tokens: 'abc', completion_tokens: 'abc' } }],
    client: { done: 'completed', check: (events) => expect(events.at(-1)!.data.usage).toEqual({ promptTokens: 0, completionTokens: 0 }) },
    // No usage is counted as 0 by the loop today; null would say "unknown" better. Never "abc".
    stored: { promptTokens: ['0', null] },
  },

  // Calls too big, too deep, too many.
  {
    name: 'tool-call arguments nested 20,000 deep',
    replies: [{ toolCalls: [call('read_file', `{"path": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`)], argChunk: 4096 }, done],
    client: {
      done: 'completed',
      check: (events) => {
        const [result] = toolResults(events);
        expect(result).toMatchObject({ verdict: 'blocked', ok: false });
        expect(result.error).toEqual(expect.any(String));
      },
    },
  },
  {
    name: '1,000 calls in one completion',
    replies: [{ toolCalls: Array.from({ length: 1_000 }, (_, i) => call('read_file', `{"path": "missing/${i}.txt"}`, `call_${i}`)), argChunk: 64 }, done],
    client: {
      done: 'completed',
      check: (events) => {
        const results = toolResults(events);
        expect(results).toHaveLength(1_000);
        expect(results.map((r) => r.id)).toEqual(Array.from({ length: 1_000 }, (_, i) => `call_${i}`));
      },
    },
  },
  boundedEchoRow(
    'a parameter name of 1 MB (as much as the arguments cap lets through)',
    withExtra('long-name.txt', `, "${'q'.repeat(999_900)}": 1`),
    (invented) => {
      expect(invented).toHaveLength(1);
      expect(invented[0]).toMatch(/^q+… \(999900 chars\)$/);
    },
  ),
  boundedEchoRow(
    '8,000 invented parameter names',
    withExtra('many-names.txt', Array.from({ length: 8_000 }, (_, i) => `, "invented_${i}": ${i}`).join('')),
    (invented) => {
      expect(invented).toEqual(Array.from({ length: 20 }, (_, i) => `invented_${i}`));
    },
  ),
  {
    name: 'a tool name of 900 KB (as much as the SSE line cap lets through)',
    replies: [{ toolCalls: [call('r'.repeat(900 * KB), '{"path": "a.txt"}')], argChunk: 65_536 }, done],
    client: {
      done: 'completed',
      check: (events) => {
        const [result] = toolResults(events);
        expect(result).toMatchObject({ verdict: 'blocked', category: 'phantom_tool' });
        expect(JSON.stringify(result).length).toBeLessThan(4 * KB);
        expect(JSON.stringify(events.find((e) => e.event === 'tool_call')!.data.name).length).toBeLessThan(200);
      },
    },
    stored: { activity: ([row]) => expect(JSON.stringify(row).length).toBeLessThan(8 * KB) },
  },
  {
    name: '10 MB of arguments',
    replies: [{ toolCalls: [call('write_file', `{"path": "big.txt", "content": "${'x'.repeat(10 * MB)}"}`)], argChunk: 65_536 }, done],
    client: {
      done: 'completed',
      check: (events, turn) => {
        const [result] = toolResults(events);
        expect(result).toMatchObject({ verdict: 'blocked', ok: false });
        // What is echoed back of a blocked value is bounded, to the client and to the model.
        expect(JSON.stringify(result).length).toBeLessThan(64 * 1024);
        const toModel = turn.requests[1]!.messages.find((m) => m.role === 'tool')!;
        expect(toModel.content!.length).toBeLessThan(64 * 1024);
      },
    },
  },
];

let upstream: ScriptedServer;
let local: LocalDeps;
let server: RunningServer;
let dataDir: string;
/** The current row's replies, and the index of its first upstream request. */
let current: Reply[] = [];
let firstRequest = 0;

beforeAll(async () => {
  upstream = await startScriptedOpenAI((_req, i) => current[Math.min(i - firstRequest, current.length - 1)]!);
  dataDir = mkdtempSync(join(tmpdir(), 'rebound-hostile-'));
  const config = loadConfig({
    OPENAI_API_KEY: 'sk-hostile',
    OPENAI_BASE_URL: upstream.url,
    MODEL: 'hostile-1',
    MODEL_RETRIES: String(RETRIES),
    KEEPALIVE_MS: '10000',
  });
  local = await openLocalDeps(config, { dataDir, auth: noAuth, activity: { flushIntervalMs: 50 } });
  server = await listen(createApp(local.deps).fetch);
});

afterAll(async () => {
  await server?.close();
  await local?.close();
  await upstream?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** A reply that is a completion the loop accepts (as opposed to one that fails the request). */
function isCompletion(reply: Reply): reply is Extract<Reply, { text?: string }> {
  return !('status' in reply) && !('raw' in reply) && !('endless' in reply) && !('garbledAfter' in reply);
}

/**
 * The history the turn must leave: the user's message, then for each completion its assistant
 * message exactly as scripted (text, call ids, names and arguments) and the tool messages exactly
 * as the loop sent them to the model in the next request.
 */
function expectedHistory(row: Row, message: string, requests: ChatRequest[]): ChatMessage[] {
  const history: ChatMessage[] = [{ role: 'user', content: message }];
  row.replies.forEach((reply, k) => {
    if (!isCompletion(reply) || k >= requests.length) return;
    const calls = reply.toolCalls ?? [];
    if (calls.length === 0) {
      history.push({ role: 'assistant', content: reply.text ?? '' });
      return;
    }
    history.push({
      role: 'assistant',
      content: reply.text || null,
      tool_calls: calls.map((c) => ({ id: c.id!, type: 'function' as const, function: { name: c.name, arguments: kept(c.arguments) } })),
    });
    const sent = (requests[k + 1]?.messages ?? []).filter((m) => m.role === 'tool');
    for (const c of calls) {
      const tool = sent.find((m) => m.tool_call_id === c.id);
      history.push({ role: 'tool', tool_call_id: c.id!, content: tool?.content ?? '<never sent to the model>' });
    }
  });
  return history;
}

/** What the loop keeps of a streamed call's arguments (src/model/assemble.ts). */
const kept = (args: string) => args.slice(0, MAX_ARGUMENTS_CHARS);

describe('hostile model output, through the real app on PGlite', () => {
  for (const row of rows) {
    it(row.name, { timeout: 120_000 }, async () => {
      current = row.replies;
      firstRequest = upstream.requests.length;
      const message = row.message ?? 'go';
      // The resident set's peak over the turn, sampled (a loose bound, read by the endless-line row).
      const rssBefore = process.memoryUsage().rss;
      let rssPeak = rssBefore;
      const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 25);
      const res = await chat(server.url, { message }).finally(() => clearInterval(sampler));
      const rssGrowthBytes = Math.max(rssPeak, process.memoryUsage().rss) - rssBefore;
      const requests = upstream.requests.slice(firstRequest);
      const turn: TurnContext = { requests, sentBytes: upstream.sentBytes.slice(firstRequest), rssGrowthBytes };

      // What the client sees.
      expect(res.status).toBe(200);
      const { events } = res;
      expect(events[0]?.event).toBe('turn_start');
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { reason: row.client.done } });
      const errors = events.filter((e) => e.event === 'agent_error');
      if (row.client.agentError) {
        expect(errors).toHaveLength(1);
        expect(errors[0]!.data).toMatchObject({ message: expect.stringMatching(row.client.agentError), retryable: true });
        // Retried while nothing was streamed: every attempt reached the upstream.
        expect(requests).toHaveLength(1 + RETRIES);
      } else {
        expect(errors).toEqual([]);
        expect(requests).toHaveLength(row.replies.length);
      }
      const completions = row.replies.slice(0, requests.length).filter(isCompletion);
      expect(textOf(events)).toBe(completions.map((r) => r.text ?? '').join(''));
      const scriptedCalls = completions.flatMap((r) => r.toolCalls ?? []);
      const callEvents = events.filter((e) => e.event === 'tool_call').map((e) => e.data);
      // The event shows the name as proposed, cut (with its length) past MAX_NAME characters, and the
      // arguments as far as they are kept (MAX_ARGUMENTS_CHARS: the gate reads no more).
      expect(callEvents.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }))).toEqual(
        scriptedCalls.map((c) => ({ id: c.id, name: bound(c.name, MAX_NAME), arguments: kept(c.arguments) })),
      );
      row.client.check?.(events, turn);

      // What is persisted: the history exactly, as a reload reads it.
      const { turnId, sessionId } = events[0]!.data as { turnId: string; sessionId: string };
      const history = await fetch(`${server.url}/v1/sessions/${sessionId}/messages`);
      expect(history.status).toBe(200);
      const stored = ((await history.json()) as { messages: ChatMessage[] }).messages;
      const expected = expectedHistory(row, message, requests);
      expect(stored.length).toBe(expected.length);
      expect(stored).toEqual(expected);

      // The turn is closed with its outcome, and the activity rows of the turn are written.
      await local.activity.flush();
      const turnRows = await local.db.query<{ status: string; outcome: string | null; prompt_tokens: string | null }>(
        'select status, outcome, prompt_tokens::text as prompt_tokens from public.agent_turns where id = $1',
        [turnId],
      );
      expect(turnRows.rows).toHaveLength(1);
      expect(turnRows.rows[0]).toMatchObject({ status: 'finished', outcome: row.client.done });
      const tokens = row.stored?.promptTokens;
      if (Array.isArray(tokens)) expect(tokens).toContain(turnRows.rows[0]!.prompt_tokens);
      else if (tokens !== undefined) expect(turnRows.rows[0]!.prompt_tokens).toBe(tokens);
      const activity = await local.db.query<{ call_id: string; tool_requested: string }>(
        'select call_id, tool_requested from public.agent_activity where turn_id = $1',
        [turnId],
      );
      const byCall = new Map(activity.rows.map((r) => [decodeText(r.call_id), decodeText(r.tool_requested)]));
      expect(activity.rows).toHaveLength(toolResults(events).length);
      for (const c of scriptedCalls) expect(byCall.get(c.id!)).toBe(bound(c.name, MAX_NAME));
      if (row.stored?.activity) {
        const full = await local.db.query<Record<string, unknown>>('select * from public.agent_activity where turn_id = $1 order by created_at', [turnId]);
        row.stored.activity(full.rows);
      }
    });
  }
});
