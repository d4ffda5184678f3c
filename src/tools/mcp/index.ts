// MCP tools from the configuration: a tool source when MCP_SERVERS names a server, otherwise none. The
// source itself (source.ts: listings, the down-server backoff, the calls and the servers' questions) is
// loaded with import() on its first open, the first turn or GET /v1/tools, and kept for the app's life:
// on Workers it stays out of the startup script (scripts/build-worker.ts), as the MCP client (sdk.ts) does.
import type { Config } from '../../config.ts';
import type { ToolSource } from '../source.ts';

export function mcpToolSource(config: Pick<Config, 'mcp' | 'toolTimeoutMs'>, log?: (line: string) => void): ToolSource | undefined {
  if (config.mcp.servers.length === 0) return undefined;
  let source: Promise<ToolSource> | undefined;
  return {
    async open(options) {
      source ??= import('./source.ts').then(({ createMcpToolSource }) =>
        createMcpToolSource({
          servers: config.mcp.servers,
          ttlMs: config.mcp.toolsTtlMs,
          listTimeoutMs: config.mcp.listTimeoutMs,
          timeoutMs: config.toolTimeoutMs,
          log,
        }),
      );
      return (await source).open(options);
    },
  };
}
