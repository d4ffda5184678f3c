// What a Supabase project already has and plain PostgreSQL / PGlite do not: the API roles and the auth
// helpers that RLS policies call. Run before the migrations on a bare database (tests, embedded PGlite);
// never on Supabase. Idempotent. auth.jwt() reads the claims PostgREST puts in `request.jwt.claims`.
export const SUPABASE_BOOTSTRAP_SQL = `
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then
    create role anon nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticated') then
    create role authenticated nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'service_role') then
    create role service_role nologin noinherit bypassrls;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticator') then
    create role authenticator login noinherit;
  end if;
end
$$;

grant anon, authenticated, service_role to authenticator;

create schema if not exists auth;

create or replace function auth.jwt() returns jsonb
language sql stable
as $fn$
  select coalesce(nullif(current_setting('request.jwt.claims', true), ''), '{}')::jsonb
$fn$;

create or replace function auth.uid() returns uuid
language sql stable
as $fn$
  select nullif(auth.jwt() ->> 'sub', '')::uuid
$fn$;

create or replace function auth.role() returns text
language sql stable
as $fn$
  select nullif(auth.jwt() ->> 'role', '')
$fn$;

grant usage on schema auth to anon, authenticated, service_role;
grant usage on schema public to anon, authenticated, service_role;
grant execute on function auth.jwt(), auth.uid(), auth.role() to anon, authenticated, service_role;
`;
