#!/usr/bin/env node
// Build the Rust products in a checkout (setup.sh and CI run this after `npm run build`), with the
// same builder users run as `lispex build-products` (adapters/lispex/build-products.ts):
//   dist/products/topaz-vm                      --topaz-vm
//   dist/products/topaz-compiler                --topaz-compiler (the fresh AOT compiler)
//   dist/products/topaz-runtime/                the runtime rlib the compiler links
//   dist/products/topaz-runtime/RUSTC           the rustc that built it: pass it as --rust-tools
// and, for the tests only,
//   dist/products/test/topaz-vm-planted-modulo  a copy with a planted modulo bug
// dist/products is never packed (package.json "files" excludes it): each user builds products for
// their own machine. Cargo's build folder is products/target (reused across builds); tsup keeps
// dist/products (tsup.config.ts: clean ['!products/**']).

import { copyFileSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { buildProducts, cargoBuild, findCargo, ProductBuildError } = await tsImport('../adapters/lispex/build-products.ts', import.meta.url);

try {
  const options = {
    sourceRoot: root,
    outDir: join(root, 'dist', 'products'),
    targetDir: join(root, 'products', 'target'),
    cargo: findCargo({ PATH: process.env.PATH, HOME: homedir() }),
    log: (line) => console.log(`build-products: ${line}`),
  };
  const built = buildProducts(options);
  console.log(`build-products: ${built.topazVm}\nbuild-products: ${built.topazCompiler}\nbuild-products: rustc ${built.rustTools}`);
  const planted = join(options.outDir, 'test', 'topaz-vm-planted-modulo');
  mkdirSync(dirname(planted), { recursive: true });
  copyFileSync(join(cargoBuild(options, 'topaz-vm', ['planted-modulo-bug']), 'topaz-vm'), planted);
  console.log(`build-products: ${planted}`);
} catch (error) {
  if (!(error instanceof ProductBuildError)) throw error;
  console.error(`build-products: ${error.message}`);
  process.exit(1);
}
