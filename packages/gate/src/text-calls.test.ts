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

  it('leaves a reply that opens with a JSON value and then speaks exactly as written', () => {
    const text = '{"temperature": 21, "unit": "C"}\nIt is 21 °C in Paris.';
    expect(extractTextCalls(text, tools)).toEqual({ calls: [], visibleText: text });
  });
});

describe('a call shown in prose is not a call (issue 29)', () => {
  const workspace: ToolSpec[] = [
    { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } }, annotations: { readOnlyHint: true } },
    { name: 'delete_file', parameters: { type: 'object', properties: { path: { type: 'string' } } }, annotations: { destructiveHint: true } },
  ];
  const del = '{"name": "delete_file", "arguments": {"path": "notes/important.md"}}';
  const read = '{"name": "read_file", "arguments": {"path": "notes/important.md"}}';

  it('the review’s answers: a question, a refusal, a js snippet, a quoted file, a question before bare JSON', () => {
    for (const text of [
      `I can remove it for you. Should I run this?\n\`\`\`json\n${del}\n\`\`\`\nReply yes and I will.`,
      `To delete a file one would call:\n\`\`\`json\n${del}\n\`\`\`\nI will not do that without your go-ahead.`,
      `Here is how the client would do it:\n\`\`\`js\nconst call = ${del};\nawait client.run(call);\n\`\`\``,
      `The file notes/tools.json contains: ${del}`,
      `Should I run this?\n${del}`,
    ]) {
      expect(extractTextCalls(text, workspace), text).toEqual({ calls: [], visibleText: text });
    }
  });

  it('markup opening a line is a call; quoted in code, a fence or a blockquote it is not', () => {
    expect(extractTextCalls(`I will delete it now.\n<tool_call>\n${del}\n</tool_call>`, workspace).calls).toHaveLength(1);
    expect(extractTextCalls(`<|python_tag|>${del}<|eom_id|>`, workspace).calls).toHaveLength(1);
    expect(extractTextCalls(`[TOOL_CALLS] [${del}]`, workspace).calls).toHaveLength(1);
    expect(extractTextCalls('<function=delete_file>{"path": "a.md"}</function>', workspace)).toEqual({
      calls: [{ name: 'delete_file', arguments: { path: 'a.md' } }],
      visibleText: '',
    });
    for (const text of [
      `Hermes writes calls as \`<tool_call>${del}</tool_call>\`.`,
      `A Hermes call looks like this:\n\`\`\`\n<tool_call>\n${del}\n</tool_call>\n\`\`\``,
      `> <tool_call>\n> ${del}\n> </tool_call>`,
      `The template wraps it: <tool_call>${del}</tool_call> and the server parses it.`,
      `A call to it, e.g. <tool_call>${del}</tool_call>`,
      `Plan:\n1. <tool_call>${del}</tool_call>\n2. Report.`,
      `| 1 | <tool_call>${del}</tool_call> |`,
    ]) {
      expect(extractTextCalls(text, workspace), text).toEqual({ calls: [], visibleText: text });
    }
  });

  it('a call in any form followed by text asking to confirm it stays text, markup included', () => {
    for (const text of [
      `<tool_call>\n${del}\n</tool_call>\nShould I go ahead?`,
      `I can remove it.\n<|python_tag|>${del}<|eom_id|>\nReply yes and I will.`,
      `[TOOL_CALLS] [${del}]\nLet me know if this is the right file before I run it.`,
      '<function=delete_file>{"path": "a.md"}</function>\n\nDo you want me to go ahead?',
      // The ask after the second call holds back the first as well: nothing of the answer runs.
      `<tool_call>${read}</tool_call>\n<tool_call>${del}</tool_call>\nShall I?`,
      `${del}\nConfirm?`,
    ]) {
      expect(extractTextCalls(text, workspace), text).toEqual({ calls: [], visibleText: text });
    }
  });

  it('a call in markup after a question about doing it that the model left open stays text (the model asks, then shows)', () => {
    for (const text of [
      `Should I delete the old logs?\n<tool_call>\n${del}\n</tool_call>`,
      `Do you want me to reset it?\n\n[TOOL_CALLS] [${del}]`,
      `Would you like me to remove it? It cannot be undone.\n<|python_tag|>${del}<|eom_id|>`,
      'Please confirm before I run this.\n<function=delete_file>{"path": "a.md"}</function>',
      `Should I read it first?\n<tool_call>${read}</tool_call>`,
      // The question before the second call holds back the first as well.
      `<tool_call>${read}</tool_call>\nShall I also delete it?\n<tool_call>${del}</tool_call>`,
    ]) {
      expect(extractTextCalls(text, workspace), text).toEqual({ calls: [], visibleText: text });
    }
  });

  it('markup after a question the model answers itself, or one far before it, still runs', () => {
    for (const before of [
      'What is in the file? Let me check.',
      'Should I read it first? Yes, here it is:',
      `Shall I? ${'It is long. '.repeat(60)}`,
      '<think>\nShould I read it first? The user asked what it says.\n</think>\n',
    ]) {
      expect(extractTextCalls(`${before}\n<tool_call>${read}</tool_call>`, workspace).calls, before).toEqual([
        { name: 'read_file', arguments: { path: 'notes/important.md' } },
      ]);
    }
  });

  it('markup followed by a closer that offers more help, a look back or a statement still runs', () => {
    for (const after of ['Let me know if you need further assistance!', 'Is there anything else I can help with?', 'Did I get it right?', 'This removes it.']) {
      expect(extractTextCalls(`<tool_call>${del}</tool_call>\n${after}`, workspace), after).toEqual({
        calls: [{ name: 'delete_file', arguments: { path: 'notes/important.md' } }],
        visibleText: after,
      });
    }
    // An ask far past the call (beyond the look-ahead) is about something else.
    const far = `<tool_call>${del}</tool_call>\n${'It is gone now. '.repeat(50)}Shall I also empty the trash?`;
    expect(extractTextCalls(far, workspace).calls).toHaveLength(1);
  });

  it('an answer that is nothing but the call runs, whatever the tool', () => {
    expect(extractTextCalls(`\n${del}\n`, workspace)).toEqual({ calls: [{ name: 'delete_file', arguments: { path: 'notes/important.md' } }], visibleText: '' });
    expect(extractTextCalls(`\`\`\`json\n${del}\n\`\`\``, workspace).calls).toHaveLength(1);
    expect(extractTextCalls('delete_file\n{"path": "a.md"}', workspace).calls).toHaveLength(1);
  });

  it('a lead-in then the call, nothing after: only onto a read-only tool, and only when the lead-in neither asks nor hedges', () => {
    expect(extractTextCalls(`Let me read the file:\n${read}`, workspace)).toEqual({
      calls: [{ name: 'read_file', arguments: { path: 'notes/important.md' } }],
      visibleText: 'Let me read the file:',
    });
    for (const text of [
      `Let me delete the file:\n${del}`,
      `Let me read the file: ${read}\nThen I will summarise it.`,
      `Shall I read it?\n${read}`,
      // An ask the lead-in cues do not name: the same ask detection as before markup.
      `Reply yes and I will read it:\n${read}`,
    ]) {
      expect(extractTextCalls(text, workspace), text).toEqual({ calls: [], visibleText: text });
    }
    // Without annotations the name decides (a gateway's tools): get_weather reads, send_email does not.
    const bare: ToolSpec[] = [
      { name: 'get_weather', parameters: { type: 'object' } },
      { name: 'send_email', parameters: { type: 'object' } },
    ];
    expect(extractTextCalls('Checking now: {"name": "get_weather", "arguments": {"city": "Oslo"}}', bare).calls).toHaveLength(1);
    expect(extractTextCalls('Sending it now: {"name": "send_email", "arguments": {"to": "a@b.c"}}', bare).calls).toEqual([]);
  });
});
