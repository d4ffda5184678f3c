import { describe, expect, it } from 'vitest';
import { extractTextCalls } from './text-calls.ts';
import type { ToolSpec } from './types.ts';

const tools: ToolSpec[] = [
  { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  { name: 'math.hypot', parameters: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } } } },
];

describe('extractTextCalls', () => {
  it('resolves names as the gate does, the api namespace included, but never a merely similar name', () => {
    const call = (name: string) => extractTextCalls(`<tool_call>{"name": "${name}", "arguments": {"city": "Oslo"}}</tool_call>`, tools).calls;
    expect(call('api.get_weather')).toEqual([{ name: 'get_weather', arguments: { city: 'Oslo' } }]);
    expect(call('default_api:GetWeather')).toEqual([{ name: 'get_weather', arguments: { city: 'Oslo' } }]);
    expect(call('get_wether')).toEqual([]);
  });

  it('extracts a hermes <tool_call> and strips it from the visible text', () => {
    const r = extractTextCalls('Let me check.\n<tool_call>\n{"arguments": {"city": "Paris"}, "name": "get_weather"}\n</tool_call>\n', tools);
    expect(r.calls).toEqual([{ name: 'get_weather', arguments: { city: 'Paris' } }]);
    expect(r.visibleText).toBe('Let me check.');
  });

  it('extracts several calls from a ```json fence holding an array', () => {
    const text = '```json\n[{"name": "get_weather", "parameters": {"city": "Oslo"}}, {"name": "functions.math_hypot", "arguments": {"x": 3, "y": 4}}]\n```';
    const r = extractTextCalls(text, tools);
    expect(r.calls).toEqual([
      { name: 'get_weather', arguments: { city: 'Oslo' } },
      { name: 'math.hypot', arguments: { x: 3, y: 4 } },
    ]);
    expect(r.visibleText).toBe('');
  });

  it('extracts granite, tool_calls wrappers, {function:{…}} with string arguments and name-line forms', () => {
    expect(extractTextCalls('<function_call> {"name": "get_weather", "arguments": {"city": "Rome"}} ', tools).calls).toHaveLength(1);
    expect(extractTextCalls('{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Rome"}}]}', tools).calls).toHaveLength(1);
    expect(extractTextCalls('{"type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Rome\\"}"}}', tools).calls).toEqual([
      { name: 'get_weather', arguments: { city: 'Rome' } },
    ]);
    expect(extractTextCalls('get_weather\n{"city": "Lima"}', tools).calls).toEqual([{ name: 'get_weather', arguments: { city: 'Lima' } }]);
  });

  it('leaves prose that shows JSON as an example alone', () => {
    const text = 'A request body looks like this, for example:\n\n```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```\n\nYou can adapt it.';
    const r = extractTextCalls(text, tools);
    expect(r.calls).toEqual([]);
    expect(r.visibleText).toBe(text);
  });

  it('ignores JSON naming an unknown tool, other code fences and plain prose', () => {
    expect(extractTextCalls('{"name": "send_email", "arguments": {"to": "a@b.c"}}', tools).calls).toEqual([]);
    expect(extractTextCalls('```python\nprint({"a": 1})\n```', tools).calls).toEqual([]);
    expect(extractTextCalls('The weather in Paris is sunny: {mild} and dry.', tools).calls).toEqual([]);
    // One element of the array is not a call: the whole array is not taken.
    expect(extractTextCalls('[{"name": "get_weather", "arguments": {"city": "X"}}, {"id": 3}]', tools).calls).toEqual([]);
  });

  it('drops a leading echoed tool result from the visible text', () => {
    const r = extractTextCalls('{"temperature": 21, "unit": "C"}\nIt is 21 °C in Paris.', tools);
    expect(r.calls).toEqual([]);
    expect(r.visibleText).toBe('It is 21 °C in Paris.');
  });
});
