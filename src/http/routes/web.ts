// The pages, their assets and the dashboard API, mounted by createApp with app.route('/', …). The
// pages themselves (HTML, CSS, JS, the dashboard's SVG) are built in src/web/; this is their HTTP side.
import { Hono, type Context } from 'hono';
import type { DashboardData } from '../../dashboard/types.ts';
import type { AppDeps } from '../deps.ts';
import { ApiError } from '../errors.ts';
import { authenticate, type AuthEnv } from '../auth/middleware.ts';
import type { Asset } from '../../web/assets.ts';
import { parseDashboardQuery } from '../../web/dashboard-query.ts';

// Scripts and styles come only from this origin; the stream token travels in a URL, so no referrer.
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

function serve(c: Context, asset: Asset, cacheControl: string): Response {
  const etag = `"${asset.hash}"`;
  const headers = { ...PAGE_HEADERS, 'Content-Type': asset.type, 'Cache-Control': cacheControl, ETag: etag };
  if (c.req.header('If-None-Match') === etag) return new Response(null, { status: 304, headers });
  return new Response(c.req.method === 'HEAD' ? null : asset.body, { status: 200, headers });
}

// The pages' bodies (the chat script with its Markdown renderer, the highlighter's grammars, the styles:
// about 30 KB gzip) load on the first page request, not when the app starts: on Workers they are a
// module of their own that an API-only isolate never evaluates (scripts/build-worker.ts splits it out).
let pageAssets: Promise<typeof import('../../web/assets.ts')> | undefined;
const loadAssets = () => (pageAssets ??= import('../../web/assets.ts'));
// The dashboard's server-side SVG (the view and its charts) likewise, on the first /v1/dashboard/view.
let dashboardView: Promise<typeof import('../../web/dashboard-view.ts')> | undefined;
const loadDashboardView = () => (dashboardView ??= import('../../web/dashboard-view.ts'));

/** "/rebound/dashboard" → "/rebound": the path this app is mounted under, from a page's own path. */
export function mountPrefix(path: string): string {
  return path.replace(/\/(?:dashboard)?\/?$/, '');
}

export function webRoutes(deps: AppDeps) {
  const app = new Hono<AuthEnv>();

  // Pages revalidate every time (cheap with the ETag) so a deploy shows up at once.
  app.get('/', async (c) => serve(c, (await loadAssets()).page('chat', mountPrefix(c.req.path)), 'no-cache'));
  app.get('/dashboard', async (c) => serve(c, (await loadAssets()).page('dashboard', mountPrefix(c.req.path)), 'no-cache'));

  app.get('/assets/:file', async (c) => {
    const { assets, parseAssetFile } = await loadAssets();
    const { name, hash } = parseAssetFile(c.req.param('file'));
    const asset = assets.get(name);
    if (!asset) throw new ApiError(404, 'not_found', `No asset ${name}: asset URLs change with each deploy, so reload the page.`);
    return serve(c, asset, hash === asset.hash ? 'public, max-age=31536000, immutable' : 'no-cache');
  });

  async function dashboardRequest(c: Context<AuthEnv>, respond: (data: DashboardData) => Response) {
    if (!deps.dashboard)
      throw new ApiError(
        501,
        'not_implemented',
        "No dashboard source is configured on this server: the dashboard reads the activity in the project's Postgres, so set SUPABASE_URL, SUPABASE_SECRET_KEY and SUPABASE_PUBLISHABLE_KEY (for `wrangler dev`, in .dev.vars; docs/deploy.md § Environment variables). `npm start` needs none: it reads its embedded database.",
      );
    const { userId } = c.get('principal');
    const parsed = parseDashboardQuery(c.req.query());
    if (!parsed.ok) throw new ApiError(400, 'invalid_request', parsed.message);
    // A Supabase source queries with the caller's own JWT so row-level security applies too.
    const accessToken = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('Authorization') ?? '')?.[1];
    const data = await deps.dashboard.load(parsed.range, userId, accessToken);
    const res = respond(data);
    // Per-user data: never cached by shared caches.
    res.headers.set('Cache-Control', 'private, no-store');
    return res;
  }

  const authenticated = authenticate(deps.auth);
  app.get('/v1/dashboard', authenticated, (c) => dashboardRequest(c, (data) => c.json(data)));
  // The same data drawn as server-side SVG, for the dashboard page.
  app.get('/v1/dashboard/view', authenticated, async (c) => {
    const { renderDashboard } = await loadDashboardView();
    return dashboardRequest(c, (data) => c.html(renderDashboard(data)));
  });

  return app;
}
