import { describe, expect, it } from 'vitest';
import { compileTools } from '../index.ts';
import type { CallOptions, Model, StreamPart } from './calls.ts';
import { gatedStream } from './stream.ts';

const tools = compileTools([{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }]);
const params = { prompt: [] } as unknown as CallOptions;

describe('gatedStream', () => {
  it('cancelled while the upstream is silent: the upstream read is cancelled at once, and no re-ask follows', async () => {
    let cancelled: unknown;
    const upstream = new ReadableStream<StreamPart>({
      start(controller) {
        // A blocked call, then nothing: the model stalls before its finish.
        controller.enqueue({ type: 'tool-call', toolCallId: 'call_1', toolName: 'get_weather', input: '{}' });
        controller.enqueue({ type: 'text-start', id: 't' });
        controller.enqueue({ type: 'text-delta', id: 't', delta: 'Hmm. ' });
      },
      cancel(reason) {
        cancelled = reason ?? 'cancelled';
      },
    });
    let reasks = 0;
    const model = {
      doStream: async () => {
        reasks++;
        return { stream: new ReadableStream<StreamPart>() };
      },
    } as unknown as Model;
    const reader = gatedStream({ first: upstream, params, tools, retries: 1, model }).getReader();
    expect((await reader.read()).value).toMatchObject({ type: 'text-start', id: 't' });
    expect((await reader.read()).value).toMatchObject({ type: 'text-delta', delta: 'Hmm. ' });
    // Now the middleware waits on the upstream's next part, which never comes.
    await new Promise((r) => setTimeout(r, 20));
    const settled = await Promise.race([reader.cancel('gone').then(() => 'cancelled'), new Promise((r) => setTimeout(() => r('still waiting'), 1_000))]);
    expect(settled).toBe('cancelled');
    expect(cancelled).toBe('gone');
    expect(reasks).toBe(0);
  });
});
