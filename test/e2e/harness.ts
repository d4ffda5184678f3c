// A stand-in for the real app: the same routes and SSE protocol, with scripted turns. Used by the
// harness suite so the pages are tested against the protocol itself. A turn here is durable as in
// the real app: it runs detached from any connection, appending numbered events to its log; every
// stream is a reader that replays after Last-Event-ID (header or ?lastEventId=) and then follows;
// POST …/stop ends it with done{aborted}.
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ChatMessage, TurnEvent } from '../../src/vocabulary.ts';
import { noAuth, type AppDeps } from '../../src/http/deps.ts';
import { webRoutes } from '../../src/http/routes/web.ts';
import { fakeDashboard } from './fake-dashboard.ts';

/** `hangUp` drops every reader's connection (a network drop as the server sees it); the turn goes on. */
type Step = TurnEvent | { wait: number } | { keepalive: true } | { hangUp: true };

const USAGE = { promptTokens: 120, completionTokens: 40 };

/** An answer with a long TypeScript block between paragraphs, then a table: streamed 7 characters at a time. */
export const LONG_FENCE = [
  'Here is the parser, **rewritten**:',
  '',
  '```ts',
  ...Array.from(
    { length: 60 },
    (_, i) =>
      `export function rule${i}(input: string): boolean {\n  // rule ${i}: \`${i}\` < ${i + 1} && "quoted"\n  return /^[a-z]+$/.test(input) && input.length > ${i};\n}`,
  ),
  '```',
  '',
  '| rule | checks |',
  '| --- | --- |',
  ...Array.from({ length: 8 }, (_, i) => `| \`rule${i}\` | longer than ${i} |`),
  '',
  'That is all.',
].join('\n');

function script(turnId: string, sessionId: string, message: string): Step[] {
  const start: Step = { event: 'turn_start', data: { turnId, sessionId, model: 'rebound-demo', demo: true } };
  const words = (text: string): Step[] => text.split(/(?<= )/).flatMap((t) => [{ event: 'text_delta', data: { text: t } } as Step, { wait: 30 }]);
  const done: Step = { event: 'done', data: { reason: 'completed', iterations: 1, usage: USAGE } };
  if (/pause/i.test(message)) {
    // Silent but alive (keepalives only), then the connection drops mid-turn; the turn goes on without it.
    const quiet = Array.from({ length: 6 }, (): Step[] => [{ wait: 1000 }, { keepalive: true }]).flat();
    return [start, ...words('Thinking hard. '), ...quiet, ...words('Almost '), { hangUp: true }, ...words('there, and done.'), done];
  }
  if (/drop/i.test(message)) {
    return [start, ...words('One two three '), { hangUp: true }, ...words('four five six.'), done];
  }
  if (/long fence/i.test(message)) {
    // A long fenced block (and a table after it) in small chunks, as a model streams code.
    const chunks = (text: string, size: number): Step[] =>
      Array.from({ length: Math.ceil(text.length / size) }, (_, i): Step[] => [
        { event: 'text_delta', data: { text: text.slice(i * size, (i + 1) * size) } },
        { wait: 3 },
      ]).flat();
    return [start, ...chunks(LONG_FENCE, 7), done];
  }
  if (/slow/i.test(message)) {
    return [start, ...Array.from({ length: 200 }, (_, i) => words(`word${i} `)).flat(), done];
  }
  return [
    start,
    ...words('Let me look at the parser first. '),
    { event: 'tool_call', data: { id: 'c1', name: 'read_file', arguments: '{"path":"src/parsr.ts"}', iteration: 1 } },
    { wait: 100 },
    {
      event: 'tool_result',
      data: {
        id: 'c1',
        name: 'read_file',
        verdict: 'blocked',
        category: 'invalid_path',
        ok: false,
        error: 'path "src/parsr.ts" does not exist. Did you mean src/parser.ts?',
        suggestions: ['src/parser.ts'],
        durationMs: 1,
      },
    },
    { event: 'tool_call', data: { id: 'c2', name: 'read_file', arguments: '{"path":"src/parser.ts","max_lines":"50"}', iteration: 2 } },
    { wait: 100 },
    {
      event: 'tool_result',
      data: {
        id: 'c2',
        name: 'read_file',
        verdict: 'repaired',
        category: 'wrong_type',
        ok: true,
        result: { content: 'export const x = 1;' },
        repairs: [{ kind: 'coerce', path: '$.max_lines', from: '"50"', to: '50', category: 'wrong_type' }],
        durationMs: 3,
      },
    },
    ...words('The bug was an off-by-one <b>in</b> the tokenizer. I fixed it.'),
    { event: 'done', data: { reason: 'completed', iterations: 3, usage: USAGE } },
  ];
}

interface HarnessTurn {
  sessionId: string;
  message: string;
  log: Array<{ seq: number; event: string; data: string }>;
  finished: boolean;
  keepalives: number;
  stop: AbortController;
  /** Readers waiting for something to write (an event, a keepalive, the end, a hang-up). */
  waiting: Set<() => void>;
  /** One per open reader: ends its connection. */
  readers: Set<() => void>;
}

export interface Harness {
  app: Hono;
  /** What the server saw, for assertions: stop requests by turn id, and every stream request's Last-Event-ID. */
  seen: { stops: string[]; resumes: Array<{ turnId: string; lastEventId: string | undefined }> };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

export function harness(): Harness {
  const app = new Hono();
  const sessions = new Map<string, ChatMessage[]>();
  const turns = new Map<string, HarnessTurn>();
  const seen: Harness['seen'] = { stops: [], resumes: [] };
  const deps = { auth: noAuth, dashboard: fakeDashboard() } as unknown as AppDeps;

  const wake = (turn: HarnessTurn) => {
    for (const w of turn.waiting) w();
    turn.waiting.clear();
  };
  const append = (turn: HarnessTurn, event: TurnEvent) => {
    turn.log.push({ seq: turn.log.length + 1, event: event.event, data: JSON.stringify(event.data) });
    wake(turn);
  };

  // The producer: runs the script whether or not anyone reads; done goes out after the history is saved.
  async function produce(turnId: string, turn: HarnessTurn) {
    const signal = turn.stop.signal;
    let text = '';
    const save = () => sessions.get(turn.sessionId)!.push({ role: 'user', content: turn.message }, { role: 'assistant', content: text });
    for (const step of script(turnId, turn.sessionId, turn.message)) {
      if (signal.aborted) break;
      if ('wait' in step) await sleep(step.wait, signal);
      else if ('keepalive' in step) {
        turn.keepalives++;
        wake(turn);
      } else if ('hangUp' in step) for (const hangUp of turn.readers) hangUp();
      else {
        if (step.event === 'text_delta') text += step.data.text;
        if (step.event === 'done') save();
        append(turn, step);
      }
    }
    if (signal.aborted) {
      save();
      append(turn, { event: 'done', data: { reason: 'aborted', iterations: 1, usage: USAGE } });
    }
    turn.finished = true;
    wake(turn);
  }

  app.get('/health', (c) => c.json({ ok: true, demo: true, model: 'rebound-demo' }));

  app.post('/v1/turns', async (c) => {
    const body = await c.req.json<{ message: string; sessionId?: string }>();
    const sessionId = body.sessionId ?? crypto.randomUUID();
    if (!sessions.has(sessionId)) sessions.set(sessionId, []);
    const turnId = crypto.randomUUID();
    const turn: HarnessTurn = {
      sessionId,
      message: body.message,
      log: [],
      finished: false,
      keepalives: 0,
      stop: new AbortController(),
      waiting: new Set(),
      readers: new Set(),
    };
    turns.set(turnId, turn);
    void produce(turnId, turn);
    return c.json({ turnId, sessionId, streamUrl: `/v1/turns/${turnId}/stream?token=t` }, 201);
  });

  app.post('/v1/turns/:id/stop', (c) => {
    const turnId = c.req.param('id');
    const turn = turns.get(turnId);
    if (!turn) return c.json({ error: { status: 404, code: 'not_found', message: 'no such turn' } }, 404);
    seen.stops.push(turnId);
    if (turn.finished) return c.json({ error: { status: 409, code: 'conflict', message: 'The turn has already finished.' } }, 409);
    turn.stop.abort();
    return c.json({ turnId, status: 'stopping' }, 202);
  });

  app.get('/v1/turns/:id/stream', (c) => {
    const turnId = c.req.param('id');
    const turn = turns.get(turnId);
    if (!turn) return c.json({ error: { status: 404, code: 'not_found', message: 'no such turn' } }, 404);
    const lastEventId = c.req.header('Last-Event-ID') ?? c.req.query('lastEventId');
    seen.resumes.push({ turnId, lastEventId });
    const after = Number(lastEventId ?? 0);
    if (turn.finished && after >= turn.log.length) return c.body(null, 204);
    // "overlap": a server that repeats the last two events on a resume, which the page must not draw twice.
    let next = Math.max(0, /overlap/i.test(turn.message) ? after - 2 : after);
    return streamSSE(c, async (stream) => {
      let open = true;
      const hangUp = () => {
        open = false;
        wake(turn);
      };
      turn.readers.add(hangUp);
      stream.onAbort(hangUp);
      await stream.write(': keepalive\n\n');
      let keepalives = turn.keepalives;
      while (open) {
        while (open && next < turn.log.length) {
          const e = turn.log[next++]!;
          await stream.writeSSE({ event: e.event, id: String(e.seq), data: e.data });
        }
        if (keepalives !== turn.keepalives) {
          keepalives = turn.keepalives;
          await stream.write(': keepalive\n\n');
        }
        if (!open || (turn.finished && next >= turn.log.length)) break;
        await new Promise<void>((resolve) => turn.waiting.add(resolve));
      }
      turn.readers.delete(hangUp);
    });
  });

  app.get('/v1/sessions/:id/messages', (c) => {
    const messages = sessions.get(c.req.param('id'));
    if (!messages) return c.json({ error: { status: 404, code: 'not_found', message: 'no such session' } }, 404);
    return c.json({ messages });
  });

  app.route('/', webRoutes(deps));
  return { app, seen };
}
