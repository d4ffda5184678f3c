// Dashboard on Supabase: the agent_dashboard RPC (security invoker) called with the user's own JWT and
// the publishable key (or the legacy anon key), so RLS limits it to the user's rows. Without a token it falls back to the service client
// filtered by user id, and refuses an unscoped (null user) request unless allowAll is set.
import { AuthError } from '../auth-error.ts';
import { createServerClient, type DataClient } from '../store/data-client.ts';
import { checkRange, toDashboardData } from './sql-result.ts';
import type { DashboardRange, DashboardSource } from './types.ts';

export interface SupabaseDashboardOptions {
  url: string;
  /** sb_publishable_… or the legacy anon JWT: sent as `apikey` beside the user's token. */
  publishableKey: string;
  /** Service-role client for requests without a user token. */
  serviceClient?: DataClient;
  /** Let a null user (local mode) see every row through the service client. */
  allowAll?: boolean;
  fetch?: typeof fetch;
}

export function createSupabaseDashboard(options: SupabaseDashboardOptions): DashboardSource {
  return {
    async load(range: DashboardRange, userId: string | null, accessToken?: string) {
      checkRange(range);
      let client: DataClient;
      if (accessToken) {
        client = createServerClient(options.url, options.publishableKey, { accessToken, ...(options.fetch ? { fetch: options.fetch } : {}) });
      } else if (options.serviceClient && (userId !== null || options.allowAll)) {
        client = options.serviceClient;
      } else {
        throw new AuthError('Sign in to see the dashboard: send your Supabase access token as a Bearer token.');
      }
      const { data, error } = await client.rpc('agent_dashboard', {
        p_from: range.from,
        p_to: range.to,
        p_bucket: range.bucket,
        p_user: userId,
        p_source: range.source ?? null,
      });
      if (error) throw new Error(`agent_dashboard: ${error.message}`, { cause: error });
      return toDashboardData(range, data);
    },
  };
}
