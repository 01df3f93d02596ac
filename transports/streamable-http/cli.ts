import { readFile, stat } from 'node:fs/promises';
import { UsageError } from '../../common/usage-error.js';
import type { Logger } from '../../common/logger.js';
import { isLoopbackHost, staticBearerToken } from './guards.js';
import { serveStreamableHttp, type StreamableHttpListener } from './server.js';
import type { StreamableHttpServerTransport } from './server-transport.js';

/** The environment variable that holds the bearer token when no --http-token-file is given. */
export const HTTP_TOKEN_ENV = 'MCP_ENGINES_HTTP_TOKEN';

/** What the bins' `--http [HOST:]PORT` and `--http-token-file PATH` options collected. */
export interface HttpCliFlags {
  http?: { host: string; port: number };
  tokenFile?: string;
}

export const HTTP_OPTIONS_HELP = `  --http [HOST:]PORT     serve MCP over Streamable HTTP at http://HOST:PORT/mcp instead of stdio
                         (HOST defaults to 127.0.0.1; PORT 0 picks a free port). Any other host
                         than loopback needs a bearer token.
  --http-token-file PATH a file holding the bearer token clients must send (Authorization:
                         Bearer <token>); or set ${HTTP_TOKEN_ENV}. At least 16 characters.`;

/** "8080", "127.0.0.1:8080", "[::1]:8080", "0.0.0.0:8080" → host and port. */
export function parseHttpAddress(value: string): { host: string; port: number } {
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[2]) : Number.NaN;
  if (!m || port > 65535) {
    throw new UsageError(`--http needs [HOST:]PORT, e.g. --http 8080 or --http 127.0.0.1:8080; got ${JSON.stringify(value)}`);
  }
  const host = m[1] ? m[1].replace(/^\[|\]$/g, '') : '127.0.0.1';
  return { host, port };
}

/**
 * If `argv[i]` is one of the HTTP options, record it in `flags` and return the index of the last
 * argument it used; otherwise return -1. The adapters' own argument loops call this first.
 */
export function takeHttpOption(argv: readonly string[], i: number, flags: HttpCliFlags): number {
  const a = argv[i]!;
  for (const name of ['--http', '--http-token-file'] as const) {
    if (a !== name && !a.startsWith(`${name}=`)) continue;
    const inline = a.startsWith(`${name}=`);
    const value = inline ? a.slice(name.length + 1) : argv[i + 1];
    if (value === undefined || value === '') {
      throw new UsageError(name === '--http' ? '--http needs [HOST:]PORT, e.g. --http 8080' : '--http-token-file needs a path');
    }
    if (name === '--http') flags.http = parseHttpAddress(value);
    else flags.tokenFile = value;
    return inline ? i : i + 1;
  }
  return -1;
}

/** The token: the file's first line (a file others can read is refused), else the environment. */
export async function loadHttpToken(tokenFile: string | undefined, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (tokenFile !== undefined) {
    let text: string;
    try {
      const info = await stat(tokenFile);
      if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) {
        throw new UsageError(
          `--http-token-file ${tokenFile} is readable by others (mode ${(info.mode & 0o777).toString(8)}); chmod 600 it`,
        );
      }
      text = await readFile(tokenFile, 'utf8');
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(`--http-token-file ${tokenFile}: ${(err as Error).message}`);
    }
    const token = text.split(/\r?\n/)[0]!.trim();
    if (!token) throw new UsageError(`--http-token-file ${tokenFile} is empty`);
    return token;
  }
  const fromEnv = env[HTTP_TOKEN_ENV]?.trim();
  return fromEnv ? fromEnv : undefined;
}

export interface ServeHttpCliOptions {
  /** The command's name, for messages. */
  command: string;
  flags: HttpCliFlags & { http: { host: string; port: number } };
  connect: (transport: StreamableHttpServerTransport) => unknown;
  /** A server that runs code (topup) is never served without a token, even on loopback. */
  requireToken?: boolean;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
}

/**
 * Serve a bin's server over Streamable HTTP with the bins' rules: loopback only unless a token is
 * configured; a server that runs code only with a token. Announces the URL on stderr.
 */
export async function serveHttpForCli(options: ServeHttpCliOptions): Promise<StreamableHttpListener> {
  const { host, port } = options.flags.http;
  const token = await loadHttpToken(options.flags.tokenFile, options.env ?? process.env);
  if (!token && options.requireToken) {
    throw new UsageError(
      `${options.command} runs code, so --http needs a bearer token: --http-token-file PATH (a file only you can read) or ${HTTP_TOKEN_ENV}`,
    );
  }
  if (!token && !isLoopbackHost(host)) {
    throw new UsageError(
      `--http ${host}:${port} is reachable from other machines; configure a bearer token (--http-token-file PATH or ${HTTP_TOKEN_ENV}) or serve on loopback (--http 127.0.0.1:${port})`,
    );
  }
  let auth: ReturnType<typeof staticBearerToken> | undefined;
  try {
    auth = token ? staticBearerToken(token) : undefined;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const listener = await serveStreamableHttp({ connect: options.connect, host, port, auth, logger: options.logger });
  process.stderr.write(`${options.command}: serving MCP on ${listener.url}${auth ? ' (bearer token required)' : ''}\n`);
  return listener;
}
