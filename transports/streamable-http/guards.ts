import type { IncomingMessage } from 'node:http';
import { timingSafeEqual, createHash } from 'node:crypto';

/** Addresses that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** The Host names a loopback server answers to by default (and the bound address itself). */
export function loopbackHostnames(bound?: string): string[] {
  const names = ['localhost', '127.0.0.1', '[::1]'];
  if (bound) {
    const b = bound.includes(':') && !bound.startsWith('[') ? `[${bound}]` : bound.toLowerCase();
    if (!names.includes(b)) names.push(b);
  }
  return names;
}

/** The host part of a Host header ("[::1]:8080" → "[::1]", "Example.com:80" → "example.com"). */
export function hostnameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end < 0 ? h : h.slice(0, end + 1);
  }
  const colon = h.indexOf(':');
  return colon < 0 ? h : h.slice(0, colon);
}

/**
 * DNS rebinding: a page on evil.example whose name resolves to 127.0.0.1 reaches a loopback
 * server with `Host: evil.example`. Exactly one Host header is required (two could let a proxy
 * and this server see different hosts), and with a list its name must be on it.
 */
export function checkHost(req: IncomingMessage, allowed: readonly string[] | undefined): { status: number; message: string } | undefined {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'host') count++;
  if (count !== 1) {
    return { status: 400, message: `Bad Request: expected exactly one Host header, got ${count}` };
  }
  if (!allowed) return undefined;
  const name = hostnameOf(req.headers.host ?? '');
  if (allowed.includes(name)) return undefined;
  return {
    status: 403,
    message: `Forbidden: Host ${JSON.stringify(req.headers.host)} is not one this server answers to (${allowed.join(', ')})`,
  };
}

/**
 * Origin: a browser sends it on cross-origin requests. If present, it must be a loopback origin
 * or one of `allowed` (spec: "If the Origin header is present and invalid, servers MUST respond
 * with HTTP 403 Forbidden"). Returns what is wrong, or undefined.
 */
export function checkOrigin(origin: string | string[] | undefined, allowed: readonly string[] | undefined): string | undefined {
  if (origin === undefined) return undefined;
  const value = Array.isArray(origin) ? origin.join(', ') : origin;
  if (allowed?.includes(value)) return undefined;
  try {
    const url = new URL(value);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname)) return undefined;
  } catch {
    // not a URL ("null", garbage): refused below
  }
  return `Forbidden: Origin ${JSON.stringify(value)} is not allowed${allowed?.length ? ` (allowed: loopback origins, ${allowed.join(', ')})` : ' (only loopback origins are)'}`;
}

export type AuthOutcome = { ok: true; authInfo?: unknown } | { ok: false; reason: string; challenge: string };

/** Decides whether an HTTP request may reach the server; `authInfo` travels with its messages. */
export interface BearerAuth {
  check(req: IncomingMessage): AuthOutcome | Promise<AuthOutcome>;
}

export interface BearerAuthOptions {
  /** The token's check: return the caller's auth info (anything but undefined/false), or undefined/false to refuse. */
  verify(token: string, req: IncomingMessage): unknown;
  /** realm of the WWW-Authenticate challenge (default "mcp"). */
  realm?: string;
  /** RFC 9728 protected-resource metadata URL, named in the challenge so OAuth clients can find it. */
  resourceMetadataUrl?: string;
}

/** A bearer-token check (RFC 6750): 401 with a WWW-Authenticate challenge when the token is missing or refused. */
export function bearerAuth(options: BearerAuthOptions): BearerAuth {
  const params = [`realm="${options.realm ?? 'mcp'}"`];
  if (options.resourceMetadataUrl) params.push(`resource_metadata="${options.resourceMetadataUrl}"`);
  const base = `Bearer ${params.join(', ')}`;
  return {
    async check(req) {
      const header = req.headers.authorization;
      const m = header ? /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header) : null;
      if (!m) {
        return {
          ok: false,
          reason: header
            ? 'the Authorization header is not "Bearer <token>"'
            : 'a bearer token is required (Authorization: Bearer <token>)',
          challenge: base,
        };
      }
      const info = await options.verify(m[1]!, req);
      if (info === undefined || info === false || info === null) {
        return {
          ok: false,
          reason: 'the bearer token was refused',
          challenge: `${base}, error="invalid_token", error_description="the token was refused"`,
        };
      }
      return { ok: true, authInfo: info };
    },
  };
}

/**
 * One fixed secret token (e.g. from a file or an environment variable), compared in constant
 * time. Its auth info is `{ token: 'static' }` (never the token itself).
 */
export function staticBearerToken(token: string, options: Omit<BearerAuthOptions, 'verify'> = {}): BearerAuth {
  if (token.length < 16) throw new Error('a bearer token must be at least 16 characters long');
  const expected = createHash('sha256').update(token).digest();
  return bearerAuth({
    ...options,
    verify: (given) => (timingSafeEqual(createHash('sha256').update(given).digest(), expected) ? { token: 'static' } : undefined),
  });
}
