// Where a worker thread's script is, and how to start it, for the engines that run work on their
// own thread (the Lispex evaluation workers, the virtual Ultimate). The same code runs from source
// (tsx: the script is a `.ts` file beside its engine) and from the build (tsup may place this code
// in a shared chunk anywhere under dist/, next to dist/<the script's path>.js), so a script is found
// by walking up from the calling module rather than by one fixed relative URL.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

export interface WorkerScript {
  readonly url: URL;
  /** A `.ts` script needs tsx inside the worker (Node 20 does not hand tsx's hooks to workers). */
  readonly typescript: boolean;
}

/**
 * Find `<scriptPath>.{ts,js}` (a path from the package root without extension, e.g.
 * `engines/lispex/worker`) by walking up from `moduleUrl`: `.ts` when the caller runs from source.
 */
export function locateScript(scriptPath: string, moduleUrl: string = import.meta.url): WorkerScript {
  const modulePath = fileURLToPath(moduleUrl);
  const typescript = modulePath.endsWith('.ts');
  const file = `${scriptPath}.${typescript ? 'ts' : 'js'}`;
  let dir = dirname(modulePath);
  for (;;) {
    const candidate = join(dir, file);
    if (existsSync(candidate)) return { url: pathToFileURL(candidate), typescript };
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`worker script ${file} not found above ${dirname(modulePath)}`);
}

/**
 * File URL of tsx's ESM API (`tsx/esm/api`, import condition), resolved from this module's
 * location. Written without `import.meta.resolve`, which does not exist in the CommonJS build.
 */
function tsxEsmApiUrl(): string {
  const require = createRequire(import.meta.url);
  const packageJsonPath = require.resolve('tsx/package.json');
  const exportsMap = JSON.parse(readFileSync(packageJsonPath, 'utf8')).exports?.['./esm/api'];
  const target: unknown = exportsMap?.import?.default ?? exportsMap?.import ?? exportsMap?.default;
  if (typeof target !== 'string') throw new Error('cannot find the tsx/esm/api entry in tsx/package.json');
  return pathToFileURL(join(dirname(packageJsonPath), target)).href;
}

/** Script evaluated in a worker started from source: register tsx, then load the real entry. */
const TSX_BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
import(workerData.tsxApi)
  .then((api) => { api.register(); return import(workerData.entry); })
  .catch((error) => { setImmediate(() => { throw error; }); });
`;

/**
 * Start `script` on a worker thread. From source the worker first registers tsx; the script then
 * finds its own data under `workerData.data` (from the build too), so both paths read it alike.
 */
export function startScriptWorker(script: WorkerScript, options: Omit<WorkerOptions, 'eval' | 'workerData'> & { data?: unknown }): Worker {
  const { data, ...rest } = options;
  return script.typescript
    ? new Worker(TSX_BOOTSTRAP, { ...rest, eval: true, workerData: { tsxApi: tsxEsmApiUrl(), entry: script.url.href, data } })
    : new Worker(script.url, { ...rest, workerData: { data } });
}
