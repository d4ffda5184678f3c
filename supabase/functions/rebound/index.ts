// Supabase Edge Function "rebound": the same app as every runtime, under /rebound. verify_jwt is off in
// supabase/config.toml because EventSource cannot send a JWT; the app verifies it on every other /v1 route.
import { serveFunction } from '../../../src/entries/deno.ts';

serveFunction('/rebound');
