// Authoring a tool with zod: the schema is converted to JSON Schema once, at definition time, so
// the gate never sees zod. The handler receives the arguments parsed by the same zod schema.
// Every own tool says what it does to its environment (MCP's annotations, packages/gate/src/annotations.ts):
// the gate never guesses a destructive one for a name the model got wrong.
import * as z from 'zod';
import type { NeedsApproval, Tool, ToolContext } from './types.ts';
import type { JSONSchema, ToolAnnotations } from 'rebound-gate';

export interface ToolDefinition<S extends z.ZodObject> {
  name: string;
  description: string;
  schema: S;
  pathParams?: Array<keyof z.infer<S> & string>;
  codeParams?: Array<keyof z.infer<S> & string>;
  /** Required: a tool that writes, patches or deletes says `destructiveHint: true`; one that only reads, `readOnlyHint: true`. */
  annotations: ToolAnnotations;
  /** Beside the annotations: a call waits for a person's yes (`true`, or a function of the parsed arguments). */
  needsApproval?: NeedsApproval;
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
    annotations: def.annotations,
    ...(def.needsApproval !== undefined ? { needsApproval: def.needsApproval } : {}),
    run: (args, ctx) => def.run(def.schema.parse(args), ctx),
  };
}
