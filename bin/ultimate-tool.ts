#!/usr/bin/env node
// ultimate-tool: command-line entry for the Ultimate engine. This issue provides one subcommand,
// `virtual-device`, which runs the virtual Ultimate 64 on loopback.
import { runVirtualDeviceCli } from '../engines/ultimate/virtual/cli.js';

const USAGE = `usage: ultimate-tool <command> [options]

commands:
  virtual-device   run a virtual Ultimate 64 (an emulation) on loopback; --help for options`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'virtual-device') return runVirtualDeviceCli(rest);
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  process.stderr.write(`ultimate-tool: ${command ? `unknown command ${JSON.stringify(command)}` : 'missing command'}\n${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err: unknown) => { process.stderr.write(`ultimate-tool: ${(err as Error)?.stack ?? String(err)}\n`); process.exitCode = 1; },
);
