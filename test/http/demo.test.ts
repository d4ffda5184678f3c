// The demo model (no OPENAI_API_KEY) through the whole app: it must recover from what the gate
// actually tells it, not replay canned events.
import { afterEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app-server.ts';
import { chat, textOf, type SseEvent } from '../support/sse-client.ts';
import { createMemoryStorage } from '../../src/store/memory.ts';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const results = (events: SseEvent[]) => events.filter((e) => e.event === 'tool_result').map((e) => e.data);
const calls = (events: SseEvent[]) => events.filter((e) => e.event === 'tool_call').map((e) => e.data);

describe('demo model', () => {
  it('recovers from a cut-short file, a mistyped path and a phantom tool, then answers', async () => {
    app = await startApp({});
    const res = await chat(app.url, { message: 'add a slugify helper' });
    expect(res.events[0]!.data).toMatchObject({ demo: true, model: 'rebound-demo' });
    const r = results(res.events);
    const c = calls(res.events);
    expect(r.map((x) => `${x.name}:${x.verdict}:${x.category}`)).toEqual([
      'write_file:blocked:placeholder_content',
      'write_file:pass:valid',
      'read_file:blocked:invalid_path',
      'read_file:repaired:wrong_type',
      'list_directory:blocked:phantom_tool',
      `${c[5]!.name}:pass:valid`,
    ]);
    // Each correction is taken from the suggestion the gate returned.
    expect(r[2]!.suggestions[0]).toBe('src/utils/slugify.ts');
    expect(JSON.parse(c[3]!.arguments).path).toBe(r[2]!.suggestions[0]);
    // list_directory is no near typo of a tool (it shares only "list" with list_files): the gate
    // guesses nothing, and the demo picks from the tools its message lists.
    expect(r[4]!.suggestions).toEqual([]);
    expect(r[4]!.error).toContain('Available: list_files,');
    expect(c[5]!.name).toBe('list_files');
    // The corrected read was also repaired: "50" became 50, and the invented parameter was recorded.
    expect(r[3]!.repairs.map((x: { kind: string }) => x.kind).sort()).toEqual(['coerce', 'drop_unknown']);
    const row = app.activity.calls.find((x) => x.call_id === c[3]!.id)!;
    expect(row.invented_params).toEqual(['show_line_numbers']);
    expect(res.events.at(-1)!.data).toMatchObject({ reason: 'completed' });
    expect(textOf(res.events)).toMatch(/slugify/);
  });

  it('follows a different suggestion when the workspace differs', async () => {
    // With a sibling file closer to the typo, the demo's correction follows the gate, not a script.
    app = await startApp({}, { storage: createMemoryStorage({ 'src/utils/slugfy-old.ts': 'export {}\n' }) });
    const res = await chat(app.url, { message: 'add a slugify helper' });
    const r = results(res.events);
    const c = calls(res.events);
    const blockedRead = r.find((x) => x.category === 'invalid_path')!;
    expect(JSON.parse(c[3]!.arguments).path).toBe(blockedRead.suggestions[0]);
  });

  it('runs into the iteration limit and gets the forced summary', async () => {
    app = await startApp({ MAX_ITERATIONS: '3' });
    const res = await chat(app.url, { message: 'demo the iteration limit' });
    expect(res.events.filter((e) => e.event === 'tool_call')).toHaveLength(3);
    expect(res.events.find((e) => e.event === 'forced_summary')!.data).toEqual({ reason: 'iteration_limit' });
    expect(textOf(res.events)).toMatch(/Summary \(demo\): I made 3 tool calls/);
    expect(res.events.at(-1)!.data.reason).toBe('iteration_limit');
  });
});
