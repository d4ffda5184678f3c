// The MCP client validates a tool's structuredContent against its outputSchema. Its default validator
// (ajv) compiles schemas with `new Function`, which workerd forbids, and is large; the gate's own JSON
// Schema checker does the job on every runtime (the SDK's `jsonSchemaValidator` interface). An output
// schema past the gate's schema limits (packages/gate/src/schema/schema-compile.ts) is not walked: the result is
// refused with the reason, as the server's tool would be were its input schema the one past them.
import { checkSchema, type JSONSchema } from 'rebound-gate';
import { validate } from 'rebound-gate/internal';

const MAX_LISTED_PROBLEMS = 5;

type Result<T> = { valid: true; data: T; errorMessage: undefined } | { valid: false; data: undefined; errorMessage: string };

export const gateSchemaValidator = {
  getValidator<T>(schema: unknown): (input: unknown) => Result<T> {
    return (input) => {
      const readable = checkSchema(schema);
      if (!readable.ok) return { valid: false, data: undefined, errorMessage: `the output schema cannot be checked: it ${readable.reason}` };
      const problems = validate(input, schema as JSONSchema, { strictTopLevel: false });
      if (problems.length === 0) return { valid: true, data: input as T, errorMessage: undefined };
      // The first few problems: a result of a million wrong items needs no million-line error.
      const listed = problems.slice(0, MAX_LISTED_PROBLEMS).map((p) => `${p.path}: ${p.message}`);
      if (problems.length > MAX_LISTED_PROBLEMS) listed.push(`and ${problems.length - MAX_LISTED_PROBLEMS} more`);
      return { valid: false, data: undefined, errorMessage: listed.join('; ') };
    };
  },
};
