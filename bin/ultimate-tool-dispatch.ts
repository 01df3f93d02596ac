// The `ultimate-tool` subcommands, shared by bin/ultimate-tool.ts and `mcp-engines ultimate-tool`.
// This is the edge where the environment is read (C64U_HOST, C64U_PASSWORD, MCP_ENGINES_LOG).
// Each command is imported only when asked for.
import { EXIT_USAGE, logLevelFromEnv, packageVersion } from '../common/index.js';

export const ULTIMATE_TOOL_USAGE = `ultimate-tool ${packageVersion()} — hardware-in-the-loop development of C64 programs on an Ultimate 64 and VICE

Usage: ultimate-tool <command> [options]
       ultimate-tool --help | --version

Commands:
  serve            the project service: builds, targets, jobs, runs, evidence (HTTP API schema 13 on 127.0.0.1)
  store            the store's database: backup, restore, check
  mcp              the MCP adapter on stdio, forwarding to the service (also installed as ultimate-tool-mcp)
  capture          the two-step debug-stream capture (probe, prepare, cancel, start) through the service
  test             the project's tests as one suite job on the vice target (--all), progress line, JUnit XML
  virtual-device   a virtual Ultimate 64 (an emulation) on loopback
  virtual-vice     a virtual C64 that exposes only the VICE binary monitor, started the way x64sc is

Run "ultimate-tool <command> --help" for a command's options.
`;

const COMMANDS: Record<string, (rest: string[]) => Promise<number>> = {
  serve: async (rest) =>
    (await import('../services/ultimate-tool/cli.js')).runServeCli(rest, {
      host: process.env.C64U_HOST || undefined,
      password: process.env.C64U_PASSWORD || undefined,
      logLevel: logLevelFromEnv(),
    }),
  store: async (rest) => (await import('../services/ultimate-tool/store-cli.js')).runStoreCli(rest),
  mcp: async (rest) => (await import('../adapters/ultimate/cli.js')).runUltimateToolMcpCli(rest),
  capture: async (rest) => (await import('../adapters/ultimate/capture-cli.js')).runCaptureCli(rest),
  test: async (rest) => (await import('../adapters/ultimate/test-cli.js')).runTestCli(rest),
  'virtual-device': async (rest) => (await import('../engines/ultimate/virtual/cli.js')).runVirtualDeviceCli(rest),
  'virtual-vice': async (rest) => (await import('../engines/ultimate/virtual/device/virtual-vice.js')).runVirtualViceCli(rest),
};

export async function runUltimateTool(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(ULTIMATE_TOOL_USAGE);
    return 0;
  }
  if (command === '--version' || command === '-V') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const run = command === undefined ? undefined : COMMANDS[command];
  if (!run) {
    process.stderr.write(
      `ultimate-tool: ${command === undefined ? 'which command? name one' : `unknown command ${JSON.stringify(command)}`}\n\n${ULTIMATE_TOOL_USAGE}`,
    );
    return EXIT_USAGE;
  }
  return run(rest);
}
