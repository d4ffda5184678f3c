// Authoring a tool with zod: the schema is converted to JSON Schema once, at definition time, so
// the gate never sees zod. The handler receives the arguments parsed by the same zod schema.
import * as z from 'zod';
import type { Tool, ToolContext } from './types.ts';
import type { JSONSchema } from '../gate/types.ts';

export interface ToolDefinition<S extends z.ZodObject> {
  name: string;
  description: string;
  schema: S;
  pathParams?: Array<keyof z.infer<S> & string>;
  codeParams?: Array<keyof z.infer<S> & string>;
  run(args: z.infer<S>, ctx: ToolContext): Promise<unknown>;
}

export function defineTool<S extends z.ZodObject>(def: ToolDefinition<S>): Tool {
  const parameters = z.toJSONSchema(def.schema, { io: 'input', unrepresentable: 'any' }) as JSONSchema;
  delete parameters.$schema;
  return {
    name: def.name,
    description: def.description,
    parameters,
    pathParams: def.pathParams,
    codeParams: def.codeParams,
    run: (args, ctx) => def.run(def.schema.parse(args), ctx),
  };
}
