// MCP tools from the configuration: a tool source when MCP_SERVERS names a server, otherwise none.
import type { Config } from '../../config.ts';
import type { ToolSource } from '../source.ts';
import { createMcpToolSource } from './source.ts';

export function mcpToolSource(config: Pick<Config, 'mcp' | 'toolTimeoutMs'>, log?: (line: string) => void): ToolSource | undefined {
  if (config.mcp.servers.length === 0) return undefined;
  return createMcpToolSource({
    servers: config.mcp.servers,
    ttlMs: config.mcp.toolsTtlMs,
    listTimeoutMs: config.mcp.listTimeoutMs,
    timeoutMs: config.toolTimeoutMs,
    log,
  });
}
