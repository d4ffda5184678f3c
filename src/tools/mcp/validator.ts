// A tool's structuredContent against its outputSchema, with the gate's own JSON Schema checker: the
// gate's rule for a call's arguments, applied to what comes back (docs/tools.md § MCP tools, Results).
// source.ts checks every result of a tool that declares one; the MCP client is handed the same checker
// (its `jsonSchemaValidator` interface) so that it never builds its default one (ajv, which compiles
// with `new Function`, refused by workerd). An output schema past the gate's schema limits
// (packages/gate/src/schema/schema-compile.ts) is not walked: the result is refused with the reason, as
// the tool would be were its input schema the one past them.
import { checkSchema, type JSONSchema } from 'rebound-gate';
import { validate } from 'rebound-gate/internal';

const MAX_LISTED_PROBLEMS = 5;

/** Why `value` does not fit `schema` (the first few problems), or null when it does. */
export function outputProblems(schema: unknown, value: unknown): string | null {
  const readable = checkSchema(schema);
  if (!readable.ok) return `the output schema cannot be checked: it ${readable.reason}`;
  const problems = validate(value, schema as JSONSchema, { strictTopLevel: false });
  if (problems.length === 0) return null;
  // The first few problems: a result of a million wrong items needs no million-line error.
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS).map((p) => `${p.path}: ${p.message}`);
  if (problems.length > MAX_LISTED_PROBLEMS) listed.push(`and ${problems.length - MAX_LISTED_PROBLEMS} more`);
  return listed.join('; ');
}

type Result<T> = { valid: true; data: T; errorMessage: undefined } | { valid: false; data: undefined; errorMessage: string };

export const gateSchemaValidator = {
  getValidator<T>(schema: unknown): (input: unknown) => Result<T> {
    return (input) => {
      const problem = outputProblems(schema, input);
      return problem === null ? { valid: true, data: input as T, errorMessage: undefined } : { valid: false, data: undefined, errorMessage: problem };
    };
  },
};
