// Two refusals every request passes before any route runs, because the dashboard puts a browser
// next to this service:
// - DNS rebinding: a page on evil.example whose name is re-pointed at 127.0.0.1 reaches this port
//   with `Host: evil.example:6464`. Only the exact loopback address:port the service listens on is
//   accepted, so such a page never reads a run or starts a job.
// - Cross-site form posts: an HTML form (or a no-cors fetch) on any site can POST to 127.0.0.1,
//   but only with form/text content types (or none). Every mutating route takes JSON, so a POST
//   must say `content-type: application/json`; a browser sends that cross-site only after a CORS
//   preflight, which this service never grants.
import { ServiceError } from '../http/service-error.js';

/** The one Host value this service answers to (`127.0.0.1:<port>`). */
export function expectedHost(address: string, port: number): string {
  return `${address}:${port}`;
}

export function checkHost(hostHeader: string | undefined, expected: string): void {
  if ((hostHeader ?? '').toLowerCase() === expected) return;
  throw new ServiceError(
    'host_not_allowed',
    `Host header ${JSON.stringify(hostHeader ?? null)} refused; this service answers only to ${expected} (DNS-rebinding protection)`,
    403,
    { reason: 'host-not-allowed', expected_host: expected },
  );
}

/** Media type without parameters, lower case (`application/json; charset=utf-8` → `application/json`). */
function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function checkJsonBody(method: string, contentType: string | undefined): void {
  if (method !== 'POST') return;
  if (mediaType(contentType) === 'application/json') return;
  throw new ServiceError(
    'unsupported_content_type',
    `POST needs content-type: application/json; got ${JSON.stringify(contentType ?? null)} (cross-site form posts are refused)`,
    415,
    { reason: 'content-type', expected_content_type: 'application/json' },
  );
}
