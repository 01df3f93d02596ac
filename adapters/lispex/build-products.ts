// `lispex build-products`: build the Rust products of the `rust-topaz` and `all-four` courts on
// the user's own machine, with the local cargo, from the crate sources that ship in the package
// (products/topaz-vm, products/topaz-aot; std only, so cargo runs --offline and fetches nothing).
//
// Why build here instead of shipping executables: a prebuilt product is one platform's binary and
// the runtime rlib must be linked by the very rustc that built it (a Rust ABI detail), so the
// rustc named by --rust-tools has to be the user's. Building with the user's cargo gives products
// for their platform and a rustc path that exists on their machine, and the package stays free of
// anything machine-specific.
//
// Never automatic: the contract has products come only from immutable startup options (absolute
// paths), with no discovery, so this command builds and prints the exact `lispex mcp serve` line.

import { spawnSync } from 'node:child_process';
import { accessSync, constants, copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';

/** What the build produced: absolute paths for the three startup options. */
export interface BuiltProducts {
  readonly topazVm: string;
  readonly topazCompiler: string;
  /** The real rustc that built the runtime rlib (not a rustup proxy: products run with an empty environment). */
  readonly rustTools: string;
}

export interface BuildProductsOptions {
  /** Folder holding products/topaz-vm and products/topaz-aot (the package root). */
  readonly sourceRoot: string;
  /** Where the products go (topaz-vm, topaz-compiler, topaz-runtime/). */
  readonly outDir: string;
  /** Cargo's build folder, reused across builds. */
  readonly targetDir: string;
  /** The cargo executable (see findCargo). */
  readonly cargo: string;
  /** Progress lines (the CLI prints them on stderr). */
  readonly log?: (line: string) => void;
}

/** A product build problem: the message says what is missing or failed and what to do. */
export class ProductBuildError extends Error {
  override readonly name = 'ProductBuildError';
}

export const INSTALL_RUST_HINT =
  'install Rust: `sudo apt install cargo rustc` on Debian/Ubuntu, `brew install rust` on macOS, or rustup from https://rustup.rs';

/**
 * The cargo to build with: the first `cargo` on PATH, else ~/.cargo/bin/cargo (rustup's default
 * place, often not on a non-login PATH). Throws ProductBuildError naming what to install.
 */
export function findCargo(env: { readonly PATH?: string; readonly HOME?: string }): string {
  const candidates = [
    ...(env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => dir !== '')
      .map((dir) => join(dir, 'cargo')),
    ...(env.HOME ? [join(env.HOME, '.cargo', 'bin', 'cargo')] : []),
  ];
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new ProductBuildError(`no cargo found on PATH or in ~/.cargo/bin: the Lispex products are Rust programs; ${INSTALL_RUST_HINT}`);
}

function run(command: string, args: readonly string[], what: string): string {
  const r = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error) throw new ProductBuildError(`${what}: cannot run ${command}: ${r.error.message}`);
  if (r.status !== 0) throw new ProductBuildError(`${what} failed (exit ${r.status}):\n${(r.stderr || r.stdout).trim()}`);
  return r.stdout;
}

/** `cargo build --release` of one crate; returns cargo's release folder. */
export function cargoBuild(options: BuildProductsOptions, crate: string, features: readonly string[] = []): string {
  const manifest = join(options.sourceRoot, 'products', crate, 'Cargo.toml');
  if (!existsSync(manifest)) throw new ProductBuildError(`the crate sources are missing: ${manifest} does not exist`);
  // Each crate/feature set gets its own target folder, so the runtime rlib is never rebuilt with
  // other features or metadata behind the compiler's back.
  const variant = [crate === 'topaz-vm' ? '' : crate, ...features].filter((p) => p !== '').join('-');
  const dir = variant === '' ? options.targetDir : join(options.targetDir, variant);
  const featureArgs = features.length > 0 ? ['--features', features.join(',')] : [];
  options.log?.(`building ${crate}${features.length > 0 ? ` (features ${features.join(',')})` : ''} with ${options.cargo}`);
  run(
    options.cargo,
    ['build', '--release', '--offline', '--quiet', '--manifest-path', manifest, '--target-dir', dir, ...featureArgs],
    `cargo build of ${crate}`,
  );
  return join(dir, 'release');
}

/** The real rustc beside the cargo used (its sysroot's bin/rustc, never a rustup proxy). */
function realRustc(cargo: string): string {
  const besideCargo = join(dirname(cargo), 'rustc');
  const rustc = existsSync(besideCargo) ? besideCargo : 'rustc';
  const sysroot = run(rustc, ['--print', 'sysroot'], 'rustc --print sysroot').trim();
  const real = join(sysroot, 'bin', 'rustc');
  if (!existsSync(real)) throw new ProductBuildError(`rustc's sysroot ${sysroot} has no bin/rustc; ${INSTALL_RUST_HINT}`);
  return real;
}

/**
 * Build topaz-vm (and its runtime rlib) and topaz-compiler into outDir:
 *   outDir/topaz-vm, outDir/topaz-compiler, outDir/topaz-runtime/libtopaz_vm.rlib and
 *   outDir/topaz-runtime/RUSTC (the rustc that built the rlib, for --rust-tools).
 */
export function buildProducts(options: BuildProductsOptions): BuiltProducts {
  const outDir = resolve(options.outDir);
  try {
    mkdirSync(join(outDir, 'topaz-runtime'), { recursive: true });
    accessSync(outDir, constants.W_OK);
  } catch (error) {
    throw new ProductBuildError(
      `cannot write the products to ${outDir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); choose a folder with --out DIR`,
    );
  }
  const vmRelease = cargoBuild(options, 'topaz-vm');
  const topazVm = join(outDir, 'topaz-vm');
  copyFileSync(join(vmRelease, 'topaz-vm'), topazVm);
  // The compiler finds the rlib at <its folder>/topaz-runtime/libtopaz_vm.rlib.
  copyFileSync(join(vmRelease, 'libtopaz_vm.rlib'), join(outDir, 'topaz-runtime', 'libtopaz_vm.rlib'));
  const rustTools = realRustc(options.cargo);
  writeFileSync(join(outDir, 'topaz-runtime', 'RUSTC'), `${rustTools}\n`);
  const aotRelease = cargoBuild(options, 'topaz-aot');
  const topazCompiler = join(outDir, 'topaz-compiler');
  copyFileSync(join(aotRelease, 'topaz-compiler'), topazCompiler);
  return { topazVm, topazCompiler, rustTools };
}

/** The `lispex mcp serve` line that uses the built products (each path shell-quoted). */
export function serveCommandLine(products: BuiltProducts): string {
  const q = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return `lispex mcp serve --topaz-vm ${q(products.topazVm)} --topaz-compiler ${q(products.topazCompiler)} --rust-tools ${q(products.rustTools)}`;
}
