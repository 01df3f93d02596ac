#!/usr/bin/env node
// topup-opt: the native-code topup (phrases compiled natively, `load` of .cmxs). It needs a native
// OCaml toplevel, which Debian does not ship; until a later release builds one, topup-opt checks
// for it at start and exits with a clear message instead of pretending.
import { probeNativeToplevel } from '../engines/ocaml/native-toplevel.js';
import { TOPUP_VERSION } from '../adapters/topup/server.js';

const HELP = `topup-opt ${TOPUP_VERSION} — topup with a native-code OCaml toplevel (.cmxs for load)

Usage: topup-opt [--socket <path>]   (same interface as topup)
       topup-opt --help | --version

Needs a native toplevel (compiler-libs.native-toplevel or ocamlnat), which Debian's OCaml
packages do not provide. Use topup (bytecode toplevel) meanwhile.
`;

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return;
  }
  if (argv.includes('--version') || argv.includes('-V')) {
    process.stdout.write(`${TOPUP_VERSION}\n`);
    return;
  }
  const probe = await probeNativeToplevel();
  const why = probe.available
    ? `a native toplevel was found (${probe.detail}), but this release of topup-opt does not include the native driver yet`
    : `it needs a native OCaml toplevel, and ${probe.detail} (Debian's ocaml-nox does not ship one)`;
  process.stderr.write(`topup-opt: cannot start: ${why}. Use "topup" (the bytecode toplevel, load takes .cma/.cmo) instead.\n`);
  process.exitCode = 1;
}

main(process.argv.slice(2)).catch((err: Error) => {
  process.stderr.write(`topup-opt: ${err.message}\n`);
  process.exit(1);
});
