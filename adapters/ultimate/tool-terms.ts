// The service's messages name its HTTP routes ("obtain one with POST /v13/probes"); a user of the
// MCP adapter has tools, not routes, so every route the message names that a tool calls is named by
// that tool instead ("obtain one with probe_ultimate"). The mapping is the wire declaration's
// (services/ultimate-tool/api/tools.ts), so a new tool is named without any change here.
import { pathMatcher } from '../../services/ultimate-tool/api/paths.js';
import { ROUTE_LIST } from '../../services/ultimate-tool/api/routes.js';
import { TOOL_OF_ROUTE } from '../../services/ultimate-tool/api/tools.js';

const ROUTE_MENTION = /\b(GET|POST|DELETE) (\/v13\/[^\s?;,)'"`]*)(\?[^\s;,)'"`]*)?/g;
const MATCHERS = ROUTE_LIST.map((route) => ({ route, re: pathMatcher(route.path) }));

function toolFor(method: string, path: string): string | undefined {
  // A template as written in a message ({job_id}) matches as one segment, as a filled-in path does.
  const found = MATCHERS.find((m) => m.route.method === method && m.re.test(path));
  return found && TOOL_OF_ROUTE[found.route.name];
}

/** The message with each route a tool calls named by the tool ("X (X)" said once). */
export function inToolTerms(message: string): string {
  return message
    .replace(ROUTE_MENTION, (mention, method: string, path: string, query: string | undefined) => {
      // A sentence's full stop is not part of the path.
      const stop = query ? '' : (/\.+$/.exec(path)?.[0] ?? '');
      const tool = toolFor(method, path.slice(0, path.length - stop.length));
      return tool ? tool + stop : mention;
    })
    .replace(/\b([a-z_]+) \(\1\)/g, '$1');
}
