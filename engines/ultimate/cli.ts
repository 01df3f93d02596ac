// ultimate-tool: command-line entry for the Ultimate engine. This release provides one
// subcommand, `virtual-device`, which runs the virtual Ultimate 64 on loopback.
// Shared by bin/ultimate-tool.ts and `mcp-engines ultimate-tool`.
import { runVirtualDeviceCli } from './virtual/cli.js';

const USAGE = `usage: ultimate-tool <command> [options]

commands:
  virtual-device   run a virtual Ultimate 64 (an emulation) on loopback; --help for options`;

/** `ultimate-tool <command> …`; resolves to the exit status. */
export async function runUltimateToolCli(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'virtual-device') return runVirtualDeviceCli(rest);
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  process.stderr.write(`ultimate-tool: ${command ? `unknown command ${JSON.stringify(command)}` : 'missing command'}\n${USAGE}\n`);
  return 2;
}
