// `ultimate-tool-mcp [--service-url http://127.0.0.1:6464]`: the adapter on stdio. The origin is
// checked before anything is served; stdout carries MCP bytes only, everything else goes to stderr.
import { EXIT_USAGE, UsageError, createLogger, packageVersion } from '../../common/index.js';
import { StdioServerTransport } from '../../transports/index.js';
import { TOOL_NAMES } from '../../services/ultimate-tool/api/tools.js';
import { createUltimateToolServer } from './server.js';
import { DEFAULT_SERVICE_PORT } from './service-url.js';

export const DEFAULT_SERVICE_URL = `http://127.0.0.1:${DEFAULT_SERVICE_PORT}`;

export const ULTIMATE_MCP_HELP = `ultimate-tool-mcp ${packageVersion()} — MCP adapter for the Ultimate Tool service (stdio)

Usage:
  ultimate-tool-mcp [--service-url http://127.0.0.1:PORT]
  ultimate-tool-mcp --help | --version

Options:
  --service-url URL   the running service (\`ultimate-tool serve\`); default ${DEFAULT_SERVICE_URL}.
                      Only http://127.0.0.1 with an optional port: no credentials, path, query
                      or fragment (a trailing "/" is tolerated). Without a port, port 80.

Serves the contract's ${TOOL_NAMES.length} tools over stdio (${TOOL_NAMES.slice(0, 3).join(', ')}, …, ${TOOL_NAMES.at(-1)};
the list: tools/list or docs/ultimate/MCP.md); every answer is the schema-12 envelope.
The adapter only forwards to the service; it builds and touches no device.
Exit status: 0 when the client disconnects, 64 on a usage error. Logs go to stderr.
`;

function parseArgs(argv: readonly string[]): { serviceUrl: string } | 'help' | 'version' {
  let serviceUrl: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '--version' || arg === '-V') return 'version';
    if (arg === '--service-url' || arg.startsWith('--service-url=')) {
      if (serviceUrl !== undefined) throw new UsageError('--service-url given twice');
      const value = arg === '--service-url' ? argv[++i] : arg.slice('--service-url='.length);
      if (value === undefined || value === '') throw new UsageError('--service-url needs a URL such as http://127.0.0.1:6464');
      serviceUrl = value;
    } else {
      throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  return { serviceUrl: serviceUrl ?? DEFAULT_SERVICE_URL };
}

/**
 * Run the adapter; resolves with the exit status (0 after the client disconnects, 64 on misuse,
 * reported on stderr before anything is served). The lead wires `ultimate-tool mcp` and
 * `mcp-engines ultimate-tool mcp` to this function.
 */
export async function runUltimateToolMcpCli(argv: readonly string[]): Promise<number> {
  let server: ReturnType<typeof createUltimateToolServer>;
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
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`ultimate-tool-mcp: ${err.message}\nRun "ultimate-tool-mcp --help" for usage.\n`);
      return EXIT_USAGE;
    }
    throw err;
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
