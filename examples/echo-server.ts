/**
 * A complete MCP server in a few lines of the public API: an echo tool, a tool that fails, and a
 * slow tool that reports progress and honours cancellation. Run it over stdio:
 *   node --import tsx examples/echo-server.ts            (or: mcp-engines example)
 * or on a Unix socket:
 *   node --import tsx examples/echo-server.ts --socket /tmp/echo.sock
 * Option: --max-line-bytes N (largest accepted message; default 32 MiB).
 */
import { z } from 'zod';
import { McpServer, packageVersion, ToolError, ToolRegistry, UsageError } from '../src/index.js';
import { StdioServerTransport, serveUnixSocket } from '../transports/index.js';

export function createEchoServer(): McpServer {
  let calls = 0; // server state: survives reconnects on the socket transport
  const tools = new ToolRegistry()
    .define({
      name: 'echo',
      title: 'Echo',
      description: 'Return the text you send.',
      input: z.object({ text: z.string().describe('what to echo') }),
      output: z.object({ text: z.string(), calls: z.number().int() }),
      annotations: { readOnlyHint: true },
      handler: ({ text }) => ({ text, calls: ++calls }),
    })
    .define({
      name: 'fail',
      description: 'Always fails with the given message (an isError result).',
      input: z.object({ message: z.string().default('failure requested') }),
      handler: ({ message }) => {
        throw new ToolError(message, { kind: 'requested' });
      },
    })
    .define({
      name: 'slow',
      description: 'Count to `steps`, one step every `interval_ms`, reporting progress; cancellable.',
      input: z.object({ steps: z.number().int().min(1).max(10_000), interval_ms: z.number().int().min(0).max(10_000).default(10) }),
      handler: async ({ steps, interval_ms }, ctx) => {
        for (let i = 1; i <= steps; i++) {
          await waitStep(interval_ms, ctx.signal);
          ctx.progress(i, steps, `step ${i}`);
        }
        return { steps };
      },
    });
  return new McpServer({ name: 'echo-example', version: '0.1.0', tools, instructions: 'An example server: echo, fail, slow.' });
}

/** Wait one step; an abort rejects at once. The abort listener is removed when the step ends, so a long run does not pile them up. */
function waitStep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export const ECHO_HELP = `echo-server — the example MCP server of mcp-engines (tools: echo, fail, slow)

Usage: mcp-engines example [--socket PATH] [--max-line-bytes N]
       mcp-engines example --help | --version

Serves MCP on stdio, or one client at a time on a Unix socket (created 0600) with --socket.
`;

interface EchoCliOptions {
  socket?: string;
  maxLineBytes?: number;
}

function parseEchoArgs(argv: string[]): EchoCliOptions | 'help' | 'version' {
  const options: EchoCliOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '--version' || arg === '-V') return 'version';
    if (arg === '--socket') {
      const path = argv[++i];
      if (!path) throw new UsageError('--socket needs a path, e.g. --socket /tmp/echo.sock');
      options.socket = path;
    } else if (arg === '--max-line-bytes') {
      const n = Number(argv[++i]);
      if (!(Number.isInteger(n) && n > 0)) throw new UsageError('--max-line-bytes needs a positive whole number of bytes');
      options.maxLineBytes = n;
    } else {
      throw new UsageError(`unknown option ${JSON.stringify(arg)}; expected --socket PATH, --max-line-bytes N, --help or --version`);
    }
  }
  return options;
}

/** The example's command line; misuse prints usage to stderr and exits 64. */
export async function runEchoServer(argv: string[]): Promise<void> {
  let parsed: ReturnType<typeof parseEchoArgs>;
  try {
    parsed = parseEchoArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`echo-server: ${err.message}\n\n${ECHO_HELP}`);
    process.exitCode = err.exitCode;
    return;
  }
  if (parsed === 'help') {
    process.stdout.write(ECHO_HELP);
    return;
  }
  if (parsed === 'version') {
    process.stdout.write(`${packageVersion()}\n`);
    return;
  }
  const { socket, maxLineBytes } = parsed;
  const server = createEchoServer();
  if (socket) {
    const path = socket;
    const listener = await serveUnixSocket(path, (t) => server.connect(t), { maxLineBytes });
    const stop = () => void listener.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return;
  }
  const session = await server.connect(new StdioServerTransport({ maxLineBytes }));
  session.onClose(() => process.exit(0));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runEchoServer(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`echo-server: ${err.message}\n`);
    process.exit(1);
  });
}
