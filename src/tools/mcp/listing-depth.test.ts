// A tools/list answer cut to the depth the gate reads, before the MCP client walks it (listing-depth.ts):
// deeper than JSON.stringify or any recursive walk can go, the cut schema is refused by checkSchema with
// the reason the whole one had, and a schema within the limits, or any other message, is left as it came.
import { describe, expect, it } from 'vitest';
import { checkSchema, MAX_SCHEMA_DEPTH } from 'rebound-gate';
import { boundListedTools, MAX_LISTED_TOOL_DEPTH } from './listing-depth.ts';
import { depthOf } from '../../../test/support/json-depth.ts';

/** `levels` of `{"anyOf":[{"type":"null"}, …]}` around an integer, as JSON text (JSON.stringify cannot write 50,000 levels). */
const nestedText = (levels: number) => `${'{"anyOf":[{"type":"null"},'.repeat(levels)}{"type":"integer"}${']}'.repeat(levels)}`;

/** A tools/list answer as the transport hands it on: parsed JSON-RPC. */
const listing = (inputSchemas: string[]) =>
  JSON.parse(`{"jsonrpc":"2.0","id":3,"result":{"tools":[${inputSchemas.map((s, i) => `{"name":"t${i}","inputSchema":${s}}`).join(',')}]}}`) as {
    result: { tools: Array<{ name: string; inputSchema: Record<string, unknown> }> };
  };

/** A schema whose deepest object is at level `levels`: `{"not": {"not": … {"type": "string"}}}`. */
function nestedNot(levels: number): Record<string, unknown> {
  let s: Record<string, unknown> = { type: 'string' };
  for (let level = 1; level < levels; level++) s = { not: s };
  return s;
}

describe('boundListedTools', () => {
  it('cuts a schema nested 50,000 levels to one level past the gate’s limit; checkSchema refuses it with the same reason', () => {
    const schema = `{"type":"object","properties":{"list":{"type":"array","items":${nestedText(50_000)}}}}`;
    const whole = JSON.parse(schema);
    const message = listing([schema, '{"type":"object","properties":{"a":{"type":"string"}}}']);
    boundListedTools(message);
    const [deep, fine] = message.result.tools;
    expect(depthOf(deep!.inputSchema)).toBe(MAX_SCHEMA_DEPTH + 1);
    expect(depthOf(deep)).toBe(MAX_LISTED_TOOL_DEPTH);
    const reason = checkSchema(whole);
    expect(reason).toEqual({ ok: false, reason: expect.stringContaining(`nests deeper than ${MAX_SCHEMA_DEPTH} levels`) });
    expect(checkSchema(deep!.inputSchema)).toEqual(reason);
    // Now something a recursive walk (the SDK's zod schemas, JSON.stringify) can read.
    expect(JSON.stringify(deep).length).toBeLessThan(3_000);
    expect(fine).toEqual({ name: 't1', inputSchema: { type: 'object', properties: { a: { type: 'string' } } } });
  });

  it('leaves a schema as deep as the gate reads (and every other part of the tool) exactly as it came', () => {
    const atLimit = nestedNot(MAX_SCHEMA_DEPTH);
    expect(depthOf(atLimit)).toBe(MAX_SCHEMA_DEPTH);
    expect(checkSchema(atLimit)).toEqual({ ok: true });
    const tool = { name: 'ok', inputSchema: atLimit, outputSchema: atLimit, annotations: { readOnlyHint: true }, _meta: { a: [1, { b: 2 }] } };
    const message = { jsonrpc: '2.0', id: 1, result: { tools: [structuredClone(tool)] } };
    boundListedTools(message);
    expect(message.result.tools[0]).toEqual(tool);
  });

  it('cuts one past the limit, in the outputSchema and _meta too', () => {
    const past = nestedNot(MAX_SCHEMA_DEPTH + 3);
    const message = {
      result: { tools: [{ name: 'o', inputSchema: { type: 'object' }, outputSchema: past, _meta: { deep: nestedNot(MAX_SCHEMA_DEPTH + 3) } }] },
    };
    boundListedTools(message);
    const tool = message.result.tools[0]!;
    expect(depthOf(tool.outputSchema)).toBe(MAX_SCHEMA_DEPTH + 1);
    expect(checkSchema(tool.outputSchema)).toEqual(checkSchema(nestedNot(MAX_SCHEMA_DEPTH + 3)));
    expect(depthOf(tool)).toBe(MAX_LISTED_TOOL_DEPTH);
  });

  it('a "__proto__" key is cut like any other, and no prototype is set', () => {
    const message = listing([`{"type":"object","__proto__":${nestedText(100)}}`]);
    boundListedTools(message);
    const schema = message.result.tools[0]!.inputSchema;
    expect(Object.getPrototypeOf(schema)).toBe(Object.prototype);
    expect(Object.keys(schema)).toEqual(['type', '__proto__']);
    expect(depthOf(schema)).toBe(MAX_SCHEMA_DEPTH + 1);
  });

  it('any other message is left alone: a call result nests as deep as it likes', () => {
    const result = JSON.parse(`{"jsonrpc":"2.0","id":4,"result":{"content":[],"structuredContent":${nestedText(5_000)}}}`);
    boundListedTools(result);
    expect(depthOf(result.result.structuredContent)).toBe(10_001);
    for (const other of [null, 'text', { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, { result: { tools: 'none' } }]) {
      expect(() => boundListedTools(other)).not.toThrow();
    }
  });
});
