// Which requests a Worker serves itself and which go to the Durable Object a turn runs in
// (turn-object.ts). Every reader of a turn must reach the object that runs it, since only there is the
// turn live; everything else stays in the Worker, which scales out freely.
// - Shared storage (Supabase): one object per turn, named by its id. The Worker creates turns
//   (POST /v1/turns) and serves everything that is not about one turn; a turn's stream and stop go to
//   its object. POST /v1/chat is both: the Worker creates the turn, then the turn's object streams it.
// - Storage in memory: sessions and turns live in one isolate's memory, so one object ('local') owns
//   them and serves all of /v1/ (`wrangler dev`, demos). The Worker keeps /health and the pages.

export type Route =
  | { to: 'worker' }
  | { to: 'object'; name: string }
  /** POST /v1/chat with shared storage: the Worker creates the turn, the turn's object streams it. */
  | { to: 'chat' };

/** Whether a turn's state can be read from any isolate (Supabase) or only from the one that holds it (memory). */
export type StorageReach = 'shared' | 'isolate';

/** The one object that owns in-memory storage. */
export const LOCAL_OBJECT = 'local';

/** Turn ids are UUIDs; anything else stays in the Worker, whose app answers 404 without waking an object. */
const TURN_ROUTE = /^\/v1\/turns\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/(stream|stop)$/i;

export function routeFor(method: string, pathname: string, storage: StorageReach): Route {
  if (storage === 'isolate') return pathname.startsWith('/v1/') ? { to: 'object', name: LOCAL_OBJECT } : { to: 'worker' };
  if (method === 'POST' && pathname === '/v1/chat') return { to: 'chat' };
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
  return chatThroughObject(request, options);
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
  const url = new URL(request.url);
  const create = new Request(new URL('/v1/turns', url), {
    method: 'POST',
    headers: request.headers,
    body: request.body,
    // Required by Node's fetch for a streamed body; workerd ignores it.
    duplex: 'half',
  } as RequestInit);
  const created = await options.serve(create);
  if (created.status !== 201) return created;
  const { turnId, streamUrl } = (await created.json()) as { turnId: string; streamUrl: string };
  const headers = new Headers(request.headers);
  for (const name of ['content-type', 'content-length', 'last-event-id']) headers.delete(name);
  return objectFor(options.objects, turnId.toLowerCase()).fetch(new Request(new URL(streamUrl, url), { method: 'GET', headers }));
}
