import { describe, expect, it } from 'vitest';
import { gate, type ToolSpec } from 'rebound-gate';
import { LoopBreaker, argumentsKey } from './loop-breaker.ts';

const echo: ToolSpec = {
  name: 'echo',
  parameters: { type: 'object', properties: { text: { type: 'string' }, times: { type: 'integer', minimum: 1 } }, required: ['text', 'times'] },
};
const list: ToolSpec = { name: 'list', parameters: { type: 'object', properties: {} } };

const bad = (args = '{"text": "hi"}') => ({ tool: 'echo', category: 'missing_required' as const, args });

describe('LoopBreaker', () => {
  it('escalates the same failed call: nothing, then the schema and an example, then withholds the tool', () => {
    const breaker = new LoopBreaker([echo, list]);
    expect(breaker.failed(bad())).toBeNull();

    const second = breaker.failed(bad())!;
    expect(second).toMatchObject({ repeats: 2, withheld: false, shown: { schema: echo.parameters, example: { text: 'example', times: 1 } } });
    expect(second.note).toMatch(/failed 2 times/);
    expect(gate({ id: 'x', name: 'echo', arguments: JSON.stringify(second.shown!.example) }, [echo, list]).verdict).toBe('pass');
    expect(breaker.isWithheld('echo')).toBe(false);

    const third = breaker.failed(bad())!;
    expect(third).toMatchObject({ repeats: 3, withheld: true });
    expect(third.shown).toBeUndefined();
    expect(third.note).toMatch(/"echo" is now withheld for the rest of this turn/);
    expect(third.note).toContain('(list)');
    expect(breaker.isWithheld('echo')).toBe(true);
    expect(breaker.offered().map((t) => t.name)).toEqual(['list']);
    expect(breaker.refusal('echo')).toMatch(/^Tool "echo" was not executed: it was withheld .* failed 3 times/);
  });

  it('treats spacing and key order as the same call', () => {
    const breaker = new LoopBreaker([echo]);
    expect(breaker.failed(bad('{"text": "hi", "n": [1, 2]}'))).toBeNull();
    expect(breaker.failed(bad('{ "n":[1,2],\n  "text":"hi" }'))?.repeats).toBe(2);
    // Text that is not JSON is compared without its whitespace.
    expect(breaker.failed(bad('{"text": "cut'))).toBeNull();
    expect(breaker.failed(bad('{"text":  "cut'))?.repeats).toBe(2);
  });

  it('does not escalate a different call: other arguments, another category or another tool', () => {
    const breaker = new LoopBreaker([echo, list]);
    expect(breaker.failed(bad('{"text": "a"}'))).toBeNull();
    expect(breaker.failed(bad('{"text": "b"}'))).toBeNull();
    expect(breaker.failed(bad('{"text": "hi "}'))).toBeNull();
    expect(breaker.failed({ ...bad('{"text": "a"}'), category: 'wrong_type' })).toBeNull();
    expect(breaker.failed({ ...bad('{"text": "a"}'), tool: 'list' })).toBeNull();
    expect(breaker.offered()).toHaveLength(2);
  });

  it('compares parsed arguments of a call that ran with the same arguments as text', () => {
    const breaker = new LoopBreaker([echo]);
    expect(breaker.failed({ tool: 'echo', category: 'execution_error', args: { times: 2, text: 'x' } })).toBeNull();
    expect(breaker.failed({ tool: 'echo', category: 'execution_error', args: '{"text":"x","times":2}' })?.repeats).toBe(2);
  });

  it('has nothing to show or withhold for a tool that does not exist, but still says it is a repeat', () => {
    const breaker = new LoopBreaker([echo]);
    const phantom = { tool: 'fly_to_moon', category: 'phantom_tool' as const, args: '{}' };
    breaker.failed(phantom);
    breaker.failed(phantom);
    const third = breaker.failed(phantom)!;
    expect(third).toMatchObject({ repeats: 3, withheld: false });
    expect(third.shown).toBeUndefined();
    expect(third.note).toMatch(/"fly_to_moon" has now failed 3 times.*available tools/);
    expect(breaker.offered()).toEqual([echo]);
  });

  it('bounds a hostile tool name in what it tells the model', () => {
    const breaker = new LoopBreaker([echo]);
    const name = 'x'.repeat(100_000);
    breaker.failed({ tool: name, category: 'phantom_tool', args: '{}' });
    expect(breaker.failed({ tool: name, category: 'phantom_tool', args: '{}' })!.note.length).toBeLessThan(400);
    expect(breaker.refusal(name).length).toBeLessThan(400);
  });

  it('follows its options, and refuses options that cannot escalate in order', () => {
    const breaker = new LoopBreaker([echo], { schemaAt: 3, withholdAt: 4 });
    expect(breaker.failed(bad())).toBeNull();
    expect(breaker.failed(bad())).toBeNull();
    expect(breaker.failed(bad())?.shown?.schema).toEqual(echo.parameters);
    expect(breaker.failed(bad())?.withheld).toBe(true);
    expect(() => new LoopBreaker([echo], { schemaAt: 3, withholdAt: 2 })).toThrow(/schemaAt <= withholdAt/);
    expect(() => new LoopBreaker([echo], { schemaAt: 1 })).toThrow(/2 <= schemaAt/);
  });
});

describe('argumentsKey', () => {
  it('is canonical JSON for JSON, whitespace-free text otherwise', () => {
    expect(argumentsKey('{"b": 1, "a": {"d": [1, {"y": 2, "x": 1}], "c": null}}')).toBe('{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
    expect(argumentsKey({ b: 1, a: 'x y' })).toBe('{"a":"x y","b":1}');
    expect(argumentsKey("{'a': 1,\n 'b': 2}")).toBe("{'a':1,'b':2}");
  });

  it('survives arguments nested far deeper than the stack', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(argumentsKey(deep)).toBe(deep);
    let value: Record<string, unknown> = {};
    for (let i = 0; i < 200_000; i++) value = { a: value };
    expect(argumentsKey(value)).toBeNull();
  });
});
