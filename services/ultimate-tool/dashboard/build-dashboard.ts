// Builds the dashboard's browser files into <outDir>/dashboard/: the client TypeScript bundled by
// esbuild (already a dependency of tsup; one small IIFE, no framework) plus index.html and
// style.css copied as they are. Called by tsup.config.ts after the Node build; the service serves
// the result (dashboard-assets.ts).
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

export async function buildDashboard(repoRoot: string, outDir: string): Promise<void> {
  const src = join(repoRoot, 'services', 'ultimate-tool', 'dashboard');
  const out = join(outDir, 'dashboard');
  mkdirSync(out, { recursive: true });
  await build({
    entryPoints: [join(src, 'client', 'main.ts')],
    outfile: join(out, 'app.js'),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  for (const f of ['index.html', 'style.css']) copyFileSync(join(src, f), join(out, f));
}
