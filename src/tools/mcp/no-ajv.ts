// Stands in for `ajv` and `ajv-formats` in the Worker build (scripts/build-worker.ts). The MCP client's
// workerd build validates with @cfworker/json-schema and never imports ajv, and Rebound gives it the
// gate's validator anyway (validator.ts); ajv compiles with `new Function`, which workerd refuses, so
// nothing may ever bundle it: anything that imports it gets this.
export default function ajvUnavailable(): never {
  throw new Error('ajv is not bundled in the Worker: give the MCP client a jsonSchemaValidator (src/tools/mcp/validator.ts)');
}
