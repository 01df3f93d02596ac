// Where the evaluation worker's script is, and how to start it. The same code runs from source
// (tsx: engines/lispex/host/*.ts next to engines/lispex/worker.ts) and from the build (tsup may
// place this code in a shared chunk anywhere under dist/, next to dist/engines/lispex/worker.js),
// so the script is found by walking up from this module rather than by one fixed relative URL.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

export interface WorkerScript {
  readonly url: URL;
  /** A `.ts` script needs tsx inside the worker (Node 20 does not hand tsx's hooks to workers). */
  readonly typescript: boolean;
}

/** Memory bounds of one worker (V8 `resourceLimits`); exceeding them kills only that worker. */
export interface WorkerMemoryLimits {
  readonly maxOldGenerationSizeMb: number;
  readonly maxYoungGenerationSizeMb: number;
  readonly stackSizeMb: number;
}

export const DEFAULT_WORKER_MEMORY: WorkerMemoryLimits = {
  maxOldGenerationSizeMb: 512,
  maxYoungGenerationSizeMb: 64,
  stackSizeMb: 4,
};

/** Find `engines/lispex/worker.{ts,js}` by walking up from `moduleUrl` (this module by default). */
export function locateWorkerScript(moduleUrl: string = import.meta.url): WorkerScript {
  const modulePath = fileURLToPath(moduleUrl);
  const typescript = modulePath.endsWith('.ts');
  const file = typescript ? 'worker.ts' : 'worker.js';
  let dir = dirname(modulePath);
  for (;;) {
    const candidate = join(dir, 'engines', 'lispex', file);
    if (existsSync(candidate)) return { url: pathToFileURL(candidate), typescript };
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`lispex worker script engines/lispex/${file} not found above ${dirname(modulePath)}`);
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
 * Start one worker. Its ambient configuration is cleared: an empty environment, no argv, no
 * execArgv (nothing of the server's own flags or variables reaches guest evaluation). Its stdout
 * is sent to stderr by the worker loop itself (serveEvaluations), so nothing it prints can reach
 * the server's stdout, the MCP channel. (Piping the worker's stdio instead would keep the event
 * loop alive even after worker.unref(), so an idle warm worker would hold the process open.)
 */
export function startWorker(script: WorkerScript, memory: WorkerMemoryLimits): Worker {
  const options = {
    env: {},
    argv: [],
    execArgv: [],
    resourceLimits: { ...memory },
  };
  const worker = script.typescript
    ? new Worker(TSX_BOOTSTRAP, {
        ...options,
        eval: true,
        workerData: { tsxApi: tsxEsmApiUrl(), entry: script.url.href },
      })
    : new Worker(script.url, options);
  return worker;
}
