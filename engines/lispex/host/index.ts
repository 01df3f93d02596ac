// Evaluation of Lispex programs in worker threads (wall clock, cancellation, memory bounds).
export { LispexHost, evaluateInWorker, DEFAULT_WALL_CLOCK_MS, UNBOUNDED_TRANSFER } from './lispex-host.js';
export type { LispexHostOptions, EvaluateOptions } from './lispex-host.js';
export type { HostOutcome, WorkerFailureReason } from './outcome.js';
export type { EvaluationJob, TransferBounds, BoundExcess } from './protocol.js';
export { locateWorkerScript, DEFAULT_WORKER_MEMORY } from './worker-script.js';
export type { WorkerScript, WorkerMemoryLimits } from './worker-script.js';
