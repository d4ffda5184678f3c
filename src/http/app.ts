// The one Hono app every runtime serves: createApp(deps) with the platform's pieces handed in.
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import type { AppDeps } from './deps.ts';
import { ApiError, errorResponse, onApiError } from './errors.ts';
import { cut, quote } from '../quote.ts';
import { TurnTokens } from './turn-token.ts';
import { randomSecret } from './random-secret.ts';
import { LiveTurns } from '../turns/live-turns.ts';
import { TurnService } from '../turns/service.ts';
import { turnRoutes } from './routes/turns.ts';
import { uiChatRoutes } from './routes/ui-chat.ts';
import { ApprovalSigner } from './ui-stream/approval-signature.ts';
import { sessionRoutes } from './routes/sessions.ts';
import { gatewayRoutes } from './routes/gateway.ts';
import { webRoutes } from './routes/web.ts';
import { toolRoutes } from './routes/tools.ts';
import { localGuard } from './middleware/local-guard.ts';
import { createTracing } from '../telemetry/index.ts';
import { checkSchema } from 'rebound-gate';
import type { Tool } from '../tools/types.ts';
import { approvalNames } from '../tools/approval.ts';

/** The routes that create or read sessions and turns: refused without storage on a deployment (AppDeps.storageMissing). */
const STORAGE_ROUTES = ['/v1/chat', '/v1/turns', '/v1/turns/*', '/v1/sessions/*', '/v1/ui/chat', '/v1/ui/chat/*', '/v1/dashboard', '/v1/dashboard/*'];

export function createApp(given: AppDeps): Hono {
  // One tracer provider per app (the SDK loads on its first span); none when tracing is off.
  const deps: AppDeps = given.tracing || !given.config.tracing ? given : { ...given, tracing: createTracing(given.config.tracing) };
  refuseUnreadableTools(deps.tools);
  const app = new Hono();
  // A per-process secret is fine for one local server, not for several isolates (set TURN_TOKEN_SECRET there).
  const secret = deps.config.turnTokenSecret ?? randomSecret();
  const tokens = new TurnTokens(secret, deps.config.turnTokenTtlS);
  const signer = new ApprovalSigner(secret, deps.config.approval.timeoutMs);
  const turns = turnService(deps);
  // A Durable Object's alarm expires waiting calls there: it calls this service's approval desk.
  if (deps.approvalExpiry?.kind === 'alarm') deps.approvalExpiry.service(turns);

  // Local mode (no Supabase auth): its credential is the local token (auth/local-token.ts), and besides
  // it only loopback names (against DNS rebinding) and only POSTs from our own pages or CORS_ORIGINS
  // (against CSRF), as when the network position was the only credential. With Supabase auth both are
  // moot: deployments have their own hostnames, and a bearer token is never attached by the browser.
  if (deps.auth.local) {
    app.use('*', localGuard({ allowedHosts: deps.config.allowedHosts, allowedOrigins: deps.config.corsOrigins }));
  }
  if (deps.config.corsOrigins.length > 0) {
    const corsHeaders = cors({
      origin: deps.config.corsOrigins,
      allowMethods: ['GET', 'POST', 'OPTIONS'],
      allowHeaders: ['Content-Type', 'Authorization', 'Last-Event-ID', 'X-Rebound-Authorization', 'traceparent', 'tracestate'],
      exposeHeaders: ['X-Rebound-Verdict', 'X-Rebound-Attempts'],
      maxAge: 600,
    });
    app.use('/v1/*', async (c, next) => {
      // Hono's cors adds `Vary: Origin` once the route has answered; a stream on Node has sent its head
      // by then (src/entries/node-sse.ts), so it is set before the route too, and written once.
      const preflight = await corsHeaders(c, async () => {
        c.res.headers.set('Vary', 'Origin');
        await next();
      });
      if (preflight) return preflight;
      if (c.res.headers.get('Vary') === 'Origin, Origin') c.header('Vary', 'Origin');
    });
  }

  app.get('/health', (c) => c.json({ ok: true, model: deps.model.model, demo: deps.model.demo, storage: deps.storageKind ?? 'memory' }));
  const { storageMissing } = deps;
  if (storageMissing) {
    // Before auth: the deployment's mistake, whoever asks. `/v1/chat` is exact, so the gateway's /v1/chat/completions is not caught.
    const refuse = () => {
      throw new ApiError(503, 'storage_not_configured', storageMissing);
    };
    for (const path of STORAGE_ROUTES) app.use(path, refuse);
  }
  app.route('/', turnRoutes(deps, { tokens, turns, signer }));
  app.route('/', uiChatRoutes(deps, { tokens, turns, signer }));
  app.route('/', sessionRoutes(deps));
  app.route('/', gatewayRoutes(deps));
  app.route('/', toolRoutes(deps));
  app.route('/', webRoutes(deps));

  app.notFound((c) => errorResponse(c, new ApiError(404, 'not_found', `No route ${c.req.method} ${cut(c.req.path, 200)}. See docs/http-api.md for the API.`)));
  app.onError(onApiError);
  return app;
}

/** The turns' lifecycle over the app's storage and agent, started where the entry placed them (a fresh process placement if it named none). */
function turnService(deps: AppDeps): TurnService {
  const { config } = deps;
  return new TurnService({
    storage: deps.storage,
    agent: {
      storage: deps.storage,
      model: deps.model,
      tools: deps.tools,
      toolSource: deps.toolSource,
      activity: deps.activity,
      systemPrompt: deps.systemPrompt,
      approval: { names: approvalNames(config.approval.tools), timeoutMs: config.approval.timeoutMs },
    },
    limits: {
      maxIterations: config.maxIterations,
      noProgressIterations: config.noProgressIterations,
      timeBudgetMs: config.timeBudgetMs,
      toolTimeoutMs: config.toolTimeoutMs,
      modelRetries: config.modelRetries,
    },
    // Turns outlive the requests that started them; absent a placement, they run in this app's process.
    placement: deps.placement ?? new LiveTurns(),
    onDisconnect: config.onDisconnect,
    maxReaders: config.maxReadersPerTurn,
    alone: deps.singleInstance,
    tracing: deps.tracing,
    // One process owns its storage (`npm start`): waits expire by its timer, and at start-up.
    approvalClock: deps.singleInstance ? { kind: 'timer' } : deps.approvalExpiry,
  });
}

/**
 * The app's own tools (functions/) are the deployer's code: one whose schema the gate cannot read
 * (past the schema limits of docs/configuration.md § Limits) stops the server from starting, naming the tool, rather than
 * being served ungated or dropped unseen.
 */
function refuseUnreadableTools(tools: readonly Tool[]): void {
  for (const tool of tools) {
    const readable = checkSchema(tool.parameters);
    if (!readable.ok) {
      throw new Error(
        `rebound: the tool ${quote(tool.name)} (functions/) cannot be served: its parameters schema ${readable.reason}. Simplify its schema (docs/configuration.md § Limits).`,
      );
    }
  }
}
