// subscriptions/listen (2026-07-28): the modern era's long-lived notification stream, which
// replaced resources/subscribe and the HTTP GET stream. The request stays in flight; the server
// acknowledges it (notifications/subscriptions/acknowledged, always first), then sends the change
// notifications the client opted in to, each tagged with the listen request's id in
// `_meta["io.modelcontextprotocol/subscriptionId"]` and related to that request (so Streamable
// HTTP writes them on its SSE stream). The client ends it by cancelling (stdio:
// notifications/cancelled; HTTP: closing the stream); the server ends it gracefully by answering
// the request (resultType complete, the subscription id in `_meta`).
import type { JsonRpcId } from '../../transports/transport.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { META } from './protocol-version.js';
import { isObject } from './request-scope.js';

/** The filter of a subscriptions/listen request (SubscriptionFilter in the schema). */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

const LIST_KINDS = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const;
const KINDS = [...LIST_KINDS, 'resourceSubscriptions'] as const;

/** The notification each list kind stands for. */
export const LIST_CHANGED_METHOD = {
  toolsListChanged: 'notifications/tools/list_changed',
  promptsListChanged: 'notifications/prompts/list_changed',
  resourcesListChanged: 'notifications/resources/list_changed',
} as const;

/** What this server can deliver on a listen stream (from the capabilities it advertises). */
export interface ListenSupport {
  toolsListChanged: boolean;
  promptsListChanged: boolean;
  resourcesListChanged: boolean;
  /** Resource subscriptions (capabilities.resources.subscribe); `has` says whether a URI names a resource. */
  resources?: { has(uri: string): boolean };
}

/**
 * Read `params.notifications` and narrow it to what the server supports. Malformed filters, unknown
 * kinds, URIs that name no resource, and filters of which nothing can be delivered are -32602,
 * naming what was expected. A kind the server does not offer (e.g. promptsListChanged on a server
 * without prompts) is left out of the honored filter, as the spec asks, when something else is.
 */
export function honoredFilter(params: Record<string, unknown>, support: ListenSupport): SubscriptionFilter {
  const requested = params.notifications;
  if (!isObject(requested)) {
    throw new RpcError(
      ErrorCode.InvalidParams,
      `Invalid params: subscriptions/listen needs "notifications", an object with any of ${KINDS.join(', ')}`,
    );
  }
  const unknown = Object.keys(requested).filter((k) => !(KINDS as readonly string[]).includes(k));
  if (unknown.length) {
    throw new RpcError(
      ErrorCode.InvalidParams,
      `Invalid params: unknown subscription kind${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(k)).join(', ')} in "notifications"; known kinds: ${KINDS.join(', ')}`,
    );
  }
  const honored: SubscriptionFilter = {};
  for (const kind of LIST_KINDS) {
    const v = requested[kind];
    if (v === undefined) continue;
    if (typeof v !== 'boolean') throw new RpcError(ErrorCode.InvalidParams, `Invalid params: notifications.${kind} must be a boolean`);
    if (v && support[kind]) honored[kind] = true;
  }
  const uris = requested.resourceSubscriptions;
  if (uris !== undefined) {
    if (!Array.isArray(uris) || !uris.every((u) => typeof u === 'string')) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        'Invalid params: notifications.resourceSubscriptions must be an array of resource URIs (strings)',
      );
    }
    if (uris.length && support.resources) {
      const missing = uris.filter((u) => !support.resources!.has(u));
      if (missing.length) {
        throw new RpcError(
          ErrorCode.InvalidParams,
          `Invalid params: no resource ${missing.map((u) => JSON.stringify(u)).join(', ')} on this server to subscribe to (resources/list and resources/templates/list name what there is)`,
          { uris: missing },
        );
      }
      honored.resourceSubscriptions = [...new Set(uris as string[])];
    }
  }
  if (Object.keys(honored).length === 0) {
    const offered = [...LIST_KINDS.filter((k) => support[k]), ...(support.resources ? ['resourceSubscriptions'] : [])];
    throw new RpcError(
      ErrorCode.InvalidParams,
      `Invalid params: this subscriptions/listen asks for nothing this server sends; it offers ${offered.join(', ') || 'no subscriptions at all'}`,
      { supported: offered },
    );
  }
  return honored;
}

/** One open subscriptions/listen request on a session. */
export class Listen {
  private ended = false;
  private finish!: (result: Record<string, unknown> | undefined) => void;
  /** Settles with the graceful result (server ended it) or undefined (cancelled: no answer goes out). */
  readonly done = new Promise<Record<string, unknown> | undefined>((resolve) => {
    this.finish = resolve;
  });
  private readonly cleanups: Array<() => void> = [];

  constructor(
    readonly id: JsonRpcId,
    readonly filter: SubscriptionFilter,
    private readonly send: (method: string, params: Record<string, unknown>) => void,
  ) {}

  /** The first message of the subscription. */
  acknowledge(): void {
    this.notify('notifications/subscriptions/acknowledged', { notifications: this.filter });
  }

  /** Send one notification on this subscription (tagged with its id). */
  notify(method: string, params: Record<string, unknown> = {}): void {
    if (this.ended) return;
    this.send(method, { ...params, _meta: { ...(isObject(params._meta) ? params._meta : {}), [META.subscriptionId]: this.id } });
  }

  /** A change in a list the filter names. */
  listChanged(kind: keyof typeof LIST_CHANGED_METHOD): void {
    if (this.filter[kind]) this.notify(LIST_CHANGED_METHOD[kind]);
  }

  resourceUpdated(uri: string): void {
    if (this.filter.resourceSubscriptions?.includes(uri)) this.notify('notifications/resources/updated', { uri });
  }

  onEnd(cleanup: () => void): void {
    this.cleanups.push(cleanup);
  }

  /** End it: gracefully (the server answers the request) or because it was cancelled (no answer). */
  end(graceful: boolean): void {
    if (this.ended) return;
    this.ended = true;
    for (const c of this.cleanups.splice(0)) c();
    this.finish(graceful ? { _meta: { [META.subscriptionId]: this.id } } : undefined);
  }
}
