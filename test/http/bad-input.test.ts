// The HTTP bad-input table: one row per hostile or careless request, on every route, against the real
// server over loopback. Each error row checks the status, the JSON error shape {error:{status,code,message}}
// and that the message says what to do; each accepted row (NUL, prototype keys, allowed hosts) checks
// that the request went through. Two servers: one with auth (the deployed shape: no Host or Origin
// checks) and one in local no-auth mode (loopback Host names, same-origin POSTs). Requests go through
// node:http because fetch cannot set a Host header.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { createPgliteDashboard } from '../../src/dashboard/pglite.ts';
import { readMigrations } from '../../src/entries/sql-files.ts';
import { TurnTokens } from '../../src/http/turn-token.ts';
import { openPglite } from '../../src/store/pglite.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { headerAuth, serveApp, startApp, type TestApp } from '../support/app-server.ts';
import { SignJWT } from 'jose';
import { createApp } from '../../src/http/app.ts';
import { edgeDeps } from '../../src/entries/edge.ts';
import { collectWithEventSource, parseSse, textOf } from '../support/sse-client.ts';

const SECRET = 'bad-input-suite-secret-0123456789';
const EDGE_JWT_SECRET = 'bad-input-edge-jwt-secret-at-least-32-chars';
const MAX_CHARS = 1000;

interface Fixture {
  /** Alice's pending turn (never streamed by the table) and its stream token. */
  pending: { turnId: string; sessionId: string; token: string };
  /** Another pending turn of Alice's, whose token must not open `pending`. */
  other: { turnId: string; token: string };
  /** A turn that has run to its end. */
  finished: { turnId: string; token: string };
  /** Tokens for `pending` that only the suite can make: another user's, expired, signed with another secret. */
  tokens: { otherUser: string; expired: string; forged: string };
  /** host:port of the local-mode server, for same-origin rows. */
  localHost: string;
  /** A valid user JWT for the `edge` server. */
  edgeToken: string;
}

interface Row {
  name: string;
  /**
   * Which server: `auth` (header auth, no guards), `local` (no auth: Host and Origin guards) or `edge`
   * (an edge deployment's deps, edgeDeps, with JWT auth and no storage settings).
   */
  on?: 'auth' | 'local' | 'edge';
  method?: string;
  path: string | ((f: Fixture) => string);
  headers?: Record<string, string> | ((f: Fixture) => Record<string, string>);
  body?: string | ((f: Fixture) => string);
  /** Send the body with Transfer-Encoding: chunked, without Content-Length. */
  chunked?: boolean;
  status: number;
  /** The error code; absent on rows where the request is accepted. */
  code?: string;
  /** What the message must say: what was wrong and what to do. */
  message?: RegExp;
  /** An accepted row's Content-Type. */
  type?: RegExp;
}

const alice = { 'content-type': 'application/json', 'x-test-user': 'alice' };
const bob = { 'content-type': 'application/json', 'x-test-user': 'bob' };
const json = { 'content-type': 'application/json' };
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const stream = (turnId: string, token?: string) => `/v1/turns/${turnId}/stream${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`;

const err = (status: number, code: string, message: RegExp) => ({ status, code, message });
const notJson = err(400, 'malformed_json', /not valid JSON.*Send one JSON object/);
const notObject = err(400, 'invalid_request', /body must be one JSON object such as \{"message"/);
const messageType = err(400, 'invalid_request', /message: message is required and must be a string/);
const emptyMessage = err(400, 'invalid_request', /message: message must not be empty/);
const badSessionId = err(400, 'invalid_request', /sessionId: sessionId must be a UUID returned by an earlier turn/);
const tooLarge = err(413, 'payload_too_large', /larger than 256 KB\. Send a shorter message/);
const notJsonType = err(415, 'unsupported_media_type', /Send the body as JSON with "Content-Type: application\/json"/);
const noRoute = (method: string, path: string) =>
  err(404, 'not_found', new RegExp(`No route ${method} ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\. See docs/http-api\\.md`));
const noTurn = err(404, 'not_found', /No turn .*Create one with POST \/v1\/turns/);
const noSession = err(404, 'not_found', /No session .*created by POST \/v1\/turns; use the sessionId it returned/);
const foreignHost = err(403, 'host_not_allowed', /Host "[^"]*" is not served.*add the name to ALLOWED_HOSTS/);
const foreignOrigin = err(403, 'origin_not_allowed', /from origin "[^"]*" refused.*Add the origin to CORS_ORIGINS/);
const noStorage = err(
  503,
  'storage_not_configured',
  /Storage is not configured: SUPABASE_URL and a secret key missing.*SUPABASE_SECRET_KEY.*or STORAGE=memory/,
);
const range = err(400, 'invalid_request', /within years 1970–9999 \(1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z\)/);

const FORGED = `apr_${'0'.repeat(32)}`;
const decision =
  (turnId: (f: Fixture) => string, approvalId = FORGED) =>
  (f: Fixture) =>
    `/v1/turns/${turnId(f)}/approvals/${approvalId}`;
const noApproval = err(404, 'not_found', /No approval "apr_[^"]*" of turn [0-9a-f-]+\. Use the approvalId of an approval_required event/);

/** POST /v1/turns/:turnId/approvals/:approvalId: who may decide, on what, with which body. */
function decisionRows(): Row[] {
  const post = (name: string, body: string, expected: ReturnType<typeof err>, headers: Record<string, string> = alice): Row => ({
    name: `a decision: ${name}`,
    method: 'POST',
    path: decision((f) => f.pending.turnId),
    headers,
    body,
    ...expected,
  });
  return [
    { name: 'a decision on an unknown turn', method: 'POST', path: decision(() => UNKNOWN), headers: alice, body: '{"approved": true}', ...noTurn },
    post('no credentials', '{"approved": true}', err(401, 'unauthorized', /Missing credentials: send a bearer token/), json),
    post("another user's turn", '{"approved": true}', err(403, 'forbidden', /This turn belongs to another user/), bob),
    post('an approval id nobody issued', '{"approved": true}', noApproval),
    {
      name: 'a decision: an id that is not an approval id',
      method: 'POST',
      path: decision((f) => f.pending.turnId, 'apr_../../stop'),
      headers: alice,
      body: '{"approved": true}',
      ...err(404, 'not_found', /No route POST|No approval/),
    },
    {
      name: 'a decision: a finished turn, an id it never had',
      method: 'POST',
      path: decision((f) => f.finished.turnId),
      headers: alice,
      body: '{"approved": false}',
      ...noApproval,
    },
    post('not JSON', '{"approved": tru', notJson),
    post('an array', '[{"approved": true}]', err(400, 'invalid_request', /body must be one JSON object such as \{"approved": true\}, not an array/)),
    post('an empty object', '{}', err(400, 'invalid_request', /approved: approved is required: true to run the call, false to deny it/)),
    post('approved as a string', '{"approved": "yes"}', err(400, 'invalid_request', /approved: approved is required: true to run the call, false to deny it/)),
    post(
      'a reason of 1001 characters',
      JSON.stringify({ approved: false, reason: 'x'.repeat(1001) }),
      err(400, 'invalid_request', /reason: reason must be at most 1000 characters/),
    ),
    post('a reason that is a number', '{"approved": false, "reason": 7}', err(400, 'invalid_request', /reason: reason must be a string/)),
    post(
      'arguments as an array',
      '{"approved": true, "arguments": ["notes.txt"]}',
      err(400, 'invalid_request', /arguments: arguments must be a JSON object: the call's arguments as they should run/),
    ),
    post('a body over 256 KB', JSON.stringify({ approved: true, arguments: { content: 'x'.repeat(300_000) } }), tooLarge),
    post('not JSON by its type', '{"approved": true}', notJsonType, { 'content-type': 'text/plain', 'x-test-user': 'alice' }),
  ];
}

const FORGED_INPUT = `inp_${'0'.repeat(32)}`;
const noQuestion = err(404, 'not_found', /No question "inp_[^"]*" of turn [0-9a-f-]+\. Use the inputId of an input_required event/);

/** POST /v1/turns/:turnId/inputs/:inputId: who may answer a server's question, with which body (its content against the question: src/tools/input.test.ts). */
function inputRows(): Row[] {
  const post = (name: string, body: string, expected: ReturnType<typeof err>, headers: Record<string, string> = alice): Row => ({
    name: `an answer: ${name}`,
    method: 'POST',
    path: (f) => `/v1/turns/${f.pending.turnId}/inputs/${FORGED_INPUT}`,
    headers,
    body,
    ...expected,
  });
  return [
    {
      name: 'an answer on an unknown turn',
      method: 'POST',
      path: `/v1/turns/${UNKNOWN}/inputs/${FORGED_INPUT}`,
      headers: alice,
      body: '{"action": "decline"}',
      ...noTurn,
    },
    post('no credentials', '{"action": "decline"}', err(401, 'unauthorized', /Missing credentials: send a bearer token/), json),
    post("another user's turn", '{"action": "decline"}', err(403, 'forbidden', /This turn belongs to another user/), bob),
    post('a question id nobody issued', '{"action": "accept", "content": {}}', noQuestion),
    post('not JSON', '{"action": "acc', notJson),
    post(
      'an array',
      '[{"action": "decline"}]',
      err(400, 'invalid_request', /body must be one JSON object such as \{"action": "accept", "content": \{…\}\}, not an array/),
    ),
    post('a body over 256 KB', JSON.stringify({ action: 'accept', content: { note: 'x'.repeat(300_000) } }), tooLarge),
  ];
}

/** The body rows, the same for both routes that take a message. */
function bodyRows(path: '/v1/turns' | '/v1/chat'): Row[] {
  const post = (name: string, body: string, expected: ReturnType<typeof err>, headers: Record<string, string> = alice): Row => ({
    name,
    method: 'POST',
    path,
    headers,
    body,
    ...expected,
  });
  return [
    post('truncated JSON', '{"message": "hi"', notJson),
    post('an empty body', '', notJson),
    post('a bare word', 'hello', notJson),
    post('single quotes', "{'message': 'hi'}", notJson),
    post('a trailing comma', '{"message": "hi",}', notJson),
    post('two JSON values', '{"message": "a"}{"message": "b"}', notJson),
    post('null', 'null', notObject),
    post('an array', '[{"message": "hi"}]', notObject),
    post('a JSON string', '"hi"', notObject),
    post('a number', '42', notObject),
    post('an empty object', '{}', messageType),
    post('message: null', '{"message": null}', messageType),
    post('message: a number', '{"message": 42}', messageType),
    post('message: a boolean', '{"message": true}', messageType),
    post('message: an array', '{"message": ["hi"]}', messageType),
    post('message: an object', '{"message": {"text": "hi"}}', messageType),
    post('message: empty', '{"message": ""}', emptyMessage),
    post('message: whitespace only', '{"message": " \\n\\t "}', emptyMessage),
    post(
      `message: ${MAX_CHARS + 1} characters`,
      JSON.stringify({ message: 'x'.repeat(MAX_CHARS + 1) }),
      err(400, 'invalid_request', new RegExp(`message must be at most ${MAX_CHARS} characters`)),
    ),
    post('sessionId: not a UUID', '{"message": "hi", "sessionId": "nope"}', badSessionId),
    post('sessionId: a number', '{"message": "hi", "sessionId": 42}', badSessionId),
    post('sessionId: null', '{"message": "hi", "sessionId": null}', badSessionId),
    post('sessionId: empty', '{"message": "hi", "sessionId": ""}', badSessionId),
    post('sessionId: a path', '{"message": "hi", "sessionId": "../../etc/passwd"}', badSessionId),
    post('__proto__ only, no message', '{"__proto__": {"message": "smuggled"}}', messageType),
    post('a body over 256 KB', JSON.stringify({ message: 'x'.repeat(300 * 1024) }), tooLarge),
    { ...post('a chunked body over 256 KB (no Content-Length)', JSON.stringify({ message: 'x'.repeat(300 * 1024) }), tooLarge), chunked: true },
    post('text/plain', '{"message": "hi"}', notJsonType, { 'content-type': 'text/plain', 'x-test-user': 'alice' }),
    post('no content type', '{"message": "hi"}', notJsonType, { 'x-test-user': 'alice' }),
    post('a form', 'message=hi', notJsonType, { 'content-type': 'application/x-www-form-urlencoded', 'x-test-user': 'alice' }),
    post('multipart', '--x\r\n\r\nhi\r\n--x--', notJsonType, { 'content-type': 'multipart/form-data; boundary=x', 'x-test-user': 'alice' }),
    post('application/jsonp', '{"message": "hi"}', notJsonType, { 'content-type': 'application/jsonp', 'x-test-user': 'alice' }),
    post('no credentials', '{"message": "hi"}', err(401, 'unauthorized', /Missing credentials: send a bearer token/), json),
    {
      name: "another user's session",
      method: 'POST',
      path,
      headers: bob,
      body: (f) => JSON.stringify({ message: 'hijack', sessionId: f.pending.sessionId }),
      ...err(403, 'forbidden', /belongs to another user\. Omit sessionId to start a new session/),
    },
  ];
}

const rows: Row[] = [
  // POST /v1/turns and POST /v1/chat
  ...bodyRows('/v1/turns'),
  ...bodyRows('/v1/chat'),
  {
    name: 'a NUL in the message is kept',
    method: 'POST',
    path: '/v1/turns',
    headers: alice,
    body: '{"message": "a\\u0000b"}',
    status: 201,
    type: /application\/json/,
  },
  {
    name: 'a lone surrogate in the message is kept',
    method: 'POST',
    path: '/v1/turns',
    headers: alice,
    body: '{"message": "a\\ud800b"}',
    status: 201,
    type: /application\/json/,
  },
  {
    name: 'a NUL in the message streams',
    method: 'POST',
    path: '/v1/chat',
    headers: alice,
    body: '{"message": "a\\u0000b"}',
    status: 200,
    type: /text\/event-stream/,
  },
  {
    name: 'a message of exactly the limit',
    method: 'POST',
    path: '/v1/turns',
    headers: alice,
    body: JSON.stringify({ message: 'x'.repeat(MAX_CHARS) }),
    status: 201,
  },
  {
    name: 'application/json with a charset',
    method: 'POST',
    path: '/v1/turns',
    headers: { ...alice, 'content-type': 'application/json; charset=utf-8' },
    body: '{"message": "hi"}',
    status: 201,
  },
  {
    name: 'application/vnd.api+json',
    method: 'POST',
    path: '/v1/turns',
    headers: { ...alice, 'content-type': 'application/vnd.api+json' },
    body: '{"message": "hi"}',
    status: 201,
  },
  {
    name: 'unknown fields are ignored',
    method: 'POST',
    path: '/v1/turns',
    headers: alice,
    body: '{"message": "hi", "role": "system", "admin": true}',
    status: 201,
  },
  {
    name: '__proto__ with a message',
    method: 'POST',
    path: '/v1/turns',
    headers: alice,
    body: '{"message": "hi", "__proto__": {"polluted": true}}',
    status: 201,
  },
  {
    name: 'constructor.prototype with a message',
    method: 'POST',
    path: '/v1/turns',
    headers: alice,
    body: '{"message": "hi", "constructor": {"prototype": {"polluted": true}}}',
    status: 201,
  },
  {
    name: '__proto__ in the message object',
    method: 'POST',
    path: '/v1/turns',
    headers: alice,
    body: '{"message": {"__proto__": {"toString": "x"}}}',
    ...messageType,
  },

  // GET /v1/turns/:id/stream
  { name: 'a non-UUID turn id', path: '/v1/turns/not-a-uuid/stream?token=x', ...noTurn },
  { name: 'an unknown turn', path: stream(UNKNOWN, 'x'), ...noTurn },
  { name: 'an upper-case non-UUID', path: '/v1/turns/ZZZZZZZZ-0000-4000-8000-000000000000/stream', ...noTurn },
  { name: 'an encoded path traversal as the id', path: '/v1/turns/..%2F..%2Fhealth/stream', ...noTurn },
  { name: '__proto__ as the id', path: '/v1/turns/__proto__/stream', ...noTurn },
  {
    name: 'no token',
    path: (f) => stream(f.pending.turnId),
    ...err(401, 'unauthorized', /Missing stream token: use the streamUrl returned by POST \/v1\/turns/),
  },
  { name: 'an empty token', path: (f) => `${stream(f.pending.turnId)}?token=`, ...err(401, 'unauthorized', /Missing stream token/) },
  {
    name: 'a malformed token',
    path: (f) => stream(f.pending.turnId, 'garbage'),
    ...err(401, 'unauthorized', /Malformed stream token: use the streamUrl returned by POST \/v1\/turns unchanged/),
  },
  {
    name: 'a token with a huge expiry',
    path: (f) => stream(f.pending.turnId, `${'9'.repeat(13)}.${f.pending.token.split('.')[1]}`),
    ...err(401, 'unauthorized', /Malformed stream token/),
  },
  { name: 'a truncated token', path: (f) => stream(f.pending.turnId, f.pending.token.slice(0, -1)), ...err(401, 'unauthorized', /Malformed stream token/) },
  {
    name: 'two tokens',
    path: (f) => `${stream(f.pending.turnId, 'garbage')}&token=${encodeURIComponent(f.pending.token)}`,
    ...err(401, 'unauthorized', /Malformed stream token/),
  },
  {
    name: "another turn's token",
    path: (f) => stream(f.pending.turnId, f.other.token),
    ...err(403, 'forbidden', /not valid for this turn: use the streamUrl that POST \/v1\/turns returned/),
  },
  { name: 'a token issued to another user', path: (f) => stream(f.pending.turnId, f.tokens.otherUser), ...err(403, 'forbidden', /not valid for this turn/) },
  { name: 'a token signed with another secret', path: (f) => stream(f.pending.turnId, f.tokens.forged), ...err(403, 'forbidden', /not valid for this turn/) },
  {
    name: 'an expired token',
    path: (f) => stream(f.pending.turnId, f.tokens.expired),
    ...err(401, 'unauthorized', /stream token has expired: start a new turn with POST \/v1\/turns/),
  },
  {
    name: 'a token with its expiry edited',
    path: (f) => stream(f.pending.turnId, `${Number(f.pending.token.split('.')[0]) + 30}.${f.pending.token.split('.')[1]}`),
    ...err(403, 'forbidden', /not valid for this turn/),
  },
  {
    name: 'a token whose expiry lies further ahead than the server issues (exp 999999999999)',
    path: (f) => stream(f.pending.turnId, `999999999999.${f.pending.token.split('.')[1]}`),
    ...err(403, 'forbidden', /expires later than this server issues any: it was not issued here/),
  },
  {
    name: 'a finished turn with a Last-Event-ID at its end: 204, nothing runs again',
    path: (f) => `${stream(f.finished.turnId, f.finished.token)}&lastEventId=999`,
    status: 204,
  },
  {
    name: 'a finished turn without a Last-Event-ID: its replay',
    path: (f) => stream(f.finished.turnId, f.finished.token),
    status: 200,
    type: /text\/event-stream/,
  },
  {
    name: 'a Last-Event-ID that is not a number',
    path: (f) => `${stream(f.finished.turnId, f.finished.token)}&lastEventId=x1`,
    ...err(400, 'invalid_request', /Last-Event-ID must be the id of an event this stream sent/),
  },
  {
    name: 'a stream format other than "ui"',
    path: (f) => `${stream(f.finished.turnId, f.finished.token)}&format=json`,
    ...err(400, 'invalid_request', /format must be "ui" \(the AI SDK's UI message stream\) or left out/),
  },
  {
    name: 'format=ui after a Last-Event-ID',
    path: (f) => `${stream(f.finished.turnId, f.finished.token)}&format=ui&lastEventId=2`,
    ...err(400, 'invalid_request', /UI message stream \(format=ui\) is read from the turn's start/),
  },
  {
    name: 'a finished turn with format=ui: its replay as a UI message stream',
    path: (f) => `${stream(f.finished.turnId, f.finished.token)}&format=ui`,
    status: 200,
    type: /text\/event-stream/,
  },
  {
    name: 'POST to a stream',
    method: 'POST',
    path: (f) => stream(f.pending.turnId, f.pending.token),
    headers: alice,
    body: '{}',
    ...err(404, 'not_found', /No route POST \/v1\/turns\/[0-9a-f-]+\/stream\. See docs\/http-api\.md/),
  },
  {
    name: 'a path below the stream',
    path: (f) => `/v1/turns/${f.pending.turnId}/stream/more`,
    ...err(404, 'not_found', /No route GET .*See docs\/http-api\.md/),
  },

  // A decision on a call that waits for a person (docs/approval.md § The decision): owner only, an approval of this turn, a bounded body.
  ...decisionRows(),
  ...inputRows(),

  // HEAD on the stream: the status and headers a GET would get, nothing run or claimed (bodies are empty).
  { name: 'HEAD on a pending turn', method: 'HEAD', path: (f) => stream(f.pending.turnId, f.pending.token), status: 200, type: /text\/event-stream/ },
  {
    name: 'HEAD on a finished turn seen to its end',
    method: 'HEAD',
    path: (f) => `${stream(f.finished.turnId, f.finished.token)}&lastEventId=999`,
    status: 204,
  },
  {
    name: 'HEAD on a finished turn to replay',
    method: 'HEAD',
    path: (f) => stream(f.finished.turnId, f.finished.token),
    status: 200,
    type: /text\/event-stream/,
  },
  { name: 'HEAD on an unknown turn', method: 'HEAD', path: stream(UNKNOWN, 'x'), status: 404, type: /application\/json/ },
  { name: 'HEAD without a token', method: 'HEAD', path: (f) => stream(f.pending.turnId), status: 401, type: /application\/json/ },
  { name: "HEAD with another turn's token", method: 'HEAD', path: (f) => stream(f.pending.turnId, f.other.token), status: 403, type: /application\/json/ },
  { name: 'HEAD on a POST route', method: 'HEAD', path: '/v1/turns', status: 404, type: /application\/json/ },

  // GET /v1/sessions/:id/messages
  { name: 'a non-UUID session id', path: '/v1/sessions/nope/messages', headers: alice, ...noSession },
  { name: 'an unknown session', path: `/v1/sessions/${UNKNOWN}/messages`, headers: alice, ...noSession },
  { name: 'an encoded path traversal as the session id', path: '/v1/sessions/..%2F..%2Fetc%2Fpasswd/messages', headers: alice, ...noSession },
  { name: '__proto__ as the session id', path: '/v1/sessions/__proto__/messages', headers: alice, ...noSession },
  { name: 'constructor as the session id', path: '/v1/sessions/constructor/messages', headers: alice, ...noSession },
  {
    name: 'no credentials for a session',
    path: (f) => `/v1/sessions/${f.pending.sessionId}/messages`,
    ...err(401, 'unauthorized', /Missing credentials: send a bearer token/),
  },
  {
    name: "another user's session",
    path: (f) => `/v1/sessions/${f.pending.sessionId}/messages`,
    headers: bob,
    ...err(403, 'forbidden', /belongs to another user\. Use a sessionId from your own turns/),
  },
  { name: 'the owner reads it', path: (f) => `/v1/sessions/${f.pending.sessionId}/messages`, headers: alice, status: 200, type: /application\/json/ },
  {
    name: 'a path below the messages',
    path: `/v1/sessions/${UNKNOWN}/messages/1`,
    headers: alice,
    ...err(404, 'not_found', /No route GET .*See docs\/http-api\.md/),
  },

  // GET /v1/dashboard and /v1/dashboard/view (a real PGlite source: an out-of-range date reached it as a 500)
  ...(['/v1/dashboard', '/v1/dashboard/view'] as const).flatMap((path): Row[] => [
    {
      name: 'a word for from',
      path: `${path}?from=yesterday`,
      headers: alice,
      ...err(400, 'invalid_request', /from must be an ISO 8601 timestamp within years 1970–9999.*such as 2025-01-31T00:00:00Z/),
    },
    { name: 'month 13', path: `${path}?to=2025-13-01T00:00:00Z`, headers: alice, ...err(400, 'invalid_request', /to must be an ISO 8601 timestamp/) },
    { name: 'February 30th', path: `${path}?from=2025-02-30T00:00:00Z`, headers: alice, ...range },
    { name: 'a date without a time', path: `${path}?from=2025-01-01`, headers: alice, ...range },
    { name: 'year 0', path: `${path}?from=0000-01-01T00:00:00Z&to=0000-01-02T00:00:00Z`, headers: alice, ...range },
    { name: '1969', path: `${path}?from=1969-12-31T00:00:00Z&to=1970-01-01T00:00:00Z`, headers: alice, ...range },
    { name: 'a default from before 1970', path: `${path}?to=1970-01-01T01:00:00Z`, headers: alice, ...range },
    { name: 'year 10000 through an offset', path: `${path}?from=9999-12-31T00:00:00Z&to=9999-12-31T23:00:00-05:00`, headers: alice, ...range },
    { name: 'a six-digit year', path: `${path}?from=%2B010000-01-01T00:00:00Z`, headers: alice, ...range },
    {
      name: 'from after to',
      path: `${path}?from=2025-03-02T00:00:00Z&to=2025-03-01T00:00:00Z`,
      headers: alice,
      ...err(400, 'invalid_request', /from must be earlier than to/),
    },
    {
      name: 'from equal to to',
      path: `${path}?from=2025-03-01T00:00:00Z&to=2025-03-01T00:00:00Z`,
      headers: alice,
      ...err(400, 'invalid_request', /from must be earlier than to/),
    },
    {
      name: 'over 366 days',
      path: `${path}?from=2020-01-01T00:00:00Z&to=2025-01-01T00:00:00Z`,
      headers: alice,
      ...err(400, 'invalid_request', /longer than 366 days: narrow from\/to/),
    },
    {
      name: 'hourly over 31 days',
      path: `${path}?from=2025-01-01T00:00:00Z&to=2025-03-01T00:00:00Z&bucket=hour`,
      headers: alice,
      ...err(400, 'invalid_request', /use bucket=day or a shorter range/),
    },
    { name: 'bucket=week', path: `${path}?bucket=week`, headers: alice, ...err(400, 'invalid_request', /bucket must be "hour" or "day"/) },
    {
      name: 'an unknown parameter',
      path: `${path}?range=7d`,
      headers: alice,
      ...err(400, 'invalid_request', /unknown query parameter "range": use from, to, bucket and source/),
    },
    { name: '__proto__ as a parameter', path: `${path}?__proto__=1`, headers: alice, ...err(400, 'invalid_request', /unknown query parameter "__proto__"/) },
    { name: 'no credentials for the dashboard', path, ...err(401, 'unauthorized', /Missing credentials/) },
    { name: 'the edges of the valid range', path: `${path}?from=9999-12-30T23:59:59Z&to=9999-12-31T23:59:59Z`, headers: alice, status: 200 },
  ]),

  // Unknown routes and paths
  { name: 'an unknown prefix', path: '/v2/nothing', ...noRoute('GET', '/v2/nothing') },
  { name: 'the API root', path: '/v1', ...noRoute('GET', '/v1') },
  { name: 'GET on a POST route', path: '/v1/turns', ...noRoute('GET', '/v1/turns') },
  { name: 'GET on /v1/chat', path: '/v1/chat', ...noRoute('GET', '/v1/chat') },
  { name: 'POST to /health', method: 'POST', path: '/health', headers: json, body: '{}', ...noRoute('POST', '/health') },
  { name: 'PUT', method: 'PUT', path: '/v1/turns', headers: json, body: '{}', ...noRoute('PUT', '/v1/turns') },
  { name: 'DELETE', method: 'DELETE', path: `/v1/sessions/${UNKNOWN}/messages`, headers: alice, ...noRoute('DELETE', `/v1/sessions/${UNKNOWN}/messages`) },
  { name: 'PATCH', method: 'PATCH', path: '/v1/chat', headers: json, body: '{}', ...noRoute('PATCH', '/v1/chat') },
  { name: 'OPTIONS without CORS configured', method: 'OPTIONS', path: '/v1/turns', ...noRoute('OPTIONS', '/v1/turns') },
  { name: 'an unknown asset', path: '/assets/nope.js', ...err(404, 'not_found', /No asset nope\.js: .*reload the page/) },
  { name: 'an asset path traversal', path: '/assets/..%2F..%2Fpackage.json', ...err(404, 'not_found', /No asset|No route/) },
  { name: 'a dot-dot path', path: '/%2e%2e/%2e%2e/etc/passwd', ...err(404, 'not_found', /No route GET .*See docs\/http-api\.md/) },
  { name: 'a 10 KB path', path: `/${'a'.repeat(10_000)}`, ...err(404, 'not_found', /No route GET \/a+… \(10001 chars\)\. See docs\/http-api\.md/) },
  { name: 'a trailing slash', path: '/v1/turns/', method: 'POST', headers: alice, body: '{"message": "hi"}', ...noRoute('POST', '/v1/turns/') },
  { name: 'the health route', path: '/health', status: 200, type: /application\/json/ },
  { name: 'auth mode serves any Host (deployments have their own names)', path: '/health', headers: { host: 'rebound.example.com' }, status: 200 },

  // An edge deployment with auth but no storage settings: the session and turn routes refuse, whoever asks
  // (the deployment's mistake, not the caller's); the gateway (its users admitted: GATEWAY_USERS), /v1/tools
  // and /health keep working.
  { on: 'edge', name: 'no storage on a deployment', method: 'POST', path: '/v1/chat', headers: json, body: '{"message": "hi"}', ...noStorage },
  { on: 'edge', name: 'no storage on a deployment', method: 'POST', path: '/v1/turns', headers: json, body: '{"message": "hi"}', ...noStorage },
  { on: 'edge', name: 'no storage on a deployment', path: stream(UNKNOWN, 'x'), ...noStorage },
  { on: 'edge', name: 'no storage on a deployment', method: 'POST', path: `/v1/turns/${UNKNOWN}/stop`, ...noStorage },
  {
    on: 'edge',
    name: 'no storage on a deployment',
    method: 'POST',
    path: `/v1/turns/${UNKNOWN}/approvals/${FORGED}`,
    headers: json,
    body: '{"approved": true}',
    ...noStorage,
  },
  { on: 'edge', name: 'no storage on a deployment', path: `/v1/sessions/${UNKNOWN}/messages`, ...noStorage },
  { on: 'edge', name: 'no storage on a deployment', method: 'POST', path: '/v1/ui/chat', headers: json, body: '{"id": "c", "messages": []}', ...noStorage },
  { on: 'edge', name: 'no storage on a deployment', path: '/v1/ui/chat/c/stream', ...noStorage },
  { on: 'edge', name: 'no storage on a deployment', path: '/v1/dashboard', ...noStorage },
  { on: 'edge', name: 'no storage on a deployment', path: '/v1/dashboard/view', ...noStorage },
  { on: 'edge', name: 'no storage: the tools still list', path: '/v1/tools', headers: (f) => ({ authorization: `Bearer ${f.edgeToken}` }), status: 200 },
  {
    on: 'edge',
    name: 'no storage: the gateway still answers',
    method: 'POST',
    path: '/v1/chat/completions',
    headers: (f) => ({ ...json, authorization: `Bearer ${f.edgeToken}` }),
    body: '{"model": "m", "messages": [{"role": "user", "content": "hi"}]}',
    status: 200,
    type: /application\/json/,
  },
  { on: 'edge', name: 'no storage: health answers', path: '/health', status: 200, type: /application\/json/ },

  // Local mode without auth: Host names (DNS rebinding) and browser Origins (CSRF)
  { on: 'local', name: 'a foreign Host', path: '/health', headers: { host: 'evil.example' }, ...foreignHost },
  { on: 'local', name: 'a foreign Host with a port', path: '/health', headers: { host: 'evil.example:8787' }, ...foreignHost },
  { on: 'local', name: 'a name that starts with localhost', path: '/health', headers: { host: 'localhost.evil.example' }, ...foreignHost },
  { on: 'local', name: 'a rebinding name for 127.0.0.1', path: '/health', headers: { host: '127.0.0.1.nip.io' }, ...foreignHost },
  { on: 'local', name: 'a subdomain of an allowed host', path: '/health', headers: { host: 'sub.dev.example.test' }, ...foreignHost },
  { on: 'local', name: 'a foreign Host on the chat page', path: '/', headers: { host: 'evil.example' }, ...foreignHost },
  { on: 'local', name: 'a foreign Host on the dashboard', path: '/v1/dashboard', headers: { host: 'evil.example' }, ...foreignHost },
  { on: 'local', name: 'a foreign Host on a session', path: `/v1/sessions/${UNKNOWN}/messages`, headers: { host: 'evil.example' }, ...foreignHost },
  {
    on: 'local',
    name: 'a foreign Host on a POST',
    method: 'POST',
    path: '/v1/turns',
    headers: { ...json, host: 'evil.example' },
    body: '{"message": "hi"}',
    ...foreignHost,
  },
  { on: 'local', name: 'a foreign Host on a stream', path: stream(UNKNOWN, 'x'), headers: { host: 'evil.example' }, ...foreignHost },
  {
    on: 'local',
    name: 'a foreign Host on a preflight',
    method: 'OPTIONS',
    path: '/v1/turns',
    headers: { host: 'evil.example', origin: 'https://chat.example', 'access-control-request-method': 'POST' },
    ...foreignHost,
  },
  { on: 'local', name: 'Host localhost', path: '/health', headers: { host: 'localhost' }, status: 200 },
  { on: 'local', name: 'Host [::1] with a port', path: '/health', headers: { host: '[::1]:8787' }, status: 200 },
  { on: 'local', name: 'a Host in ALLOWED_HOSTS', path: '/health', headers: { host: 'Dev.Example.Test:8787' }, status: 200 },
  {
    on: 'local',
    name: 'a foreign Origin',
    method: 'POST',
    path: '/v1/turns',
    headers: { ...json, origin: 'https://evil.example' },
    body: '{"message": "hi"}',
    ...foreignOrigin,
  },
  {
    on: 'local',
    name: 'a foreign Origin on /v1/chat',
    method: 'POST',
    path: '/v1/chat',
    headers: { ...json, origin: 'https://evil.example' },
    body: '{"message": "hi"}',
    ...foreignOrigin,
  },
  {
    on: 'local',
    name: 'a foreign Origin posting a form',
    method: 'POST',
    path: '/v1/turns',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
    body: 'message=hi',
    ...foreignOrigin,
  },
  {
    on: 'local',
    name: 'an opaque Origin',
    method: 'POST',
    path: '/v1/turns',
    headers: { ...json, origin: 'null' },
    body: '{"message": "hi"}',
    ...foreignOrigin,
  },
  {
    on: 'local',
    name: 'the Origin of another port',
    method: 'POST',
    path: '/v1/turns',
    headers: { ...json, origin: 'http://127.0.0.1:1' },
    body: '{"message": "hi"}',
    ...foreignOrigin,
  },
  {
    on: 'local',
    name: 'a same-origin POST',
    method: 'POST',
    path: '/v1/turns',
    headers: (f) => ({ ...json, origin: `http://${f.localHost}` }),
    body: '{"message": "hi"}',
    status: 201,
  },
  {
    on: 'local',
    name: 'a POST from CORS_ORIGINS',
    method: 'POST',
    path: '/v1/turns',
    headers: { ...json, origin: 'https://chat.example' },
    body: '{"message": "hi"}',
    status: 201,
  },
  { on: 'local', name: 'a POST without Origin (curl)', method: 'POST', path: '/v1/turns', headers: json, body: '{"message": "hi"}', status: 201 },
  {
    on: 'local',
    name: 'a foreign Origin on a GET (CORS decides who reads it)',
    path: `/v1/sessions/${UNKNOWN}/messages`,
    headers: { origin: 'https://evil.example' },
    ...noSession,
  },
  {
    on: 'local',
    name: 'a preflight from CORS_ORIGINS',
    method: 'OPTIONS',
    path: '/v1/turns',
    headers: { origin: 'https://chat.example', 'access-control-request-method': 'POST' },
    status: 204,
  },
];

let upstream: ScriptedServer;
let auth: TestApp;
let local: TestApp;
let edge: { url: string; close(): Promise<void> };
let db: PGlite;
const f = {} as Fixture;

beforeAll(async () => {
  upstream = await startScriptedOpenAI((req) => ({ text: `You said: ${req.messages.filter((m) => m.role === 'user').at(-1)?.content}` }));
  db = await openPglite(undefined, readMigrations());
  const dashboard = createPgliteDashboard(db);
  const env = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: upstream.url, MAX_MESSAGE_CHARS: String(MAX_CHARS), TURN_TOKEN_SECRET: SECRET };
  auth = await startApp(env, { auth: headerAuth, dashboard });
  local = await startApp({ ...env, ALLOWED_HOSTS: 'dev.example.test', CORS_ORIGINS: 'https://chat.example' }, { dashboard });
  f.localHost = new URL(local.url).host;
  edge = await serveApp(
    createApp(
      edgeDeps(
        { ...env, REBOUND_JWT_SECRET: EDGE_JWT_SECRET, REBOUND_JWT_ISSUER: 'supabase', GATEWAY_USERS: 'authenticated' },
        { name: 'bad-input edge', local: false },
      ),
    ),
  );
  f.edgeToken = await new SignJWT({ role: 'authenticated' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('alice')
    .setAudience('authenticated')
    .setIssuer('supabase')
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(EDGE_JWT_SECRET));

  const create = async () => {
    const res = await send(auth.url, { method: 'POST', path: '/v1/turns', headers: alice, body: '{"message": "fixture"}' });
    const body = JSON.parse(res.text) as { turnId: string; sessionId: string; streamUrl: string };
    return { ...body, token: new URL(body.streamUrl, auth.url).searchParams.get('token')! };
  };
  f.pending = await create();
  f.other = await create();
  f.finished = await create();
  await collectWithEventSource(auth.url + stream(f.finished.turnId, f.finished.token));

  const tokens = new TurnTokens(SECRET, 300);
  f.tokens = {
    otherUser: await tokens.issue(f.pending.turnId, 'mallory'),
    expired: await tokens.issue(f.pending.turnId, 'alice', Date.now() - 3_600_000),
    forged: await new TurnTokens('another-secret-0123456789abcdef', 300).issue(f.pending.turnId, 'alice'),
  };
});

afterAll(async () => {
  await edge?.close();
  await local?.close();
  await auth?.close();
  await upstream?.close();
  await db?.close();
});

interface Sent {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request over node:http, which sends the Host header and the path exactly as given. */
function send(base: string, req: { method?: string; path: string; headers?: Record<string, string>; body?: string; chunked?: boolean }): Promise<Sent> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    let answered = false;
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined && !req.chunked) headers['content-length'] = String(Buffer.byteLength(req.body));
    if (req.chunked) headers['transfer-encoding'] = 'chunked';
    const r = request({ hostname, port, path: req.path, method: req.method ?? 'GET', headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    // The server may answer a body it refuses (413) before it has read it all: not the client's error.
    r.on('error', (e) => (answered ? undefined : reject(e)));
    if (req.body !== undefined && req.chunked) {
      for (let i = 0; i < req.body.length; i += 16 * 1024) r.write(req.body.slice(i, i + 16 * 1024));
    } else if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}

/** Stands in for the fixture in test names, which are fixed before beforeAll runs. */
const PLACEHOLDER: Fixture = {
  pending: { turnId: ':turn', sessionId: ':session', token: 'EXP.SIG' },
  other: { turnId: ':other', token: 'EXP.SIG' },
  finished: { turnId: ':finished', token: 'EXP.SIG' },
  tokens: { otherUser: 'OTHER_USER', expired: 'EXPIRED', forged: 'FORGED' },
  localHost: ':host',
  edgeToken: 'JWT',
};
const label = (row: Row) =>
  `${row.on && row.on !== 'auth' ? `[${row.on}] ` : ''}${row.method ?? 'GET'} ${(typeof row.path === 'string' ? row.path : row.path(PLACEHOLDER)).slice(0, 60)}: ${row.name} → ${row.status}`;

describe('the bad-input table', () => {
  it('has a row for every route and the ~128 cases of the review', () => {
    expect(rows.length).toBeGreaterThanOrEqual(128);
    const paths = rows.map((r) => (typeof r.path === 'string' ? r.path : r.path(f)));
    for (const route of [
      /^\/v1\/turns$/,
      /^\/v1\/chat$/,
      /^\/v1\/turns\/[^/]+\/stream/,
      /^\/v1\/sessions\/[^/]+\/messages$/,
      /^\/v1\/dashboard\?/,
      /^\/v1\/dashboard\/view/,
      /^\/health$/,
      /^\/$/,
      /^\/assets\//,
    ]) {
      expect(
        paths.some((p) => route.test(p)),
        String(route),
      ).toBe(true);
    }
  });

  it.each(rows.map((row) => [label(row), row] as const))('%s', async (_, row) => {
    const app = row.on === 'local' ? local : row.on === 'edge' ? edge : auth;
    const res = await send(app.url, {
      method: row.method,
      path: typeof row.path === 'string' ? row.path : row.path(f),
      headers: typeof row.headers === 'function' ? row.headers(f) : row.headers,
      body: typeof row.body === 'function' ? row.body(f) : row.body,
      chunked: row.chunked,
    });
    expect(res.status).toBe(row.status);
    if (row.type) expect(res.headers['content-type']).toMatch(row.type);
    if (row.method === 'HEAD') {
      expect(res.text).toBe('');
      return;
    }
    if (row.code === undefined) {
      if (res.headers['content-type']?.includes('application/json') && res.text) expect(JSON.parse(res.text)).not.toHaveProperty('error');
      return;
    }
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(res.text) as { error: { status: number; code: string; message: string } };
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toEqual({ status: row.status, code: row.code, message: expect.any(String) });
    expect(body.error.message).toMatch(row.message!);
  });
});

describe('what the table cannot show', () => {
  it('no prototype was polluted by the bodies and query strings above', () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });

  it("a __proto__ key cannot smuggle another user's sessionId", async () => {
    const res = await send(auth.url, {
      method: 'POST',
      path: '/v1/turns',
      headers: bob,
      body: `{"message": "hi", "__proto__": {"sessionId": "${f.pending.sessionId}"}}`,
    });
    expect(res.status).toBe(201);
    expect((JSON.parse(res.text) as { sessionId: string }).sessionId).not.toBe(f.pending.sessionId);
  });

  it('unknown session ids are 404s that create nothing', async () => {
    const ids = Array.from({ length: 50 }, () => crypto.randomUUID());
    for (const id of ids) {
      const res = await send(auth.url, { path: `/v1/sessions/${id}/messages`, headers: alice });
      expect(res.status).toBe(404);
    }
    for (const id of ids) expect(await auth.deps.storage.sessions.getSession(id)).toBeNull();
  });

  it('a NUL in a message reaches the model and the history unchanged', async () => {
    const res = await send(auth.url, { method: 'POST', path: '/v1/chat', headers: alice, body: '{"message": "nul \\u0000 here"}' });
    expect(res.status).toBe(200);
    const events = parseSse(res.text).events;
    expect(textOf(events)).toBe('You said: nul \u0000 here');
    const sessionId = (events[0]!.data as { sessionId: string }).sessionId;
    const history = await auth.deps.storage.sessions.history(sessionId);
    expect(history[0]).toEqual({ role: 'user', content: 'nul \u0000 here' });
  });

  it('HEAD runs and claims nothing: the turn is still pending, and a GET then streams it', async () => {
    const requestsBefore = upstream.requests.length;
    const head = await send(auth.url, { method: 'HEAD', path: stream(f.pending.turnId, f.pending.token) });
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toMatch(/^text\/event-stream/);
    expect((await auth.deps.storage.sessions.getTurn(f.pending.turnId))?.status).toBe('pending');
    expect(upstream.requests.length).toBe(requestsBefore);
    const events = await collectWithEventSource(auth.url + stream(f.pending.turnId, f.pending.token));
    expect(textOf(events)).toBe('You said: fixture');
    expect((await auth.deps.storage.sessions.getTurn(f.pending.turnId))?.status).toBe('finished');
  });
});
