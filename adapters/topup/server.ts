// The topup MCP server: the local toplevel's tools plus whatever the router contributes
// (management, transfer and hidden blob tools), protocol 2024-11-05, instructions recomputed at
// every initialize so newly registered hosts and sessions are advertised.
import { McpServer, ToolRegistry } from '../../src/index.js';
import type { JsonRpcId, ToolContext } from '../../src/index.js';
import { OcamlToplevel, type OcamlToplevelOptions } from '../../engines/ocaml/index.js';
import { localTools } from './local-tools.js';
import { unroutedRouter, type RouteTarget, type TopupRouter } from './router.js';

export const TOPUP_NAME = 'topup';
export const TOPUP_VERSION = '0.1.0';
export const TOPUP_PROTOCOL_VERSION = '2024-11-05';

export interface TopupServerOptions {
  router?: TopupRouter;
  /** The local toplevel; created with `engineOptions` when absent. */
  engine?: OcamlToplevel;
  engineOptions?: OcamlToplevelOptions;
}

const BASE_INSTRUCTIONS = `topup drives a persistent OCaml toplevel (bindings survive across calls).
Use eval for phrases, eval_batch for many small ones, env/lookup to recall the workspace, checkpoint/restore to branch, compile_to_binary to promote the session to a native program. #require "pkg" loads findlib packages.
Every tool except the host/session management tools accepts host or session (at most one) to run on a remote host or named local session instead of this local toplevel ("local" or absent).`;

export class TopupServer extends McpServer {
  /** Request ids of routable calls in flight, so notifications/cancelled can tell which it names. */
  private readonly live = new Map<JsonRpcId, number>();

  constructor(
    readonly engine: OcamlToplevel,
    readonly router: TopupRouter,
  ) {
    const tools = new ToolRegistry();
    super({
      name: TOPUP_NAME,
      version: TOPUP_VERSION,
      protocolVersions: [TOPUP_PROTOCOL_VERSION],
      tools,
      instructions: () => {
        const targets = router.describe().trim();
        return `${BASE_INSTRUCTIONS}\n\n${
          targets
            ? `Registered routing targets:\n${targets}`
            : 'No remote hosts or named local sessions are registered (start_session / start_local_session register them).'
        }`;
      },
      onCancelled: (params) => this.cancelled(params),
    });
    tools.mount(localTools({ engine, router, track: (ctx, run) => this.track(ctx, run) }));
    tools.mount(router.tools);
  }

  private async track<T>(ctx: ToolContext, run: () => Promise<T>): Promise<T> {
    const id = ctx.requestId;
    this.live.set(id, (this.live.get(id) ?? 0) + 1);
    try {
      return await run();
    } finally {
      const n = (this.live.get(id) ?? 1) - 1;
      if (n <= 0) this.live.delete(id);
      else this.live.set(id, n);
    }
  }

  /**
   * A cancellation naming a live call was already delivered through that call's signal (the
   * core aborts it; a routed call forwards it). Otherwise: host/session → the router; neither →
   * interrupt the local eval, whatever request started it.
   */
  private cancelled(params: Record<string, unknown>): void {
    const id = params.requestId as JsonRpcId | undefined;
    if (id !== undefined && this.live.has(id)) return;
    const target = cancelTarget(params);
    if (target) {
      this.router.cancel(target, params).catch((err: Error) => this.log.warn(`routed cancel failed: ${err.message}`));
    } else {
      this.engine.cancel();
    }
  }

  /** Stop the router's children and the local toplevel. */
  async shutdown(): Promise<void> {
    await this.close().catch(() => {});
    await this.router.close().catch((err: Error) => this.log.warn(`router close failed: ${err.message}`));
    await this.engine.close();
  }
}

function cancelTarget(params: Record<string, unknown>): RouteTarget | null {
  const host = typeof params.host === 'string' && params.host !== 'local' ? params.host : undefined;
  const session = typeof params.session === 'string' && params.session !== 'local' ? params.session : undefined;
  if (host) return { kind: 'host', host };
  if (session) return { kind: 'session', session };
  return null;
}

export function createTopupServer(opts: TopupServerOptions = {}): TopupServer {
  const engine = opts.engine ?? new OcamlToplevel(opts.engineOptions);
  return new TopupServer(engine, opts.router ?? unroutedRouter());
}
