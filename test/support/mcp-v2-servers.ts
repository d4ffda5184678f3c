// MCP servers of the current revision (2026-07-28) for the suites: built with the v2 SDK's
// @modelcontextprotocol/server as its docs show (createMcpHandler over a per-request McpServer factory,
// served with @hono/node-server on loopback, behind the recording proxy of mcp-servers.ts). Two
// postures: the SDK's default, which also serves 2025 clients per request (legacy: 'stateless'), and
// one that rejects them (legacy: 'reject': -32022 to initialize). Tools: `get_sum` (an outputSchema
// {sum}), `get_total` (whose result does not match its outputSchema) and `confirm_order`, which asks the person "Order mug?" (elicitation through input_required,
// with a requestState it checks on the way back) and answers "ordered mug" once confirmed.
import { serve } from '@hono/node-server';
import { acceptedContent, createMcpHandler, inputRequired, inputResponse, McpServer } from '@modelcontextprotocol/server';
import type { AddressInfo } from 'node:net';
import * as z from 'zod';
import { closeServer, type RunningMcp, startRecordingProxy } from './mcp-servers.ts';

/** The requestState confirm_order mints and expects back, byte for byte. */
export const ORDER_STATE = 'order:mug:1;sig=6b2f';
export const ORDER_SCHEMA = {
  type: 'object' as const,
  properties: { confirm: { type: 'boolean' as const, title: 'Confirm the order' } },
  required: ['confirm'],
};

export interface RunningV2 extends Omit<RunningMcp, 'log' | 'kill'> {
  /** What confirm_order saw on each entry: the requestState it was given (undefined: the first round). */
  orderRounds: Array<{ requestState: string | undefined; action?: string }>;
}

export interface V2Options {
  legacy?: 'stateless' | 'reject';
  name?: string;
  /** The requestState confirm_order mints and expects back (default ORDER_STATE), and the key it asks under (default "confirm"). */
  orderState?: string;
  orderKey?: string;
}

export async function startV2Server(options: V2Options = {}): Promise<RunningV2> {
  const orderRounds: RunningV2['orderRounds'] = [];
  const state = options.orderState ?? ORDER_STATE;
  const key = options.orderKey ?? 'confirm';
  const build = () => {
    const mcp = new McpServer({ name: options.name ?? 'shop', version: '2.0.0' });
    mcp.registerTool(
      'get_sum',
      {
        description: 'Returns the sum of two numbers',
        inputSchema: z.object({ a: z.number(), b: z.number() }),
        outputSchema: z.object({ sum: z.number() }),
        annotations: { readOnlyHint: true },
      },
      async ({ a, b }) => ({ content: [{ type: 'text', text: `The sum of ${a} and ${b} is ${a + b}.` }], structuredContent: { sum: a + b } }),
    );
    // A server whose own check is lax (a Standard Schema that accepts anything but advertises {total: number})
    // and whose tool answers {total: "5"}: what Rebound's check of structuredContent is for.
    const laxTotal = {
      '~standard': {
        version: 1 as const,
        vendor: 'rebound-test',
        validate: (value: unknown) => ({ value: value as { total: number } }),
        jsonSchema: {
          input: () => ({ type: 'object', properties: { total: { type: 'number' } }, required: ['total'] }),
          output: () => ({ type: 'object', properties: { total: { type: 'number' } }, required: ['total'] }),
        },
      },
    };
    mcp.registerTool(
      'get_total',
      { description: 'Returns the total of the basket', inputSchema: z.object({}), outputSchema: laxTotal, annotations: { readOnlyHint: true } },
      async () => ({ content: [{ type: 'text', text: 'The total is 5.' }], structuredContent: { total: '5' } as unknown as { total: number } }),
    );
    mcp.registerTool(
      'confirm_order',
      { description: 'Orders an item after the person confirms', inputSchema: z.object({ item: z.string() }), annotations: { readOnlyHint: true } },
      async ({ item }, ctx) => {
        const given = ctx.mcpReq.requestState<string>();
        const view = inputResponse(ctx.mcpReq.inputResponses, key);
        orderRounds.push({ requestState: given, ...(view.kind === 'elicit' ? { action: view.action } : {}) });
        if (view.kind === 'elicit' && view.action !== 'accept') {
          return { content: [{ type: 'text', text: `The order was not placed: the person chose ${view.action}.` }], isError: true };
        }
        const confirmed = acceptedContent(ctx.mcpReq.inputResponses, key, z.object({ confirm: z.boolean() }));
        if (confirmed?.confirm !== true || given !== state) {
          return inputRequired({
            inputRequests: { [key]: inputRequired.elicit({ message: `Order ${item}?`, requestedSchema: ORDER_SCHEMA }) },
            requestState: state,
          });
        }
        return { content: [{ type: 'text', text: `ordered ${item}` }] };
      },
    );
    return mcp;
  };
  const handler = createMcpHandler(build, { legacy: options.legacy ?? 'stateless' });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: (req) => handler.fetch(req), port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  const proxy = await startRecordingProxy(port);
  const stop = async () => {
    await proxy.close();
    await closeServer(server as unknown as import('node:http').Server);
  };
  return {
    url: `${proxy.origin}/mcp`,
    received: proxy.received,
    toolCalls: (tool) => proxy.received.filter((m) => m.method === 'tools/call' && (tool === undefined || m.tool === tool)),
    orderRounds,
    stop,
  };
}
