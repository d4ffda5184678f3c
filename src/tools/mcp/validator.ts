// The MCP client validates a tool's structuredContent against its outputSchema. Its default validator
// (ajv) compiles schemas with `new Function`, which workerd forbids, and is large; the gate's own JSON
// Schema checker does the job on every runtime (the SDK's `jsonSchemaValidator` interface).
import { validate } from '../../gate/schema.ts';
import type { JSONSchema } from '../../gate/types.ts';

type Result<T> = { valid: true; data: T; errorMessage: undefined } | { valid: false; data: undefined; errorMessage: string };

export const gateSchemaValidator = {
  getValidator<T>(schema: unknown): (input: unknown) => Result<T> {
    return (input) => {
      const problems = validate(input, schema as JSONSchema, { strictTopLevel: false });
      if (problems.length === 0) return { valid: true, data: input as T, errorMessage: undefined };
      return { valid: false, data: undefined, errorMessage: problems.map((p) => `${p.path}: ${p.message}`).join('; ') };
    };
  },
};
