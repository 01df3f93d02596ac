// The installed package's root folder (where its package.json is) and version, found by walking
// up from this module: works from source (tsx) and from the bundled dist/ alike. Shipped non-TS
// assets (the OCaml agent source, Lispex contracts, C64 character set) are found relative to it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: { root: string; version: string } | undefined;

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
      try {
        const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: unknown; version?: unknown };
        if (pkg.name === 'mcp-engines' && typeof pkg.version === 'string') {
          cached = { root: dir, version: pkg.version };
          return cached;
        }
      } catch {
        // an unreadable package.json on the way up is not ours; keep climbing
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the mcp-engines package.json above ${here}`);
    dir = parent;
  }
}
