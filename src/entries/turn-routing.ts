// Which requests a Worker serves itself and which go to the Durable Object a turn runs in
// (turn-object.ts). Every reader of a turn must reach the object that runs it, since only there is the
// turn live; everything else stays in the Worker, which scales out freely.
// - Shared storage (Supabase): one object per turn, named by its id. The Worker creates turns
//   (POST /v1/turns) and serves everything that is not about one turn; a turn's stream, stop and the
//   decisions on its waiting calls (POST /v1/turns/:id/approvals/:approvalId) go to its object, where the
//   turn goes on. POST /v1/chat is both: the Worker creates the turn, then the turn's object streams it.
//   So are the useChat routes: POST /v1/ui/chat creates the chat's turn and GET /v1/ui/chat/:id/stream
//   finds its running one in the Worker (a handoff, http/handoff.ts), and the turn's object streams it;
//   a POST /v1/ui/chat answering an approval is checked in the Worker and then sent whole to the turn's
//   object, which decides and streams the continuation it runs.
// - Storage in memory: sessions and turns live in one isolate's memory, so one object ('local') owns
//   them and serves all of /v1/ (`wrangler dev`, demos). The Worker keeps /health and the pages.

import { FORWARD_HEADER, HANDOFF_HEADER, type TurnHandle } from '../http/handoff.ts';

export type Route =
  | { to: 'worker' }
  | { to: 'object'; name: string }
  /** POST /v1/chat with shared storage: the Worker creates the turn, the turn's object streams it. */
  | { to: 'chat' }
  /**
   * POST /v1/ui/chat and GET /v1/ui/chat/:id/stream with shared storage: the Worker creates the chat's
   * turn or finds its running one, the turn's object streams it as a UI message stream.
   */
  | { to: 'ui-chat' };

/** Whether a turn's state can be read from any isolate (Supabase) or only from the one that holds it (memory). */
export type StorageReach = 'shared' | 'isolate';

/** The one object that owns in-memory storage. */
export const LOCAL_OBJECT = 'local';

/** Turn ids are UUIDs; anything else stays in the Worker, whose app answers 404 without waking an object. */
const TURN_ROUTE = /^\/v1\/turns\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/(stream|stop|approvals\/[^/]+)$/i;
/** Where useChat({resume: true}) reattaches: the chat id is one path segment. */
const UI_RESUME_ROUTE = /^\/v1\/ui\/chat\/[^/]+\/stream$/;

export function routeFor(method: string, pathname: string, storage: StorageReach): Route {
  if (storage === 'isolate') return pathname.startsWith('/v1/') ? { to: 'object', name: LOCAL_OBJECT } : { to: 'worker' };
  if (method === 'POST' && pathname === '/v1/chat') return { to: 'chat' };
  if ((method === 'POST' && pathname === '/v1/ui/chat') || (method === 'GET' && UI_RESUME_ROUTE.test(pathname))) return { to: 'ui-chat' };
  const turn = TURN_ROUTE.exec(pathname);
  if (!turn) return { to: 'worker' };
  const [, id, action] = turn;
  // OPTIONS (a CORS preflight) and wrong methods are answered by the Worker's app like any other route.
  const forTurn = action === 'stream' ? method === 'GET' || method === 'HEAD' : method === 'POST';
  // One object per turn, whatever the case of the id in the URL.
  return forTurn ? { to: 'object', name: id!.toLowerCase() } : { to: 'worker' };
}

/** What the Worker uses of a Durable Object namespace binding. */
export interface ObjectNamespace {
  idFromName(name: string): unknown;
  get(id: never): { fetch(request: Request): Promise<Response> };
}

export interface DispatchOptions {
  storage: StorageReach;
  /** The Worker's own app. */
  serve: (request: Request) => Response | Promise<Response>;
  objects: ObjectNamespace;
}

/** Serves a request where routeFor says. The object sees the same request: URL, Host, auth headers. */
export async function dispatch(request: Request, options: DispatchOptions): Promise<Response> {
  const route = routeFor(request.method, new URL(request.url).pathname, options.storage);
  if (route.to === 'worker') return options.serve(request);
  if (route.to === 'object') return objectFor(options.objects, route.name).fetch(request);
  if (route.to === 'chat') return chatThroughObject(request, options);
  return uiChatThroughObject(request, options);
}

function objectFor(objects: ObjectNamespace, name: string) {
  return objects.get(objects.idFromName(name) as never);
}

/**
 * POST /v1/chat with shared storage: the turn is created here (POST /v1/turns with the same headers and
 * body, so the same checks and errors), then streamed by its object through the stream URL, the way an
 * EventSource would read it. The turn therefore runs in its object and survives this client leaving.
 */
async function chatThroughObject(request: Request, options: DispatchOptions): Promise<Response> {
  const created = await options.serve(withBody(request, new URL('/v1/turns', request.url), new Headers(request.headers)));
  if (created.status !== 201) return created;
  return streamFromObject(request, (await created.json()) as TurnHandle, options);
}

/**
 * The useChat routes with shared storage: the Worker's app makes the request's checks and creates the
 * chat's turn (POST) or finds its running one (GET), answering with the turn's handle since the request
 * asks for one (HANDOFF_HEADER); then the turn's object streams it in the UI message stream format.
 * Anything else the app answers (an error, 204: no running turn) goes back as it is, waking no object.
 */
async function uiChatThroughObject(request: Request, options: DispatchOptions): Promise<Response> {
  const headers = new Headers(request.headers);
  headers.set(HANDOFF_HEADER, '1');
  // An approval response is served by the turn's object, body and all: a copy of the body, read no
  // further than the app reads the original (it refuses a body past MAX_UI_BODY_BYTES).
  const copy = request.method === 'POST' ? request.clone() : undefined;
  const answered = await options.serve(withBody(request, new URL(request.url), headers));
  const forwardTo = answered.headers.get(FORWARD_HEADER);
  if (copy && forwardTo && answered.status === 200) {
    const own = new Headers(request.headers);
    own.delete(HANDOFF_HEADER);
    return objectFor(options.objects, forwardTo.toLowerCase()).fetch(withBody(copy, new URL(request.url), own));
  }
  void copy?.body?.cancel().catch(() => {});
  const isHandle = (answered.status === 200 || answered.status === 201) && answered.headers.get('content-type')?.startsWith('application/json');
  if (!isHandle) return answered;
  return streamFromObject(request, (await answered.json()) as TurnHandle, options);
}

/** The request sent on to the Worker's own app: its body, method and these headers, at `url`. */
function withBody(request: Request, url: URL, headers: Headers): Request {
  return new Request(url, {
    method: request.method,
    headers,
    body: request.body,
    // Required by Node's fetch for a streamed body; workerd ignores it.
    duplex: 'half',
  } as RequestInit);
}

/** The turn's stream, read from its object with the client's headers (its credentials, tracing), as a GET. */
function streamFromObject(request: Request, handle: TurnHandle, options: DispatchOptions): Promise<Response> {
  const headers = new Headers(request.headers);
  for (const name of ['content-type', 'content-length', 'last-event-id', HANDOFF_HEADER]) headers.delete(name);
  return objectFor(options.objects, handle.turnId.toLowerCase()).fetch(new Request(new URL(handle.streamUrl, request.url), { method: 'GET', headers }));
}
