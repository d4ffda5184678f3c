// A stand-in for the real app while it is being written: the same routes and SSE protocol, with
// scripted turns. Used by the harness suite so the pages are tested against the protocol itself.
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ChatMessage, TurnEvent } from '../../src/vocabulary.ts';
import { noAuth, type AppDeps } from '../../src/http/deps.ts';
import { webRoutes } from '../../src/web/routes.ts';
import { fakeDashboard } from './fake-dashboard.ts';

type Step = TurnEvent | { wait: number } | { keepalive: true } | { hangUp: true };

function script(turnId: string, sessionId: string, message: string): Step[] {
  const start: Step = { event: 'turn_start', data: { turnId, sessionId, model: 'rebound-demo', demo: true } };
  const words = (text: string): Step[] => text.split(/(?<= )/).flatMap((t) => [{ event: 'text_delta', data: { text: t } } as Step, { wait: 30 }]);
  if (/pause/i.test(message)) {
    // Silent but alive (keepalives only), then the connection drops without `done`.
    const quiet = Array.from({ length: 6 }, (): Step[] => [{ wait: 1000 }, { keepalive: true }]).flat();
    return [start, ...words('Thinking hard. '), ...quiet, ...words('Almost '), { hangUp: true }];
  }
  if (/slow/i.test(message)) {
    return [start, ...Array.from({ length: 200 }, (_, i) => words(`word${i} `)).flat()];
  }
  return [
    start,
    ...words('Let me look at the parser first. '),
    { event: 'tool_call', data: { id: 'c1', name: 'read_file', arguments: '{"path":"src/parsr.ts"}', iteration: 1 } },
    { wait: 100 },
    {
      event: 'tool_result',
      data: {
        id: 'c1', name: 'read_file', verdict: 'blocked', category: 'invalid_path', ok: false,
        error: 'path "src/parsr.ts" does not exist. Did you mean src/parser.ts?', suggestions: ['src/parser.ts'], durationMs: 1,
      },
    },
    { event: 'tool_call', data: { id: 'c2', name: 'read_file', arguments: '{"path":"src/parser.ts","max_lines":"50"}', iteration: 2 } },
    { wait: 100 },
    {
      event: 'tool_result',
      data: {
        id: 'c2', name: 'read_file', verdict: 'repaired', category: 'wrong_type', ok: true, result: { content: 'export const x = 1;' },
        repairs: [{ kind: 'coerce', path: '$.max_lines', from: '"50"', to: '50', category: 'wrong_type' }], durationMs: 3,
      },
    },
    ...words('The bug was an off-by-one <b>in</b> the tokenizer. I fixed it.'),
    { event: 'done', data: { reason: 'completed', iterations: 3, usage: { promptTokens: 120, completionTokens: 40 } } },
  ];
}

export function harnessApp(): Hono {
  const app = new Hono();
  const sessions = new Map<string, ChatMessage[]>();
  const turns = new Map<string, { sessionId: string; message: string; state: 'pending' | 'running' | 'finished' }>();
  const deps = { auth: noAuth, dashboard: fakeDashboard() } as unknown as AppDeps;

  app.get('/health', (c) => c.json({ ok: true, demo: true, model: 'rebound-demo' }));

  app.post('/v1/turns', async (c) => {
    const body = await c.req.json<{ message: string; sessionId?: string }>();
    const sessionId = body.sessionId ?? crypto.randomUUID();
    if (!sessions.has(sessionId)) sessions.set(sessionId, []);
    const turnId = crypto.randomUUID();
    turns.set(turnId, { sessionId, message: body.message, state: 'pending' });
    return c.json({ turnId, sessionId, streamUrl: `/v1/turns/${turnId}/stream?token=t` });
  });

  app.get('/v1/turns/:id/stream', (c) => {
    const turn = turns.get(c.req.param('id'));
    if (!turn) return c.json({ error: { status: 404, code: 'not_found', message: 'no such turn' } }, 404);
    if (turn.state !== 'pending') return c.body(null, 204);
    turn.state = 'running';
    return streamSSE(c, async (stream) => {
      let aborted = false;
      stream.onAbort(() => {
        aborted = true;
      });
      await stream.write(': keepalive\n\n');
      let seq = 0;
      let text = '';
      for (const step of script(c.req.param('id'), turn.sessionId, turn.message)) {
        if (aborted) break;
        if ('wait' in step) {
          await stream.sleep(step.wait);
          continue;
        }
        if ('keepalive' in step) {
          await stream.write(': keepalive\n\n');
          continue;
        }
        if ('hangUp' in step) break;
        if (step.event === 'text_delta') text += step.data.text;
        await stream.writeSSE({ event: step.event, id: String(++seq), data: JSON.stringify(step.data) });
      }
      turn.state = 'finished';
      sessions.get(turn.sessionId)!.push({ role: 'user', content: turn.message }, { role: 'assistant', content: text });
    });
  });

  app.get('/v1/sessions/:id/messages', (c) => {
    const messages = sessions.get(c.req.param('id'));
    if (!messages) return c.json({ error: { status: 404, code: 'not_found', message: 'no such session' } }, 404);
    return c.json({ messages });
  });

  app.route('/', webRoutes(deps));
  return app;
}
