// Stands in for `ajv` and `ajv-formats` in the Worker build (scripts/build-worker.ts): the MCP client is
// always given the gate's validator (validator.ts), so the SDK never constructs ajv, and workerd would
// refuse ajv's code generation anyway. Dropping it keeps ~125 KB out of the Worker.
export default function ajvUnavailable(): never {
  throw new Error('ajv is not bundled in the Worker: give the MCP client a jsonSchemaValidator (src/tools/mcp/validator.ts)');
}
