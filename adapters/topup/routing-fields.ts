// The optional host/session fields every routable tool accepts, and what they resolve to.
import { z } from 'zod';
import { ToolError } from '../../src/index.js';
import type { RouteTarget } from './router.js';

export const routingFields = {
  host: z
    .string()
    .min(1)
    .optional()
    .describe('route to a registered remote host (started with start_session); "local" or absent: this toplevel'),
  session: z
    .string()
    .min(1)
    .optional()
    .describe('route to a named local session (started with start_local_session); "local" or absent: this toplevel'),
};

/** null: the local toplevel. Both fields given is refused: they name different places. */
export function routeOf(args: { host?: string; session?: string }): RouteTarget | null {
  const host = args.host === 'local' ? undefined : args.host;
  const session = args.session === 'local' ? undefined : args.session;
  if (args.host !== undefined && args.session !== undefined) {
    throw new ToolError(
      `host ("${args.host}") and session ("${args.session}") are mutually exclusive; pass at most one (omit both for the local toplevel)`,
      { phase: 'route' },
    );
  }
  if (host !== undefined) return { kind: 'host', host };
  if (session !== undefined) return { kind: 'session', session };
  return null;
}

/** The arguments to forward: everything but the routing fields. */
export function withoutRouting(args: Record<string, unknown>): Record<string, unknown> {
  const { host: _h, session: _s, ...rest } = args;
  return rest;
}
