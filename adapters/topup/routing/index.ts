// topup routing: named local sessions, remote toplevels over SSH, file transfer.
import { SessionRouter, type SessionRouterOptions } from './router.js';

export { SessionRouter, type SessionRouterOptions } from './router.js';
export { DEFAULT_REMOTE_SOCKET } from './remote-host.js';
export { DEFAULT_XFER_MAX_BYTES } from './transfer-policy.js';
export type { ChildCommand } from './local-session.js';

/** The router topup's server uses to reach named local sessions and remote hosts. */
export function createSessionRouter(options: SessionRouterOptions = {}): SessionRouter {
  return new SessionRouter(options);
}
