// Where the evaluation worker's script is (engines/lispex/worker.{ts,js}), and how to start it:
// the finding and the tsx bootstrap are common/worker-script.ts; what is Lispex's own is the
// worker's cleared ambient configuration and its memory bounds.

import type { Worker } from 'node:worker_threads';
import { locateScript, startScriptWorker, type WorkerScript } from '../../../common/worker-script.js';

export type { WorkerScript } from '../../../common/worker-script.js';

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
  return locateScript('engines/lispex/worker', moduleUrl);
}

/**
 * Start one worker. Its ambient configuration is cleared: an empty environment, no argv, no
 * execArgv (nothing of the server's own flags or variables reaches guest evaluation). Its stdout
 * is sent to stderr by the worker loop itself (serveEvaluations), so nothing it prints can reach
 * the server's stdout, the MCP channel. (Piping the worker's stdio instead would keep the event
 * loop alive even after worker.unref(), so an idle warm worker would hold the process open.)
 */
export function startWorker(script: WorkerScript, memory: WorkerMemoryLimits): Worker {
  return startScriptWorker(script, { env: {}, argv: [], execArgv: [], resourceLimits: { ...memory } });
}
