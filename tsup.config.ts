import { existsSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { buildDashboard } from './services/ultimate-tool/dashboard/build-dashboard';

// One entry per public subpath (see package.json "exports") and one per bin.
// Entries whose source file does not exist yet are skipped, so the build stays green while
// an engine is being written.
const candidates: Record<string, string> = {
  index: 'src/index.ts',
  'transports/index': 'transports/index.ts',
  'transports/ssh': 'transports/ssh.ts',
  'engines/ocaml/index': 'engines/ocaml/index.ts',
  'engines/lispex/index': 'engines/lispex/index.ts',
  'engines/lispex/worker': 'engines/lispex/worker.ts',
  'engines/ultimate/index': 'engines/ultimate/index.ts',
  'engines/ultimate/virtual/index': 'engines/ultimate/virtual/index.ts',
  // The virtual Ultimate's own thread (found by walking up from its host, as the Lispex worker).
  'engines/ultimate/virtual/device-thread': 'engines/ultimate/virtual/device-thread.ts',
  // The Ultimate Tool service; package.json's old subpath ./engines/ultimate/service points at this same build.
  'services/ultimate-tool/index': 'services/ultimate-tool/index.ts',
  'adapters/topup/index': 'adapters/topup/index.ts',
  'adapters/lispex/index': 'adapters/lispex/index.ts',
  'adapters/ultimate/index': 'adapters/ultimate/index.ts',
  'bin/mcp-engines': 'bin/mcp-engines.ts',
  'bin/topup': 'bin/topup.ts',
  'bin/topup-opt': 'bin/topup-opt.ts',
  'bin/lispex': 'bin/lispex.ts',
  'bin/ultimate-tool': 'bin/ultimate-tool.ts',
  'bin/ultimate-tool-mcp': 'bin/ultimate-tool-mcp.ts',
  'examples/echo-server': 'examples/echo-server.ts',
};
const entry = Object.fromEntries(Object.entries(candidates).filter(([, file]) => existsSync(file)));

export default defineConfig({
  entry,
  format: ['esm', 'cjs'],
  dts: {
    entry: Object.fromEntries(
      Object.entries(entry).filter(([k]) => !k.startsWith('bin/') && !k.endsWith('/worker') && !k.endsWith('/device-thread')),
    ),
  },
  sourcemap: true,
  // dist/products holds the Rust products built by scripts/build-products.mjs: keep them.
  clean: ['!products/**'],
  target: 'node20',
  platform: 'node',
  splitting: true,
  shims: true,
  outDir: 'dist',
  // The Ultimate Tool's web dashboard (browser code, not a Node entry): dist/dashboard/.
  onSuccess: () => buildDashboard(import.meta.dirname ?? process.cwd(), 'dist'),
});
