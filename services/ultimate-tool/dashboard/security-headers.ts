// Response headers. JSON answers and dashboard assets both carry nosniff (a JSON body is never
// taken for script or HTML) and a CSP; the dashboard's CSP allows only its own files: no inline
// script or style, no eval, no third-party origin, images only from itself or data: (the
// screenshot arrives as base64 in the evidence JSON), fetches only to this origin, no framing.
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** For JSON: nothing in it may ever load or run anything. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

export function commonSecurityHeaders(csp: string): Record<string, string> {
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  };
}
