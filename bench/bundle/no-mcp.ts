// Stands in for the MCP SDK client when bench:bundle builds the Worker "without MCP" (--alias), so the
// difference between its two figures is what the MCP client costs the bundle.
export class Client {
  constructor() {
    throw new Error('built without the MCP client (bench/bundle/no-mcp.ts)');
  }
}
export class StreamableHTTPClientTransport extends Client {}
