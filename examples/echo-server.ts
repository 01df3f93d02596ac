/**
 * A complete MCP server in a few lines of the public API: an echo tool, a tool that fails, and a
 * slow tool that reports progress and honours cancellation. Run it over stdio:
 *   node --import tsx examples/echo-server.ts            (or: mcp-engines example)
 * or on a Unix socket:
 *   node --import tsx examples/echo-server.ts --socket /tmp/echo.sock
 * Option: --max-line-bytes N (largest accepted message; default 32 MiB).
 */
import { z } from 'zod';
import { McpServer, ToolError, ToolRegistry } from '../src/index.js';
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
          await new Promise<void>((resolve, reject) => {
            const t = setTimeout(resolve, interval_ms);
            ctx.signal.addEventListener('abort', () => (clearTimeout(t), reject(ctx.signal.reason)), { once: true });
          });
          ctx.progress(i, steps, `step ${i}`);
        }
        return { steps };
      },
    });
  return new McpServer({ name: 'echo-example', version: '0.1.0', tools, instructions: 'An example server: echo, fail, slow.' });
}

export async function runEchoServer(argv: string[]): Promise<void> {
  const server = createEchoServer();
  const m = argv.indexOf('--max-line-bytes');
  const maxLineBytes = m >= 0 ? Number(argv[m + 1]) : undefined;
  if (maxLineBytes !== undefined && !(Number.isInteger(maxLineBytes) && maxLineBytes > 0)) {
    throw new Error('--max-line-bytes needs a positive whole number of bytes');
  }
  const i = argv.indexOf('--socket');
  if (i >= 0) {
    const path = argv[i + 1];
    if (!path) throw new Error('--socket needs a path');
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
