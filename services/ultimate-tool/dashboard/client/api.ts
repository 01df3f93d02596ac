// The dashboard's only way to data: requests to the service's public /v13 JSON API — the same
// routes the MCP adapter calls. Same origin, so no CORS and no credentials are involved. Every
// request is a GET except three, each behind a button: cancelling a job (cancelJob below), and
// starting a suite job (a probe first when it includes the Ultimate: postRoute). They take the
// same checks as from any client: the device's confirmations are the user's ticked box, counted.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

import { ROUTE_PATHS, type RouteName, fillPath } from '../../api/paths.js';

export type Query = Record<string, string | number | undefined>;

export function apiPath(path: string, query: Query = {}): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') qs.set(k, String(v));
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}

export async function getJson<T>(path: string, query: Query = {}): Promise<T> {
  const r = await fetch(apiPath(path, query), { headers: { accept: 'application/json' } });
  return answer<T>(r, path);
}

async function answer<T>(r: Response, path: string): Promise<T> {
  let body: unknown;
  try {
    body = await r.json();
  } catch {
    throw new ApiError(r.status, 'not-json', `${path}: the answer (HTTP ${r.status}) is not JSON`);
  }
  if (!r.ok) {
    const e = (body as { error?: { code?: string; message?: string } }).error;
    throw new ApiError(r.status, e?.code ?? 'unknown', e?.message ?? `HTTP ${r.status}`);
  }
  return body as T;
}

/** GET one route of the API's route table (api/paths.ts) by name, with its path parameters. */
export function getRoute<T>(name: RouteName, params: Record<string, string> = {}, query: Query = {}): Promise<T> {
  return getJson<T>(fillPath(ROUTE_PATHS[name].path, params), query);
}

/** Cancel a job: its cancel route with an empty JSON body. */
export function cancelJob<T>(jobId: string): Promise<T> {
  return postRoute<T>('cancelJob', {}, { job_id: jobId });
}

/** POST one route of the route table with a JSON body (the service refuses any other content type). */
export async function postRoute<T>(name: RouteName, body: unknown, params: Record<string, string> = {}): Promise<T> {
  const route = ROUTE_PATHS[name];
  const path = fillPath(route.path, params);
  const r = await fetch(path, {
    method: route.method,
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return answer<T>(r, path);
}
