// The dashboard's static files: a fixed allow-list (no path from the request is ever joined to the
// file system), read once from `<package>/dist/dashboard/` where `npm run build` puts the esbuild
// bundle, the HTML and the CSS (tsup.config.ts). The same folder is found from the bundled dist/
// bins and from the sources under tsx, because packageRoot() walks up to package.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../common/index.js';

export interface DashboardAsset {
  body: Buffer;
  contentType: string;
}

/** URL path → file in dist/dashboard and its media type. */
const ASSETS: Record<string, { file: string; contentType: string }> = {
  '/': { file: 'index.html', contentType: 'text/html; charset=utf-8' },
  '/dashboard/app.js': { file: 'app.js', contentType: 'text/javascript; charset=utf-8' },
  '/dashboard/style.css': { file: 'style.css', contentType: 'text/css; charset=utf-8' },
};

export function isDashboardPath(path: string): boolean {
  return path === '/' || path.startsWith('/dashboard/') || path === '/dashboard';
}

export function dashboardAssetDir(): string {
  return join(packageRoot(), 'dist', 'dashboard');
}

export class DashboardAssets {
  readonly #dir: string;
  readonly #cache = new Map<string, DashboardAsset>();

  constructor(dir: string = dashboardAssetDir()) {
    this.#dir = dir;
  }

  /** The asset for a URL path; undefined when the path is not one of the dashboard's files. */
  get(path: string): DashboardAsset | 'not-built' | undefined {
    const spec = ASSETS[path === '/dashboard' || path === '/dashboard/' ? '/' : path];
    if (!spec) return undefined;
    const hit = this.#cache.get(spec.file);
    if (hit) return hit;
    let body: Buffer;
    try {
      body = readFileSync(join(this.#dir, spec.file));
    } catch {
      return 'not-built';
    }
    const asset = { body, contentType: spec.contentType };
    this.#cache.set(spec.file, asset);
    return asset;
  }
}
