// A hostile MCP server of the hostile suites' own: plain JSON-RPC over Streamable HTTP (JSON answers,
// no session, no SSE), written by hand so that it can do what no SDK server would let it: list tools
// with any JSON as their schemas (nested thousands of levels, or given as text, deeper than JSON.stringify
// writes), never answer tools/list, or answer a call with megabytes. It speaks 2025 revisions, or
// 2026-07-28 (server/discover, resultType) when asked. Each test says what it does through `behaviour`,
// which it may change between turns; every request is counted by method.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HostileTool {
  name: string;
  description?: string;
  inputSchema: unknown;
  /** The input schema as JSON text, in place of `inputSchema`: deeper than JSON.stringify can write. */
  inputSchemaText?: string;
  /** The CallToolResult it answers with (default: one text block "ok"). */
  result?: () => unknown;
}

export interface HostileBehaviour {
  /** 'hang': tools/list is never answered (the socket stays open until the client gives up). */
  list: 'answer' | 'hang';
  tools: HostileTool[];
  /** 'modern': answers server/discover and speaks 2026-07-28 (every result says resultType); default: 2025 only. */
  era?: 'legacy' | 'modern';
}

export interface HostileServer {
  url: string;
  behaviour: HostileBehaviour;
  /** Requests received, by JSON-RPC method. */
  count(method: string): number;
  stop(): Promise<void>;
}

export async function startHostileMcp(behaviour: HostileBehaviour): Promise<HostileServer> {
  const counts = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    readBody(req).then((text) => answer(JSON.parse(text) as Rpc, res));
  });
  const answer = (rpc: Rpc, res: ServerResponse) => {
    counts.set(rpc.method, (counts.get(rpc.method) ?? 0) + 1);
    if (rpc.id === undefined) return void res.writeHead(202).end(); // a notification
    const modern = behaviour.era === 'modern';
    // `texts`: JSON texts written where the result holds the string `\u0000<index>`.
    const reply = (result: object, texts: string[] = []) => {
      const json = JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result: modern ? { resultType: 'complete', ...result } : result });
      const body = texts.length ? json.replace(/"\\u0000(\d+)"/g, (_, i: string) => texts[Number(i)]!) : json;
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    };
    switch (rpc.method) {
      case 'server/discover':
        if (!modern) return reply({}); // as to any method it does not know
        return reply({
          supportedVersions: ['2026-07-28'],
          capabilities: { tools: {} },
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'hostile', version: '1.0.0' } },
        });
      case 'initialize':
        return reply({
          protocolVersion: (rpc.params as { protocolVersion?: string } | undefined)?.protocolVersion ?? '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'hostile', version: '1.0.0' },
        });
      case 'tools/list':
        if (behaviour.list === 'hang') {
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return;
        }
        {
          const texts: string[] = [];
          const tools = behaviour.tools.map(({ name, description, inputSchema, inputSchemaText }) => ({
            name,
            description: description ?? name,
            inputSchema: inputSchemaText === undefined ? inputSchema : `\u0000${texts.push(inputSchemaText) - 1}`,
          }));
          // A 2026-07-28 list says how long it may be kept (required): not at all.
          return reply({ tools, ...(modern ? { ttlMs: 0, cacheScope: 'private' } : {}) }, texts);
        }
      case 'tools/call': {
        const name = (rpc.params as { name?: string } | undefined)?.name;
        const tool = behaviour.tools.find((t) => t.name === name);
        return reply(tool?.result?.() ?? { content: [{ type: 'text', text: 'ok' }] });
      }
      default:
        return reply({});
    }
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    behaviour,
    count: (method) => counts.get(method) ?? 0,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Rpc {
  jsonrpc: '2.0';
  id?: number | string;
  method: string;
  params?: unknown;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
