// The tracing engine alone, in this process: the CPU of a turn's worth of spans (a turn, two model
// calls, three proposed calls: the spans the loop makes for bench:stream's tracing turn), exported to an
// OTLP endpoint that takes and drops them (in this process too, so its HTTP parsing is counted: an
// upper bound). A steadier figure than the loop's on/off ratio, whose runs
// move with whatever else the machine does; bench:stream prints both.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Verdict } from 'rebound-gate';
import { parseTracingEnv } from '../src/otel-config.ts';
import { createEngine } from '../src/telemetry/engine.ts';

export async function tracingEngineCpu(turns = 2_000): Promise<{ cpuMsPerTurn: number; spansPerTurn: number; dropped: number }> {
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  const { port } = sink.address() as AddressInfo;
  const { tracing: config } = parseTracingEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_BSP_SCHEDULE_DELAY: '100' });
  const engine = createEngine(config!, () => {});
  const verdicts: Verdict[] = [
    { verdict: 'pass', category: 'valid', call: { name: 'list_files', args: {} } },
    {
      verdict: 'repaired',
      category: 'phantom_tool',
      call: { name: 'list_files', args: {} },
      repairs: [{ kind: 'rename_tool', path: '$', category: 'phantom_tool' }],
    },
    {
      verdict: 'blocked',
      category: 'phantom_tool',
      problems: [{ category: 'phantom_tool', path: '$', message: 'no such tool' }],
      suggestions: [],
      message: 'x',
    },
  ] as Verdict[];
  const turn = async () => {
    const t = await engine.startTurn({ turnId: 't', sessionId: 's', model: 'bench', demo: false });
    for (let i = 0; i < 2; i++) {
      const chat = t.chat({ model: 'bench', provider: 'openai', baseURL: 'http://127.0.0.1:1/v1', messages: [] });
      chat.end({ finishReason: i ? 'stop' : 'tool_calls', usage: { promptTokens: 100, completionTokens: 20 }, responseModel: 'bench' });
    }
    for (const [i, verdict] of verdicts.entries()) {
      const call = t.call({ id: `call_${i}`, name: 'list_files', arguments: '{}' });
      call.end({
        outcome: verdict.verdict === 'blocked' ? 'blocked' : 'executed',
        verdict,
        category: verdict.category,
        tool: { name: 'list_files' },
        ok: true,
      });
    }
    t.end({ reason: 'completed', iterations: 2, usage: { promptTokens: 200, completionTokens: 40 } });
  };
  for (let i = 0; i < 200; i++) await turn(); // warm-up
  await engine.flush();
  const c0 = process.cpuUsage();
  for (let i = 0; i < turns; i++) {
    await turn();
    // Let the exports run, as they would between a server's turns (a turn here takes ~0.2 ms, a real one ~10 ms).
    if (i % 10 === 9) await new Promise((r) => setTimeout(r, 1));
  }
  await engine.flush();
  const c1 = process.cpuUsage(c0);
  sink.close();
  return { cpuMsPerTurn: (c1.user + c1.system) / 1000 / turns, spansPerTurn: 6, dropped: engine.stats?.().dropped ?? 0 };
}
