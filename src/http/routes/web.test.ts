import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { fakeDashboard } from '../../../test/e2e/fake-dashboard.ts';
import { AuthError } from '../../auth-error.ts';
import { noAuth, type AppDeps, type Authenticator } from '../deps.ts';
import { onApiError } from '../errors.ts';
import { assets, page } from '../../web/assets.ts';
import { mountPrefix, webRoutes as routes } from './web.ts';

// Only the parts webRoutes reads; the rest of AppDeps belongs to the turn routes.
function deps(extra: Partial<AppDeps>): AppDeps {
  return { auth: noAuth, ...extra } as AppDeps;
}

/** The routes with the error handler createApp gives them: errors are thrown and become responses there. */
function webRoutes(d: AppDeps): Hono {
  return new Hono().route('/', routes(d)).onError(onApiError);
}

describe('pages and assets', () => {
  const app = webRoutes(deps({}));

  it('serves the chat page with hashed asset URLs and a strict CSP', async () => {
    const res = await app.request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await res.text();
    expect(html).toContain(assets.get('chat.js')!.url);
    expect(html).toContain(assets.get('styles.css')!.url);
    expect(html).not.toMatch(/https?:\/\//); // no CDN
  });

  it('serves the dashboard page', async () => {
    const res = await app.request('/dashboard');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(assets.get('dashboard.js')!.url);
  });

  it('caches hashed assets forever and answers 304 to a matching ETag', async () => {
    const js = assets.get('chat.js')!;
    const res = await app.request(`/${js.url}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await res.text()).toBe(js.body);
    const again = await app.request(`/${js.url}`, { headers: { 'If-None-Match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
    const css = await app.request(`/${assets.get('styles.css')!.url}`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('serves an outdated hash uncached and 404s unknown assets', async () => {
    const res = await app.request('/assets/chat.000000.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect((await app.request('/assets/nope.js')).status).toBe(404);
  });

  it('page ETags change with content', () => {
    expect(page('chat', '').hash).not.toBe(page('dashboard', '').hash);
    expect(page('chat', '').hash).not.toBe(page('chat', '/rebound').hash);
  });

  it('makes every URL relative to where the app is mounted', async () => {
    expect(mountPrefix('/')).toBe('');
    expect(mountPrefix('/dashboard')).toBe('');
    expect(mountPrefix('/rebound/')).toBe('/rebound');
    expect(mountPrefix('/rebound/dashboard')).toBe('/rebound');
    const mounted = new Hono().route('/rebound', webRoutes(deps({})));
    const html = await (await mounted.request('/rebound/dashboard')).text();
    expect(html).toContain('<base href="/rebound/">');
    expect((await mounted.request(`/rebound/${assets.get('dashboard.js')!.url}`)).status).toBe(200);
  });
});

describe('GET /v1/dashboard', () => {
  it('is 501 without a dashboard source, naming the settings that give it one (wrangler dev has none)', async () => {
    const res = await webRoutes(deps({})).request('/v1/dashboard');
    expect(res.status).toBe(501);
    const { message } = ((await res.json()) as { error: { message: string } }).error;
    expect(message).toMatch(/dashboard source/);
    for (const name of ['SUPABASE_URL', 'SUPABASE_SECRET_KEY', 'SUPABASE_PUBLISHABLE_KEY', '.dev.vars']) expect(message).toContain(name);
  });

  it('loads the range for the authenticated user', async () => {
    const dashboard = fakeDashboard();
    const auth: Authenticator = { authenticate: async () => ({ userId: 'user-1' }) };
    const app = webRoutes(deps({ dashboard, auth }));
    const res = await app.request('/v1/dashboard?from=2025-03-01T00:00:00Z&to=2025-03-02T00:00:00Z&bucket=hour');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const body = (await res.json()) as { totals: { calls: number } };
    expect(body.totals.calls).toBe(40);
    expect(dashboard.calls).toEqual([{ range: { from: '2025-03-01T00:00:00.000Z', to: '2025-03-02T00:00:00.000Z', bucket: 'hour' }, userId: 'user-1' }]);
  });

  it('defaults to the last 24 hours by the hour', async () => {
    const dashboard = fakeDashboard();
    await webRoutes(deps({ dashboard })).request('/v1/dashboard');
    const range = dashboard.calls[0]!.range;
    expect(Date.parse(range.to) - Date.parse(range.from)).toBe(24 * 3_600_000);
    expect(range.bucket).toBe('hour');
    expect(Math.abs(Date.parse(range.to) - Date.now())).toBeLessThan(5_000);
  });

  it('picks daily buckets for long ranges', async () => {
    const dashboard = fakeDashboard();
    await webRoutes(deps({ dashboard })).request('/v1/dashboard?from=2025-01-01T00:00:00Z&to=2025-02-01T00:00:00Z');
    expect(dashboard.calls[0]!.range.bucket).toBe('day');
  });

  const range = /within years 1970–9999 \(1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z\)/;
  it.each([
    ['from=yesterday', /from must be an ISO 8601 timestamp/],
    ['to=2025-13-01', /to must be an ISO 8601 timestamp/],
    ['from=2025-02-30T00:00:00Z', range],
    ['bucket=week', /bucket must be "hour" or "day"/],
    ['from=2025-03-02T00:00:00Z&to=2025-03-01T00:00:00Z', /from must be earlier than to/],
    ['from=2020-01-01T00:00:00Z&to=2025-01-01T00:00:00Z', /longer than 366 days/],
    ['from=2025-01-01T00:00:00Z&to=2025-03-01T00:00:00Z&bucket=hour', /use bucket=day/],
    ['range=7d', /unknown query parameter "range"/],
    ['from=0000-01-01T00:00:00Z&to=0000-01-02T00:00:00Z', range],
    ['from=1969-12-31T00:00:00Z&to=1970-01-01T00:00:00Z', /from must lie within years 1970–9999.*got 1969-12-31T00:00:00\.000Z/],
    ['to=1970-01-01T01:00:00Z', /from must lie within years 1970–9999/],
    ['from=9999-12-31T00:00:00Z&to=9999-12-31T23:00:00-05:00', /to must lie within years 1970–9999.*got \+010000/],
    ['from=2025-03-01T00:00:00+99:00', range],
  ])('rejects %s with a 400 that says what to fix', async (query, message) => {
    for (const path of ['/v1/dashboard', '/v1/dashboard/view']) {
      const dashboard = fakeDashboard();
      const res = await webRoutes(deps({ dashboard })).request(`${path}?${query}`);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { status: number; code: string; message: string } };
      expect(body.error).toMatchObject({ status: 400, code: 'invalid_request' });
      expect(body.error.message).toMatch(message);
      expect(dashboard.calls).toHaveLength(0);
    }
  });

  it.each([['from=1970-01-01T00:00:00Z&to=1970-01-02T00:00:00Z'], ['from=9999-12-30T23:59:59Z&to=9999-12-31T23:59:59Z']])(
    'accepts the edges of the valid range: %s',
    async (query) => {
      const dashboard = fakeDashboard();
      const res = await webRoutes(deps({ dashboard })).request(`/v1/dashboard?${query}`);
      expect(res.status).toBe(200);
      expect(dashboard.calls).toHaveLength(1);
    },
  );

  it('answers the authenticator’s 401', async () => {
    const auth: Authenticator = {
      authenticate: async () => {
        throw new AuthError('missing bearer token');
      },
    };
    const dashboard = fakeDashboard();
    const res = await webRoutes(deps({ dashboard, auth })).request('/v1/dashboard');
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('missing bearer token');
    expect(dashboard.calls).toHaveLength(0);
  });

  it('renders the same data as escaped SVG for the page', async () => {
    const res = await webRoutes(deps({ dashboard: fakeDashboard() })).request('/v1/dashboard/view');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    for (const id of ['rates', 'categories', 'phantom-tools', 'invented-params', 'recovery', 'by-tool']) expect(html).toContain(`id="${id}"`);
    expect(html).toContain('search_code');
    expect(html).toContain('read_file.encoding');
    expect(html).toContain('>demo-model</text>');
    expect(html).toContain('aborted, 1 interrupted');
    expect(html).not.toContain('<script>');
  });
});
