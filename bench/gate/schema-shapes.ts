// The schema families of `bench:gate --adversarial`: tool schemas at the gate's schema limits
// (packages/gate/src/limits.ts), each the largest of its shape that checkSchema still reads, with arguments of
// growing size that make the gate walk every node under every item: values to coerce through every
// anyOf level, values no branch takes, case variants of enum values, leaves at the bottom of deep
// properties and items. The tool is the family's own; the arguments are a list of such items.
import { checkSchema, type JSONSchema, MAX_ENUM_VALUES, type ToolSpec } from 'rebound-gate';

export interface SchemaFamily {
  name: string;
  tool: ToolSpec;
  /** Arguments of about `n` characters. */
  make(n: number): string;
}

const listTool = (name: string, items: JSONSchema): ToolSpec => ({
  name,
  parameters: { type: 'object', properties: { list: { type: 'array', items } }, required: ['list'] },
});

/** The largest `k` for which the list tool of `items(k)` is within the limits. */
function largest(items: (k: number) => JSONSchema): number {
  const fits = (k: number) => checkSchema(listTool('t', items(k)).parameters).ok;
  if (!fits(1)) throw new Error('no schema of this shape is within the limits');
  let k = 1;
  while (fits(k + 1)) k++;
  return k;
}

/** `{"list": [unit(0), unit(1), …]}`, at most `n` characters (one item at least): distinct items, so that no answer about one serves another. */
function list(unit: (i: number) => string, n: number): string {
  const items = [unit(0)];
  let size = 11 + items[0]!.length;
  for (let i = 1; ; i++) {
    const item = unit(i);
    if (size + item.length + 1 > n) break;
    items.push(item);
    size += item.length + 1;
  }
  return `{"list":[${items.join(',')}]}`;
}

function nestedBranches(key: 'anyOf' | 'oneOf', levels: number): JSONSchema {
  let s: JSONSchema = { type: 'integer' };
  for (let i = 0; i < levels; i++) s = { [key]: [{ type: 'null' }, s] };
  return s;
}

function wideBranches(key: 'anyOf' | 'oneOf', width: number): JSONSchema {
  const branches = Array.from({ length: width }, (_, i) => ({
    type: 'object',
    properties: { kind: { const: `k${i}` }, size: { type: 'integer' } },
    required: ['kind', 'size'],
    additionalProperties: false,
  }));
  return { [key]: branches };
}

function deepProperties(levels: number): JSONSchema {
  let s: JSONSchema = { type: 'integer' };
  for (let i = 0; i < levels; i++) s = { type: 'object', properties: { a: s }, required: ['a'] };
  return s;
}

function deepItems(levels: number): JSONSchema {
  let s: JSONSchema = { type: 'integer' };
  for (let i = 0; i < levels; i++) s = { type: 'array', items: s };
  return s;
}

const wrap = (open: string, close: string, levels: number, leaf: string) => open.repeat(levels) + leaf + close.repeat(levels);

export function schemaFamilies(): SchemaFamily[] {
  const deepAny = listTool(
    'deep_any_of',
    nestedBranches(
      'anyOf',
      largest((k) => nestedBranches('anyOf', k)),
    ),
  );
  const deepOne = listTool(
    'deep_one_of',
    nestedBranches(
      'oneOf',
      largest((k) => nestedBranches('oneOf', k)),
    ),
  );
  const width = largest((k) => wideBranches('anyOf', k));
  const wideAny = listTool('wide_any_of', wideBranches('anyOf', width));
  const wideOne = listTool('wide_one_of', wideBranches('oneOf', width));
  const values = Array.from({ length: MAX_ENUM_VALUES }, (_, i) => `value-${i}`);
  const hugeEnum = listTool('huge_enum', { type: 'string', enum: values });
  const propLevels = largest(deepProperties);
  const deepProps = listTool('deep_properties', deepProperties(propLevels));
  const itemLevels = largest(deepItems);
  const deepItemsTool = listTool('deep_items', deepItems(itemLevels));
  const last = width - 1;
  return [
    { name: 'deep anyOf, items to coerce', tool: deepAny, make: (n) => list((i) => `"${i}"`, n) },
    { name: 'deep anyOf, items no branch takes', tool: deepAny, make: (n) => list((i) => `"x${i}"`, n) },
    { name: 'deep oneOf, items to coerce', tool: deepOne, make: (n) => list((i) => `"${i}"`, n) },
    { name: 'wide anyOf, last branch fits', tool: wideAny, make: (n) => list((i) => `{"kind":"k${last}","size":${i}}`, n) },
    { name: 'wide anyOf, no branch fits', tool: wideAny, make: (n) => list((i) => `{"kind":"k${last}","size":"x${i}"}`, n) },
    { name: 'wide oneOf, to coerce', tool: wideOne, make: (n) => list((i) => `{"kind":"k${last}","size":"${i}"}`, n) },
    { name: `enum of ${MAX_ENUM_VALUES} values, case variants`, tool: hugeEnum, make: (n) => list((i) => `"VALUE_${i % MAX_ENUM_VALUES}"`, n) },
    { name: `enum of ${MAX_ENUM_VALUES} values, none fits`, tool: hugeEnum, make: (n) => list((i) => `"valve-${i}"`, n) },
    { name: 'deep properties, leaves to coerce', tool: deepProps, make: (n) => list((i) => wrap('{"a":', '}', propLevels, `"${i}"`), n) },
    { name: 'deep items, leaves to coerce', tool: deepItemsTool, make: (n) => list((i) => wrap('[', ']', itemLevels, `"${i}"`), n) },
  ];
}
