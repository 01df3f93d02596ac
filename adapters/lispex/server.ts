// `lispex mcp serve`: the Lispex tools over stdio (or Streamable HTTP with --http), MCP 2025-11-25, tools only.

import { McpServer, packageVersion } from '../../src/index.js';
import { HTTP_OPTIONS_HELP, StdioServerTransport, serveHttpForCli, takeHttpOption, type HttpCliFlags } from '../../transports/index.js';
import { UsageError } from '../../common/usage-error.js';
import { LispexHost } from '../../engines/lispex/host/index.js';
import { FIXED_BOUNDS } from './bounds.js';
import { COURTS, courtAvailability } from './courts.js';
import { parseStartupProducts, type StartupProducts } from './products.js';
import { createLispexTools, type EvaluationHost } from './tools.js';

/** The one protocol version of the contract. */
export const LISPEX_PROTOCOL_VERSIONS = ['2025-11-25'] as const;

export const LISPEX_SERVER_NAME = 'mcp-engines-lispex';

export interface LispexServerOptions {
  readonly products: StartupProducts;
  /** Evaluation host; by default a LispexHost with the contract's wall clock. */
  readonly host?: EvaluationHost;
  /** Shorter whole-comparison wall clock (tests); the contract's 660,000 ms is the maximum. */
  readonly comparisonWallClockMs?: number;
}

function instructions(products: StartupProducts): string {
  const available = COURTS.filter((c) => courtAvailability(c.court, products).available).map((c) => c.court);
  return [
    'Lispex 1.5 (lispex-profile-1.5) on the lispex-mcp-local-authoring/v1 resource profile.',
    'lispex_reference answers forms, procedures, reader, resources and routes; lispex_diagnostic explains a code;',
    `lispex_eval runs source on the tree route (wall clock ${FIXED_BOUNDS.evalWallClockMs} ms);`,
    `lispex_compare_routes runs a closed court (available here: ${available.join(', ')}).`,
    'Trusted source only: this server is not a sandbox for adversarial programs. Source is never retained.',
  ].join(' ');
}

/**
 * The Lispex MCP server: an McpServer whose close() also stops the evaluation host's workers when
 * the server created the host (a host passed in by the embedder stays the embedder's to close).
 */
export class LispexServer extends McpServer {
  constructor(
    readonly host: EvaluationHost & { close?: () => Promise<void> },
    private readonly ownsHost: boolean,
    options: LispexServerOptions,
  ) {
    super({
      name: LISPEX_SERVER_NAME,
      title: 'mcp-engines Lispex',
      version: packageVersion(),
      protocolVersions: LISPEX_PROTOCOL_VERSIONS,
      instructions: instructions(options.products),
      tools: createLispexTools({
        host,
        products: options.products,
        ...(options.comparisonWallClockMs !== undefined ? { comparisonWallClockMs: options.comparisonWallClockMs } : {}),
      }),
    });
  }

  override async close(): Promise<void> {
    await super.close();
    if (this.ownsHost) await this.host.close?.();
  }
}

export function createLispexServer(options: LispexServerOptions): LispexServer {
  const host = options.host ?? new LispexHost({ wallClockMs: FIXED_BOUNDS.evalWallClockMs, inline: true });
  return new LispexServer(host, options.host === undefined, options);
}

export const SERVE_HELP = `Usage: lispex mcp serve [--topaz-vm PATH] [--topaz-compiler PATH --rust-tools PATH]
                        [--http [HOST:]PORT [--http-token-file PATH]]

Serve the Lispex MCP tools (lispex_reference, lispex_eval, lispex_diagnostic,
lispex_compare_routes) over stdio, protocol 2025-11-25, tools only.

Options (each an absolute path to an existing executable, validated before start):
  --topaz-vm PATH          the Topaz VM product (courts rust-topaz, all-four)
  --topaz-compiler PATH    the Topaz AOT compiler (court all-four; needs --rust-tools)
  --rust-tools PATH        the rustc it builds with (court all-four; needs --topaz-compiler)
Products must answer the lispex.external-backend-protocol/v1 handshake. Built by setup:
dist/products/topaz-vm, dist/products/topaz-compiler, and the rustc named in
dist/products/topaz-runtime/RUSTC. No product is ever discovered through PATH or the environment.

HTTP (instead of stdio):
${HTTP_OPTIONS_HELP}
`;

/**
 * Validate the startup options (throws StartupOptionError before anything starts), then serve
 * one stdio session. Resolves when the client disconnects and every worker has stopped.
 */
export async function serveLispexMcp(argv: readonly string[]): Promise<void> {
  const http: HttpCliFlags = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const used = takeHttpOption(argv, i, http);
    if (used >= 0) i = used;
    else rest.push(argv[i]!);
  }
  if (http.tokenFile !== undefined && !http.http) throw new UsageError('--http-token-file goes with --http [HOST:]PORT');
  const products = parseStartupProducts(rest);
  const server = createLispexServer({ products });
  if (http.http) {
    const listener = await serveHttpForCli({
      command: 'lispex mcp serve',
      flags: { ...http, http: http.http },
      connect: (t) => server.connect(t),
    });
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await listener.close();
    await server.close();
    return;
  }
  const session = await server.connect(new StdioServerTransport());
  await new Promise<void>((resolve) => {
    session.onClose(resolve);
    const stop = (): void => void session.close();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
}
