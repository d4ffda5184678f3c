// GET /v1/models: OpenWebUI and other clients list the models before they chat. The answer is the
// upstream's own list (OPENAI_BASE_URL + /models, with the gateway's key), with GATEWAY_MODELS applied in
// reverse, so that a client sees the names it can send: each upstream model under every name that
// reaches it, its own name (unless GATEWAY_MODELS sends that name elsewhere, as a `*` entry does for
// every name it does not list) and each client name mapped to it. A model no name reaches is left out,
// and so is a client name whose model the upstream does not list. With GATEWAY_MODELS_ONLY a model is
// listed under the names GATEWAY_MODELS lists only (its own name too when it is listed). Without
// GATEWAY_MODELS the upstream's answer goes out as it came; its errors do in any case, as the chat
// completions' do.
import { jsonText } from 'rebound-gate/internal';
import { readBounded, type ChatEndpoint } from '../model/chat-post.ts';
import type { JsonResponse } from './gateway-response.ts';
import { modelAllowed, upstreamModel } from './request.ts';
import { openAIError } from './errors.ts';
import { listUpstreamModels } from './upstream.ts';

/** OpenRouter's list, the longest known, is a few MB with its descriptions. */
export const MAX_MODEL_LIST_BYTES = 16 * 1024 * 1024;

export interface ListModelsOptions {
  /** GATEWAY_MODELS: client name → upstream name; "*" maps every other name. */
  models: Record<string, string>;
  /** GATEWAY_MODELS_ONLY: only the names GATEWAY_MODELS lists. */
  only?: boolean;
  /** The client's request: its abort stops the upstream request. */
  signal: AbortSignal;
}

export async function listModels(upstream: ChatEndpoint, options: ListModelsOptions): Promise<JsonResponse> {
  const listed = await listUpstreamModels(upstream, options.signal);
  if (!listed.ok) return json(listed.status, listed.body, listed.headers);
  const { response } = listed;
  const contentType = response.headers.get('content-type') ?? 'application/json';
  if (Object.keys(options.models).length === 0)
    return { kind: 'json', status: response.status, headers: { 'content-type': contentType }, body: response.body ?? '' };

  const { text, whole } = await readBounded(response, MAX_MODEL_LIST_BYTES);
  if (!whole) return notAList(`it is larger than ${MAX_MODEL_LIST_BYTES / (1024 * 1024)} MB`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const mapped = clientModelList(parsed, options.models, options.only);
  if (!mapped) return notAList(`it answered ${text.trim() ? JSON.stringify(text.trim().slice(0, 200)) : 'nothing'}`);
  return json(200, mapped);
}

/** The upstream's list with the names a client can send, or null when `list` is not `{data: [...]}`. */
export function clientModelList(list: unknown, models: Record<string, string>, only = false): Record<string, unknown> | null {
  if (typeof list !== 'object' || list === null || !Array.isArray((list as { data?: unknown }).data)) return null;
  const data = (list as { data: unknown[] }).data.flatMap((entry) => {
    const id = typeof entry === 'object' && entry !== null ? (entry as { id?: unknown }).id : undefined;
    // Not a model a client could name: not the gateway's to judge, so passed on as it is.
    if (typeof id !== 'string') return [entry];
    return namesReaching(id, models)
      .filter((name) => modelAllowed(name, models, only))
      .map((name) => ({ ...(entry as object), id: name }));
  });
  return { ...list, data };
}

/** Every name a client can send that GATEWAY_MODELS turns into `id`: its own first, then the mapped ones in their order. */
function namesReaching(id: string, models: Record<string, string>): string[] {
  const names = upstreamModel(id, models) === id ? [id] : [];
  for (const [client, target] of Object.entries(models)) {
    if (client !== '*' && client !== id && target === id) names.push(client);
  }
  return names;
}

function notAList(what: string): JsonResponse {
  return json(
    502,
    openAIError({
      status: 502,
      code: 'upstream_error',
      message: `The upstream's GET /models answer is not a model list ({"object": "list", "data": [{"id": …}]}), so GATEWAY_MODELS cannot be applied to it: ${what}.`,
    }),
  );
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): JsonResponse {
  return { kind: 'json', status, headers: { ...headers, 'content-type': 'application/json' }, body: jsonText(body) };
}
