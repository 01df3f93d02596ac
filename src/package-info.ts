import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: { root: string; version: string } | undefined;

/**
 * The installed package's root folder (where package.json is), found by walking up from this
 * module: works from source (tsx) and from the bundled dist/ alike. Shipped non-TS assets (the
 * OCaml agent source, Lispex contracts) are located relative to it.
 */
export function packageRoot(): string {
  return info().root;
}

export function packageVersion(): string {
  return info().version;
}

function info(): { root: string; version: string } {
  if (cached) return cached;
  const here = typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));
  let dir = here;
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8'));
      if (pkg.name === 'mcp-engines') return (cached = { root: dir, version: pkg.version });
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the mcp-engines package.json above ${here}`);
    dir = parent;
  }
}
