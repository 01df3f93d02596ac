#!/usr/bin/env node
// Build the Rust products shipped in this package (std only, no crates fetched: --offline) and
// place them where the README names them for `lispex mcp serve`:
//   dist/products/topaz-vm                      --topaz-vm
//   dist/products/topaz-compiler                --topaz-compiler (the fresh AOT compiler)
//   dist/products/topaz-runtime/                the prebuilt runtime rlib the compiler links
//   dist/products/topaz-runtime/RUSTC           the rustc that built it: pass it as --rust-tools
//   dist/products/test/topaz-vm-planted-modulo  a test copy with a planted modulo bug
// Cargo's build directory is products/target (reused across builds). tsup keeps dist/products
// (tsup.config.ts: clean ['!products/**']), so `npm run build` does not remove them.
// cargo is taken from PATH or ~/.cargo/bin (setup.sh installs Debian's cargo when none exists);
// this is the build step only: the server itself never looks for anything on PATH.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const targetDir = join(root, 'products', 'target');
const outDir = join(root, 'dist', 'products');

function cargo() {
  const fromHome = join(homedir(), '.cargo', 'bin', 'cargo');
  const probe = spawnSync('cargo', ['--version'], { encoding: 'utf8' });
  if (probe.status === 0) return 'cargo';
  if (existsSync(fromHome)) return fromHome;
  console.error('build-products: no cargo found (install Debian `rustc cargo`, or rustup)');
  process.exit(1);
}

function build(crate, extra, builtName, dest) {
  const manifest = join(root, 'products', crate, 'Cargo.toml');
  // Each crate/feature set gets its own target dir, so the runtime rlib is never rebuilt with
  // other features or metadata behind the compiler's back.
  const variant = [crate === 'topaz-vm' ? '' : crate, ...extra]
    .join('-')
    .replace(/[^a-z0-9-]/gi, '')
    .replace(/^-+/, '');
  const dir = variant.length > 0 ? join(targetDir, variant) : targetDir;
  const r = spawnSync(cargo(), ['build', '--release', '--offline', '--quiet', '--manifest-path', manifest, '--target-dir', dir, ...extra], {
    stdio: 'inherit',
  });
  if (r.status !== 0) {
    console.error(`build-products: cargo build of ${crate} failed`);
    process.exit(1);
  }
  mkdirSync(dirname(dest), { recursive: true });
  copyFileSync(join(dir, 'release', builtName), dest);
  console.log(`build-products: ${dest}`);
}

build('topaz-vm', [], 'topaz-vm', join(outDir, 'topaz-vm'));
// The runtime rlib (same build) and the rustc that made it: a program built against the rlib
// must use that exact compiler, and the real binary (not a rustup proxy), since products run
// with an empty environment.
const runtimeDir = join(outDir, 'topaz-runtime');
mkdirSync(runtimeDir, { recursive: true });
copyFileSync(join(targetDir, 'release', 'libtopaz_vm.rlib'), join(runtimeDir, 'libtopaz_vm.rlib'));
const sysroot = spawnSync(cargo().replace(/cargo$/, 'rustc'), ['--print', 'sysroot'], { encoding: 'utf8' }).stdout.trim();
writeFileSync(join(runtimeDir, 'RUSTC'), `${join(sysroot, 'bin', 'rustc')}\n`);
console.log(`build-products: ${runtimeDir} (rustc ${join(sysroot, 'bin', 'rustc')})`);
build('topaz-aot', [], 'topaz-compiler', join(outDir, 'topaz-compiler'));
build('topaz-vm', ['--features', 'planted-modulo-bug'], 'topaz-vm', join(outDir, 'test', 'topaz-vm-planted-modulo'));
