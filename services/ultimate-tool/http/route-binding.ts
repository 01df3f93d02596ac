// Binding the service's handlers to the route table (api/routes.ts): the table says which routes
// exist and where; each route family supplies its handlers by route name, and the type below
// insists on a handler for every route. A handler receives the path's captured segments (m[1], …,
// in the order the template names them), the parsed URL and the JSON body.
import { pathMatcher, type RouteName } from '../api/paths.js';
import { ROUTE_LIST, type RouteSpec } from '../api/routes.js';

export type Reply = { status: number; body: Record<string, unknown> };
export type RouteHandler = (m: RegExpExecArray, url: URL, body: unknown) => Promise<Reply> | Reply;
export type RouteHandlers<K extends RouteName = RouteName> = { readonly [N in K]: RouteHandler };

export interface BoundRoute {
  readonly spec: RouteSpec;
  readonly method: string;
  readonly re: RegExp;
  readonly handler: RouteHandler;
}

/** Every route of the table with its handler, in the table's matching order. */
export function bindRoutes(handlers: RouteHandlers): BoundRoute[] {
  return ROUTE_LIST.map((spec) => ({ spec, method: spec.method, re: pathMatcher(spec.path), handler: handlers[spec.name] }));
}
