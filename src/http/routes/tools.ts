// GET /v1/tools: the tools the model will see at the next turn and where each comes from (this app's
// functions/ or an MCP server, under which name there), with each configured server's state, so a
// deployer can check MCP_SERVERS. Authenticated like every /v1 route that reads data.
import { Hono } from 'hono';
import { isDestructive } from 'rebound-gate';
import type { Tool } from '../../tools/types.ts';
import type { AppDeps } from '../deps.ts';
import { authenticate } from '../auth/middleware.ts';

export function toolRoutes(deps: AppDeps) {
  const app = new Hono();
  app.get('/v1/tools', authenticate(deps.auth), async (c) => {
    const set = await deps.toolSource?.open({ signal: c.req.raw.signal });
    try {
      const tools = [...deps.tools, ...(set?.tools ?? [])].map(describe);
      return c.json({ tools, servers: set?.sources ?? [] });
    } finally {
      await set?.close();
    }
  });
  return app;
}

function describe(tool: Tool) {
  const where = tool.origin ? { source: 'mcp', server: tool.origin.server, serverTool: tool.origin.tool } : { source: 'functions' };
  const annotations = tool.annotations ?? {};
  return { name: tool.name, ...where, description: tool.description ?? '', parameters: tool.parameters, annotations, destructive: isDestructive(tool) };
}
