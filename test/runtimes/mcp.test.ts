// MCP tools under Node, workerd (`wrangler dev`) and Deno: the official SDK client inside each runtime,
// a real @modelcontextprotocol/server-everything per runtime (streamableHttp, on loopback, behind a
// recording proxy so that what reached it is observed), and one scripted model. Each runtime must
// repair everything__get_sum and get 5 from the server, block everything__add with get-sum suggested,
// block everything__echo without message without calling the server, and list its tools on GET /v1/tools.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { startEverything, type RunningMcp } from '../support/mcp-servers.ts';
import { lastToolResult, startScriptedOpenAI, type ChatRequest, type Reply, type ScriptedServer } from '../support/scripted-openai.ts';
import { everythingStep } from '../mcp/everything-script.ts';
import { starters, type RuntimeName, type RuntimeServer } from './servers.ts';
import { readSse } from './sse-client.ts';

const RUNTIMES: RuntimeName[] = ['node', 'workerd', 'deno'];
const JWT_SECRET = 'runtime-mcp-suite-jwt-secret-at-least-32-characters';
const ISSUER = 'http://127.0.0.1:54321/auth/v1';

/** The turn's own message (the loop's nudges come after it). */
const asked = (req: ChatRequest, message: string) => req.messages.some((m) => m.role === 'user' && m.content === message);
const iteration = (req: ChatRequest) => req.messages.filter((m) => m.role === 'assistant' && m.tool_calls?.length).length;

/** Stateless, keyed on the conversation, so that the three runtimes share it. */
const script = (req: ChatRequest): Reply => everythingStep(iteration(req));

let model: ScriptedServer;
let jwt: string;
const servers = new Map<RuntimeName, RuntimeServer>();
const mcp = new Map<RuntimeName, RunningMcp>();

beforeAll(async () => {
  model = await startScriptedOpenAI(script);
  jwt = await new SignJWT({ role: 'authenticated' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject('5d1e9d44-0000-4000-8000-000000000012')
    .setAudience('authenticated')
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(JWT_SECRET));
  for (const name of RUNTIMES) mcp.set(name, await startEverything());
  const started = await Promise.allSettled(
    RUNTIMES.map((name) =>
      starters[name]({
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: 'sk-scripted',
        MODEL: 'scripted-model',
        MODEL_RETRIES: '0',
        TOOL_TIMEOUT_MS: '10000',
        TURN_TOKEN_SECRET: 'runtime-mcp-suite-turn-token-secret',
        SUPABASE_JWT_SECRET: JWT_SECRET,
        SUPABASE_JWT_ISSUER: ISSUER,
        STORAGE: 'memory', // auth on, no Supabase: the edges refuse the turn routes unless memory is asked for
        MCP_SERVERS: JSON.stringify([{ name: 'everything', url: mcp.get(name)!.url, headers: { 'x-runtime': name } }]),
      }),
    ),
  );
  const failures: string[] = [];
  started.forEach((r, i) => {
    if (r.status === 'fulfilled') servers.set(RUNTIMES[i]!, r.value);
    else failures.push(`${RUNTIMES[i]}: ${(r.reason as Error).message}`);
  });
  if (failures.length) throw new Error(`runtime(s) failed to start:\n${failures.join('\n\n')}`);
}, 240_000);

afterAll(async () => {
  await Promise.all([...servers.values()].map((s) => s.stop()));
  await Promise.all([...mcp.values()].map((s) => s.stop()));
  await model?.close();
});

const auth = () => ({ authorization: `Bearer ${jwt}`, 'content-type': 'application/json' });

describe.concurrent.each(RUNTIMES)('%s', (name) => {
  it('calls server-everything through the gate: repaired, blocked with a suggestion, blocked before the server', async () => {
    const { baseUrl, log } = servers.get(name)!;
    const server = mcp.get(name)!;
    const message = `add 2 and 3 (${name})`;
    const t = await readSse(`${baseUrl}/v1/chat`, { method: 'POST', headers: auth(), body: JSON.stringify({ message }) }, { timeoutMs: 60_000 });
    const results = t.events.filter((e) => e.event === 'tool_result').map((e) => e.data as Record<string, any>);
    expect(results.length, log()).toBe(3);
    const [sum, add, echo] = results;
    expect(sum).toMatchObject({ name: 'everything__get-sum', verdict: 'repaired', ok: true, result: 'The sum of 2 and 3 is 5.' });
    expect(add).toMatchObject({ name: 'everything__add', verdict: 'blocked', category: 'phantom_tool' });
    expect(add!.suggestions).toContain('everything__get-sum');
    expect(echo).toMatchObject({ name: 'everything__echo', verdict: 'blocked', category: 'missing_required' });
    expect(t.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed', iterations: 4 } });
    // The answer reached the model; the server saw one call only, get-sum with the repaired numbers.
    const second = model.requests.find((r) => asked(r, message) && iteration(r) === 1)!;
    expect(JSON.stringify(lastToolResult(second))).toContain('The sum of 2 and 3 is 5.');
    expect(server.toolCalls()).toEqual([{ method: 'tools/call', tool: 'get-sum', arguments: { a: 2, b: 3 } }]);
  });

  it('GET /v1/tools (authenticated) lists the MCP tools and where they come from', async () => {
    const { baseUrl } = servers.get(name)!;
    expect((await fetch(`${baseUrl}/v1/tools`)).status).toBe(401);
    const res = await fetch(`${baseUrl}/v1/tools`, { headers: auth() });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { tools: Array<Record<string, unknown>>; servers: Array<Record<string, unknown>> };
    expect(body.tools.find((t) => t.name === 'everything__get-sum')).toMatchObject({
      source: 'mcp',
      server: 'everything',
      serverTool: 'get-sum',
      annotations: { readOnlyHint: true, destructiveHint: false },
      destructive: false,
    });
    expect(body.tools.find((t) => t.name === 'delete_file')).toMatchObject({ source: 'functions', destructive: true });
    expect(body.tools.find((t) => t.name === 'write_file')).toMatchObject({ source: 'functions' });
    expect(body.servers).toEqual([expect.objectContaining({ server: 'everything', ok: true })]);
  });
});
