// MCP servers for the suites, on loopback: the reference server-everything (a real server nobody here
// wrote) in its Streamable HTTP mode, a small one of our own built with the SDK's McpServer for what the
// reference does not do (a poisoned description, a tool list that changes), and a recording proxy that
// shows what reached a server (every JSON-RPC message the client POSTed).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';
import { freePort } from './ports.ts';

const root = join(import.meta.dirname, '..', '..');

export interface Recorded {
  method: string;
  /** params.name of a tools/call. */
  tool?: string;
  arguments?: unknown;
  requestId?: unknown;
  /** A tools/call's trace context, when the client sent one: the HTTP traceparent header and params._meta.traceparent. */
  traceparent?: string;
  metaTraceparent?: string;
  /** A 2026-07-28 request's protocol version (params._meta["io.modelcontextprotocol/protocolVersion"]). */
  protocolVersion?: string;
  /** A tools/call sent again with the answers to the server's input_required. */
  inputResponses?: unknown;
  requestState?: unknown;
}

export interface RunningMcp {
  /** The Streamable HTTP endpoint. */
  url: string;
  /** Every JSON-RPC message POSTed to it, in order (through the recording proxy). */
  received: Recorded[];
  toolCalls(tool?: string): Recorded[];
  log(): string;
  /** kill -9 of the server, and the proxy stops listening: the server is gone, connections are refused. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** server-everything (node_modules/.bin/mcp-server-everything streamableHttp), bound to 127.0.0.1, behind a recording proxy. */
export async function startEverything(): Promise<RunningMcp> {
  const port = await freePort();
  const entry = join(root, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
  const preload = pathToFileURL(join(import.meta.dirname, 'loopback-only.mjs')).href;
  const child = spawn(process.execPath, ['--import', preload, entry, 'streamableHttp'], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const keep = (d: Buffer) => {
    log += d.toString();
    if (log.length > 100_000) log = log.slice(-50_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = Date.now();
  while (!/listening on port/.test(log)) {
    if (child.exitCode !== null) throw new Error(`server-everything exited (${child.exitCode}):\n${log}`);
    if (Date.now() - started > 30_000) {
      child.kill('SIGKILL');
      throw new Error(`server-everything did not start within 30 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const proxy = await startRecordingProxy(port);
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      await exited;
    }
    await proxy.close();
  };
  return {
    url: `${proxy.origin}/mcp`,
    received: proxy.received,
    toolCalls: (tool) => proxy.received.filter((m) => m.method === 'tools/call' && (tool === undefined || m.tool === tool)),
    log: () => log,
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
  };
}

/** Forwards everything to 127.0.0.1:targetPort, streaming responses (SSE included), and records the POSTed messages. */
export async function startRecordingProxy(targetPort: number): Promise<{ origin: string; received: Recorded[]; close(): Promise<void> }> {
  const received: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST') record(body, received, req.headers.traceparent as string | undefined);
      const upstream = request({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, received, close: () => closeServer(server) };
}

function record(body: Buffer, into: Recorded[], traceparent: string | undefined): void {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return;
  }
  for (const m of Array.isArray(json) ? json : [json]) {
    if (!m || typeof m !== 'object' || typeof m.method !== 'string') continue;
    const params = (m.params ?? {}) as Record<string, unknown>;
    into.push({
      method: m.method,
      ...(m.method === 'tools/call' ? { tool: params.name as string, arguments: params.arguments } : {}),
      ...(m.method === 'tools/call' && traceparent ? { traceparent } : {}),
      ...(m.method === 'tools/call' && (params._meta as { traceparent?: string } | undefined)?.traceparent
        ? { metaTraceparent: (params._meta as { traceparent: string }).traceparent }
        : {}),
      ...(m.method === 'notifications/cancelled' ? { requestId: params.requestId } : {}),
      ...(typeof (params._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/protocolVersion'] === 'string'
        ? { protocolVersion: (params._meta as Record<string, string>)['io.modelcontextprotocol/protocolVersion'] }
        : {}),
      ...(params.inputResponses !== undefined ? { inputResponses: params.inputResponses } : {}),
      ...(params.requestState !== undefined ? { requestState: params.requestState } : {}),
    });
  }
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** What our own test server can be made to do. */
export interface TestServerOptions {
  /** The description of its `lookup` tool. */
  lookupDescription?: string;
  /** Offers `huge` too, answering a text of this many characters. */
  hugeResultChars?: number;
}

export interface RunningTestServer extends Omit<RunningMcp, 'log'> {
  /** Requests cancelled by the client (notifications/cancelled reached the tool's handler). */
  cancelled: string[];
}

/**
 * A stateful Streamable HTTP server built with the SDK's McpServer. Tools: `lookup` (its description is
 * whatever the test says), `slow` (waits for its signal, records the cancellation), `fail` (isError),
 * `add-tool` (registers `added` at run time, so the server sends notifications/tools/list_changed), and
 * `huge` (a text of hugeResultChars) when asked for.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<RunningTestServer> {
  const cancelled: string[] = [];
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const build = () => {
    const mcp = new McpServer({ name: 'rebound-test', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    mcp.registerTool('lookup', { description: options.lookupDescription ?? 'Looks a word up.', inputSchema: { word: z.string() } }, async ({ word }) => ({
      content: [{ type: 'text', text: `${word}: a word` }],
    }));
    mcp.registerTool('slow', { description: 'Takes its time.', inputSchema: { label: z.string() } }, async ({ label }, extra) => {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 30_000);
        extra.signal.addEventListener('abort', () => {
          cancelled.push(label);
          clearTimeout(timer);
          resolve();
        });
      });
      return { content: [{ type: 'text', text: 'finally' }] };
    });
    const huge = options.hugeResultChars;
    if (huge !== undefined)
      mcp.registerTool('huge', { description: 'Answers a long text.', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'h'.repeat(huge) }] }));
    mcp.registerTool('fail', { description: 'Always fails.', inputSchema: {} }, async () => ({
      isError: true,
      content: [{ type: 'text', text: 'the ledger is locked' }],
    }));
    mcp.registerTool('add-tool', { description: 'Adds a tool named added.', inputSchema: {} }, async () => {
      if (!added) {
        added = true;
        mcp.registerTool('added', { description: 'A tool that came later.', inputSchema: {} }, async () => ({
          content: [{ type: 'text', text: 'hello from added' }],
        }));
      }
      return { content: [{ type: 'text', text: 'added' }] };
    });
    let added = false;
    return mcp;
  };
  const handle = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? transports.get(id) : undefined;
    if (!transport) {
      if (id !== undefined) return void res.writeHead(404).end();
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void transports.set(sid, transport!),
      });
      transport.onclose = () => transport?.sessionId && transports.delete(transport.sessionId);
      await build().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? JSON.parse(text) : undefined;
      handle(req, res, body).catch(() => (res.headersSent ? res.destroy() : res.writeHead(500).end()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const proxy = await startRecordingProxy(port);
  const stop = async () => {
    await proxy.close();
    await Promise.all([...transports.values()].map((t) => t.close().catch(() => {})));
    await closeServer(server);
  };
  return {
    url: `${proxy.origin}/mcp`,
    received: proxy.received,
    toolCalls: (tool) => proxy.received.filter((m) => m.method === 'tools/call' && (tool === undefined || m.tool === tool)),
    cancelled,
    kill: stop,
    stop,
  };
}
