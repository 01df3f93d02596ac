// The dashboard's only way to data: GET requests to the service's public /v13 JSON API — the same
// routes the MCP adapter calls. Same origin, so no CORS and no credentials are involved.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type Query = Record<string, string | number | undefined>;

export function apiPath(path: string, query: Query = {}): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') qs.set(k, String(v));
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}

export async function getJson<T>(path: string, query: Query = {}): Promise<T> {
  const r = await fetch(apiPath(path, query), { headers: { accept: 'application/json' } });
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
