// The gateway's streamed answer as the SSE sink is handed it: a gated call goes to the client as it is
// delivered, ahead of the rest of the upstream read that completed it (stream.ts attempts; the held
// call's delay, docs/benchmarks.md § The streaming paths at the physical limit (issue 34)).
import { describe, expect, it } from 'vitest';
import type { Context } from 'hono';
import { startGateway, TOOLS } from '../../test/gateway/harness.ts';
import { nodeSseSink } from '../entries/node-sse.ts';

/** An upstream's chat chunk as SSE text. */
const chunk = (delta: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const callDelta = (index: number, fields: Record<string, unknown>) => chunk({ tool_calls: [{ index, ...fields }] });

describe('gatewayStream', () => {
  it('sends each gated call as it is delivered, not with the rest of the read that completed it', async () => {
    // Two calls and the end in one upstream write: the first call is complete when the second begins.
    const raw = [
      chunk({ role: 'assistant', content: null }),
      callDelta(0, { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }),
      callDelta(0, { function: { arguments: '"Paris"}' } }),
      callDelta(1, { id: 'call_b', type: 'function', function: { name: 'search_notes', arguments: '{"query":' } }),
      callDelta(1, { function: { arguments: '"rain"}' } }),
      chunk({}, 'tool_calls'),
      'data: [DONE]\n\n',
    ].join('');
    const sends: string[] = [];
    const sseSink = (c: Context) => {
      const sink = nodeSseSink(c)!;
      const send = sink.send.bind(sink);
      sink.send = (text, ending) => {
        sends.push(text);
        return send(text, ending);
      };
      return sink;
    };
    const gateway = await startGateway(() => ({ raw }), {}, { sseSink });
    try {
      const res = await fetch(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'loop-model', stream: true, messages: [{ role: 'user', content: 'hi' }], tools: TOOLS }),
      });
      const text = await res.text();
      const first = JSON.stringify('{"city":"Paris"}');
      const second = JSON.stringify('{"query":"rain"}');
      // The client has both calls whole, each once, and the end.
      expect(text.split(first)).toHaveLength(2);
      expect(text.split(second)).toHaveLength(2);
      expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
      // Each went to the sink on its own, the first before the second was read, neither with the finish.
      const withFirst = sends.findIndex((s) => s.includes(first));
      const withSecond = sends.findIndex((s) => s.includes(second));
      expect(withFirst).toBeGreaterThanOrEqual(0);
      expect(withSecond).toBeGreaterThan(withFirst);
      expect(sends[withFirst]).not.toContain('"finish_reason":"tool_calls"');
      expect(sends[withSecond]).not.toContain('"finish_reason":"tool_calls"');
    } finally {
      await gateway.close();
    }
  });
});
