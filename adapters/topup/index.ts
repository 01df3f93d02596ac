// topup: the MCP tool set over the OCaml toplevel engine.
export { createTopupServer, TopupServer, TOPUP_NAME, TOPUP_VERSION, TOPUP_PROTOCOL_VERSION, type TopupServerOptions } from './server.js';
export { localTools, type LocalToolsOptions } from './local-tools.js';
export { unroutedRouter, describeTarget, type RouteTarget, type TopupRouter } from './router.js';
export { routeOf, routingFields, withoutRouting } from './routing-fields.js';
export { runTopupCli, topupHelp, TOPUP_HELP, type TopupCliOptions, type TopupCommand } from './cli.js';
