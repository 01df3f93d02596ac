#!/usr/bin/env node
/**
 * The reference bin: every server of the package under one command.
 *   mcp-engines <server> [args…]
 * Each server is also installed under the command name its contract uses (topup, lispex,
 * ultimate-tool); `mcp-engines <server> …` and `<server> …` behave the same.
 */
import { EXIT_USAGE } from '../common/usage-error.js';
import { packageVersion } from '../src/package-info.js';

type Subcommand = { summary: string; run: (argv: string[]) => Promise<void> };

// Each server is imported only when asked for, so one server's start-up never pays for another's.
const SUBCOMMANDS: Record<string, Subcommand> = {
  topup: {
    summary: 'MCP server over a persistent OCaml toplevel (stdio, --socket PATH, or --http [HOST:]PORT with a token)',
    run: async (argv) => (await import('../adapters/topup/cli.js')).runTopupCli(argv),
  },
  'topup-opt': {
    summary: 'topup with a native-code OCaml toplevel (phrases compiled natively; load takes .cmxs)',
    run: async (argv) => (await import('../adapters/topup/cli.js')).runTopupCli(argv, { command: 'topup-opt' }),
  },
  lispex: {
    summary: 'the Lispex language: `lispex mcp serve [--http [HOST:]PORT]`, `lispex run FILE`, `lispex check FILE`',
    run: async (argv) => {
      process.exitCode = await (await import('../adapters/lispex/cli.js')).runLispexCli(argv);
    },
  },
  'ultimate-tool': {
    summary: 'the Ultimate Tool: `serve` (project service), `mcp` (its MCP adapter), `virtual-device`, `virtual-vice`',
    run: async (argv) => {
      process.exitCode = await (await import('./ultimate-tool-dispatch.js')).runUltimateTool(argv);
    },
  },
  example: {
    summary: 'the example echo server (stdio, or --socket PATH)',
    run: async (argv) => (await import('../examples/echo-server.js')).runEchoServer(argv),
  },
};

const HELP = `mcp-engines ${packageVersion()} — real execution engines behind the Model Context Protocol

Usage:
  mcp-engines <server> [options]     run one server (stdio unless the server says otherwise;
                                     --http [HOST:]PORT serves it over Streamable HTTP)
  mcp-engines --help | --version

Servers:
${Object.entries(SUBCOMMANDS)
  .map(([name, s]) => `  ${name.padEnd(16)} ${s.summary}`)
  .join('\n')}

Run "mcp-engines <server> --help" for a server's own options.
Logs go to stderr; set MCP_ENGINES_LOG=error|warn|info|debug.
`;

export async function main(argv: string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    process.stderr.write(`mcp-engines: which server? name one.\n\n${HELP}`);
    process.exitCode = EXIT_USAGE;
    return;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(HELP);
    return;
  }
  if (first === '--version' || first === '-V') {
    process.stdout.write(`${packageVersion()}\n`);
    return;
  }
  const sub = SUBCOMMANDS[first];
  if (!sub) {
    process.stderr.write(`mcp-engines: unknown server "${first}"; expected one of: ${Object.keys(SUBCOMMANDS).join(', ')}\n\n${HELP}`);
    process.exitCode = EXIT_USAGE;
    return;
  }
  await sub.run(rest);
}

main(process.argv.slice(2)).catch((err: Error) => {
  process.stderr.write(`mcp-engines: ${err.message}\n`);
  process.exit(1);
});
