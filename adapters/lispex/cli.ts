// The `lispex` command line:
//   lispex mcp serve [product options]   the MCP server on stdio
//   lispex run <file> [--route tree|vm] [--input DATUM]
//       runs a whole source with the interactive-output contract (INTERACTIVE-OUTPUT-1): for each
//       successful top-level form its explicit output, then each result value written with
//       `write` and a LF; warnings and diagnostics on stderr; exit 0 / 1 / 2.
//   lispex check <file> [--route tree|vm] [--input DATUM]
//       the same run, but prints only the diagnostics and warnings (no stdout), same exit status.
//   lispex build-products [--out DIR]
//       builds the Rust products of the rust-topaz and all-four courts with the local cargo and
//       prints the `lispex mcp serve` line that uses them (build-products.ts says why).
//   lispex --help | --version

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { packageRoot, packageVersion } from '../../common/package-info.js';
import { EXIT_USAGE, UsageError } from '../../common/usage-error.js';
import type { Observation } from '../../engines/lispex/observation.js';
import { StartupOptionError } from './products.js';

// Only what `run`/`check` need is imported statically: the MCP server (and with it the MCP core
// and zod) is loaded only for `lispex mcp serve`, and the engine only once a file was read, so a
// short `lispex run` starts in little more than Node's own start-up time.

export const LISPEX_HELP = `lispex ${packageVersion()} — the Lispex 1.5 language (mcp-engines)

Usage:
  lispex run <file> [--route tree|vm] [--input DATUM]
      Run a program; print each top-level form's output, then its values (write), one per line.
  lispex check <file> [--route tree|vm] [--input DATUM]
      Run a program and print only its diagnostics and warnings.
  lispex mcp serve [--topaz-vm PATH] [--topaz-compiler PATH --rust-tools PATH]
      Serve the Lispex MCP tools over stdio.
  lispex build-products [--out DIR]
      Build the Rust products (Topaz VM, fresh AOT compiler) for this machine with the local
      cargo (default DIR: the package's dist/products) and print the \`lispex mcp serve\` line.
  lispex --help | --version

Exit status: 0 ok, 1 source or runtime error, 2 resource limit, 64 usage error.
Diagnostics and warnings go to stderr as "CODE source:line:column message".
`;

/** Exit status of a command-line usage error (BSD sysexits EX_USAGE). */
const USAGE = EXIT_USAGE;

interface RunOptions {
  readonly file: string;
  readonly route: 'tree' | 'vm';
  readonly input?: string;
}

function parseRunOptions(command: string, args: readonly string[]): RunOptions {
  let file: string | undefined;
  let route: 'tree' | 'vm' = 'tree';
  let input: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--route') {
      const value = args[++i];
      if (value !== 'tree' && value !== 'vm') throw new UsageError(`--route needs tree or vm; got ${JSON.stringify(value ?? '')}`);
      route = value;
    } else if (arg === '--input') {
      const value = args[++i];
      if (value === undefined) throw new UsageError('--input needs the text of one datum');
      input = value;
    } else if (arg.startsWith('-') && arg !== '-') {
      throw new UsageError(`unknown option ${JSON.stringify(arg)} for lispex ${command}`);
    } else if (file === undefined) {
      file = arg;
    } else {
      throw new UsageError(`lispex ${command} takes one file; got a second: ${JSON.stringify(arg)}`);
    }
  }
  if (file === undefined) throw new UsageError(`lispex ${command} needs a file`);
  return { file, route, ...(input !== undefined ? { input } : {}) };
}

async function runFile(options: RunOptions): Promise<Observation> {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(options.file);
  } catch (error) {
    throw new UsageError(`cannot read ${options.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  // Loaded here rather than at the top so `lispex mcp serve` does not load the engine in the
  // server thread (it evaluates in workers only).
  const { LispexEvaluator } = await import('../../engines/lispex/index.js');
  // The logical source id is the file's name, never its host path.
  return new LispexEvaluator().run(bytes, {
    route: options.route,
    sourceId: basename(options.file),
    ...(options.input !== undefined ? { input: options.input } : {}),
  });
}

/** Warnings in occurrence order, then the error that stopped the run (which came last). */
function writeDiagnostics(observation: Observation): void {
  let text = '';
  for (const w of observation.warnings) text += `${w.rendered}\n`;
  for (const d of observation.diagnostics) text += `${d.rendered}\n`;
  if (text) process.stderr.write(text);
}

function asksForHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

function printHelp(): number {
  process.stdout.write(LISPEX_HELP);
  return 0;
}

/** `lispex build-products [--out DIR]`: build, then print the serve line on stdout. */
async function runBuildProducts(args: readonly string[]): Promise<number> {
  let out: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--out') {
      out = args[++i];
      if (out === undefined || out === '') throw new UsageError('--out needs a folder');
    } else {
      throw new UsageError(`unknown option ${JSON.stringify(arg)} for lispex build-products; expected --out DIR`);
    }
  }
  const { buildProducts, findCargo, serveCommandLine, ProductBuildError } = await import('./build-products.js');
  const root = packageRoot();
  try {
    const built = buildProducts({
      sourceRoot: root,
      outDir: resolve(out ?? join(root, 'dist', 'products')),
      targetDir: join(root, 'products', 'target'),
      cargo: findCargo({ PATH: process.env.PATH, HOME: homedir() }),
      log: (line) => process.stderr.write(`lispex build-products: ${line}\n`),
    });
    process.stdout.write(`${serveCommandLine(built)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof ProductBuildError) {
      process.stderr.write(`lispex build-products: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

/** Run the command line; resolves to the exit status. Never calls process.exit. */
export async function runLispexCli(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
        throw new UsageError('which command? expected run, check or mcp serve');
      case '--help':
      case '-h':
      case 'help':
        return printHelp();
      case '--version':
      case '-V':
        process.stdout.write(`${packageVersion()}\n`);
        return 0;
      case 'run': {
        if (asksForHelp(rest)) return printHelp();
        const observation = await runFile(parseRunOptions('run', rest));
        process.stdout.write(observation.interactive_stdout);
        writeDiagnostics(observation);
        return observation.exit_status;
      }
      case 'check': {
        if (asksForHelp(rest)) return printHelp();
        const observation = await runFile(parseRunOptions('check', rest));
        writeDiagnostics(observation);
        return observation.exit_status;
      }
      case 'build-products': {
        if (asksForHelp(rest)) return printHelp();
        return await runBuildProducts(rest);
      }
      case 'mcp': {
        const [sub, ...flags] = rest;
        if (sub !== 'serve') throw new UsageError(`unknown command "lispex mcp ${sub ?? ''}"; expected "lispex mcp serve"`);
        const { SERVE_HELP, serveLispexMcp } = await import('./server.js');
        if (flags.includes('--help') || flags.includes('-h')) {
          process.stdout.write(SERVE_HELP);
          return 0;
        }
        await serveLispexMcp(flags);
        return 0;
      }
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}; expected run, check, mcp serve or build-products`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`lispex: ${error.message}\n\n${LISPEX_HELP}`);
      return USAGE;
    }
    if (error instanceof StartupOptionError) {
      process.stderr.write(`lispex: ${error.message}\n`);
      return USAGE;
    }
    throw error;
  }
}
