// Hash routes (`#/runs?status=failed`, `#/run/<id>`, …): the server serves one page, every view
// is addressable, and the browser's back button works without server-side routing.
export interface Route {
  /** First path segment: runs, run, timeline, checkpoints, checkpoint, jobs, native. */
  view: string;
  /** Remaining path segments (e.g. a run id). */
  args: string[];
  query: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '');
  const [path = '', qs = ''] = raw.split('?', 2);
  const parts = path
    .split('/')
    .filter((p) => p !== '')
    .map(decodeURIComponent);
  return { view: parts[0] ?? 'runs', args: parts.slice(1), query: new URLSearchParams(qs) };
}

/** A route's query as views write it: an absent or empty value is left out; a list repeats its key. */
export type RouteQuery = Record<string, string | readonly string[] | undefined>;

export function routeHash(view: string, args: string[] = [], query: RouteQuery = {}): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) for (const one of typeof v === 'string' ? [v] : (v ?? [])) if (one !== '') qs.append(k, one);
  const path = [view, ...args.map(encodeURIComponent)].join('/');
  const s = qs.toString();
  return `#/${path}${s ? `?${s}` : ''}`;
}
