// The seam between the local topup tool set and routing (remote hosts over SSH, named local
// sessions). The local tools only need to know "is this call for me, or for someone else?";
// everything about how another target is reached lives behind this interface (helper R's
// adapters/topup/routing/ implements it). Until routing is wired in, unroutedRouter() answers
// honestly that no other target is registered.
import { ToolError, ToolRegistry } from '../../src/index.js';
import type { ToolContext, CallToolResult } from '../../src/index.js';

export type RouteTarget = { kind: 'host'; host: string } | { kind: 'session'; session: string };

export interface TopupRouter {
  /** Management + transfer tools (and hidden blob tools) mounted into the topup tool set. */
  readonly tools: ToolRegistry;
  /** Forward a routable tool call (args without host/session); returns the remote result unchanged. */
  forward(target: RouteTarget, tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult>;
  /** A notifications/cancelled that named host/session but no live local request. */
  cancel(target: RouteTarget, params: Record<string, unknown>): Promise<void>;
  /** Lines for the initialize instructions: registered hosts and named sessions with descriptions. */
  describe(): string;
  /** Stop every child/tunnel (server shutdown). */
  close(): Promise<void>;
}

/** Human wording of a target, for error messages. */
export function describeTarget(target: RouteTarget): string {
  return target.kind === 'host' ? `host "${target.host}"` : `session "${target.session}"`;
}

/** The router used when routing is not wired in: nothing is registered besides the local toplevel. */
export function unroutedRouter(): TopupRouter {
  return {
    tools: new ToolRegistry(),
    async forward(target) {
      const how =
        target.kind === 'host'
          ? `start it with the start_session tool (host: "${target.host}")`
          : `start it with the start_local_session tool (session: "${target.session}")`;
      throw new ToolError(`${describeTarget(target)} is not registered; ${how}, or omit host/session to use the local toplevel`, {
        phase: 'route',
      });
    },
    async cancel() {
      // Nothing is registered, so there is nothing to interrupt.
    },
    describe() {
      return '';
    },
    async close() {},
  };
}
