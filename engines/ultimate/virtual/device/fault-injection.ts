// Fault injection for the virtual device's REST service, for tests of fail-closed behaviour:
// `faultsFor(device).failNext({ method, path })` makes the next matching request answer with an
// error status (default 503) instead of reaching the route. Kept in a WeakMap so the device
// classes carry no test-only fields; the HTTP server calls `takeFault` once per request.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface FaultSpec {
  method?: string;
  /** Matches when the request path starts with this (e.g. "/v1/machine:debugreg"). */
  path?: string;
  status?: number;
  /** How many matching requests fail (default 1). */
  times?: number;
}

export class FaultInjector {
  readonly #pending: Array<Required<Pick<FaultSpec, 'status' | 'times'>> & FaultSpec> = [];
  /** Requests answered with an injected fault so far. */
  injected = 0;

  failNext(spec: FaultSpec = {}): void {
    this.#pending.push({ ...spec, status: spec.status ?? 503, times: spec.times ?? 1 });
  }

  /** The status to answer with when this request is to fail, else undefined. */
  take(method: string, path: string): number | undefined {
    const f = this.#pending.find((p) => (!p.method || p.method === method) && (!p.path || path.startsWith(p.path)));
    if (!f) return undefined;
    if (--f.times <= 0) this.#pending.splice(this.#pending.indexOf(f), 1);
    this.injected++;
    return f.status;
  }
}

const registry = new WeakMap<object, FaultInjector>();

export function faultsFor(device: object): FaultInjector {
  let f = registry.get(device);
  if (!f) {
    f = new FaultInjector();
    registry.set(device, f);
  }
  return f;
}

/** The hook in the HTTP server: answers an injected fault and returns true, or returns false. */
export function takeFault(device: object, req: IncomingMessage, res: ServerResponse): boolean {
  const path = new URL(req.url ?? '/', 'http://virtual').pathname;
  const status = registry.get(device)?.take(req.method ?? 'GET', path);
  if (status === undefined) return false;
  req.resume();
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ errors: ['Injected fault.'] }));
  return true;
}
