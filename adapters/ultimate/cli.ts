// `ultimate-tool-mcp [--service-url http://127.0.0.1:6464] [--http [HOST:]PORT]`: the adapter on
// stdio, or over Streamable HTTP with --http. The origin is
// checked before anything is served; stdout carries MCP bytes only, everything else goes to stderr.
import { EXIT_USAGE, UsageError, createLogger, packageVersion } from '../../common/index.js';
import {
  HTTP_OPTIONS_HELP,
  StdioServerTransport,
  serveHttpForCli,
  takeHttpOption,
  type HttpCliFlags,
  type StreamableHttpListener,
} from '../../transports/index.js';
import { TOOL_NAMES } from '../../services/ultimate-tool/api/tools.js';
import { createUltimateToolServer } from './server.js';
import { DEFAULT_SERVICE_PORT } from './service-url.js';

export const DEFAULT_SERVICE_URL = `http://127.0.0.1:${DEFAULT_SERVICE_PORT}`;

export const ULTIMATE_MCP_HELP = `ultimate-tool-mcp ${packageVersion()} — MCP adapter for the Ultimate Tool service (stdio)

Usage:
  ultimate-tool-mcp [--service-url http://127.0.0.1:PORT] [--http [HOST:]PORT [--http-token-file PATH]]
  ultimate-tool-mcp --help | --version

Options:
  --service-url URL   the running service (\`ultimate-tool serve\`); default ${DEFAULT_SERVICE_URL}.
                      Only http://127.0.0.1 with an optional port: no credentials, path, query
                      or fragment (a trailing "/" is tolerated). Without a port, port 80.
${HTTP_OPTIONS_HELP}

Serves the contract's ${TOOL_NAMES.length} tools over stdio or HTTP (${TOOL_NAMES.slice(0, 3).join(', ')}, …, ${TOOL_NAMES.at(-1)};
the list: tools/list or docs/ultimate/MCP.md); every answer is the schema-12 envelope.
The adapter only forwards to the service; it builds and touches no device.
Exit status: 0 when the client disconnects, 64 on a usage error. Logs go to stderr.
`;

function parseArgs(argv: readonly string[]): { serviceUrl: string; http: HttpCliFlags } | 'help' | 'version' {
  let serviceUrl: string | undefined;
  const http: HttpCliFlags = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '--version' || arg === '-V') return 'version';
    const used = takeHttpOption(argv, i, http);
    if (used >= 0) {
      i = used;
      continue;
    }
    if (arg === '--service-url' || arg.startsWith('--service-url=')) {
      if (serviceUrl !== undefined) throw new UsageError('--service-url given twice');
      const value = arg === '--service-url' ? argv[++i] : arg.slice('--service-url='.length);
      if (value === undefined || value === '') throw new UsageError('--service-url needs a URL such as http://127.0.0.1:6464');
      serviceUrl = value;
    } else {
      throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  if (http.tokenFile !== undefined && !http.http) throw new UsageError('--http-token-file goes with --http [HOST:]PORT');
  return { serviceUrl: serviceUrl ?? DEFAULT_SERVICE_URL, http };
}

/**
 * Run the adapter; resolves with the exit status (0 after the client disconnects, 64 on misuse,
 * reported on stderr before anything is served). The lead wires `ultimate-tool mcp` and
 * `mcp-engines ultimate-tool mcp` to this function.
 */
export async function runUltimateToolMcpCli(argv: readonly string[]): Promise<number> {
  let server: ReturnType<typeof createUltimateToolServer>;
  let listener: StreamableHttpListener | undefined;
  try {
    const parsed = parseArgs(argv);
    if (parsed === 'help') {
      process.stdout.write(ULTIMATE_MCP_HELP);
      return 0;
    }
    if (parsed === 'version') {
      process.stdout.write(`${packageVersion()}\n`);
      return 0;
    }
    server = createUltimateToolServer({ serviceUrl: parsed.serviceUrl, logger: createLogger(ULTIMATE_MCP_LOG_NAME) });
    const { http } = parsed;
    if (http.http) {
      const s = server;
      listener = await serveHttpForCli({ command: 'ultimate-tool-mcp', flags: { ...http, http: http.http }, connect: (t) => s.connect(t) });
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`ultimate-tool-mcp: ${err.message}\nRun "ultimate-tool-mcp --help" for usage.\n`);
      return EXIT_USAGE;
    }
    throw err;
  }
  if (listener) {
    const l = listener;
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await l.close();
    await server.close();
    return 0;
  }
  const session = await server.connect(new StdioServerTransport());
  await new Promise<void>((resolve) => {
    session.onClose(resolve);
    const stop = (): void => void session.close();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  return 0;
}

const ULTIMATE_MCP_LOG_NAME = 'ultimate-tool-mcp';
