// Public entry of the Lispex engine (no MCP here): the evaluator, its observation types, and
// the pieces a host or a tool may want to name (catalog, profiles, primitive table).

export { LispexEvaluator, ENGINE_VERSION, primitiveTable, type RunOptions } from './evaluator.js';
export type {
  DiagnosticPhase,
  DiagnosticRecord,
  Identity,
  MeterAxis,
  Metrics,
  Observation,
  ObservationStatus,
  ProjectedValue,
  ResourceLimits,
  ResourceOutcome,
  ResourceUsage,
  Route,
  ValueRecord,
} from './observation.js';
export { PORTABLE_KINDS } from './observation.js';
export { DIAGNOSTIC_CATALOG, CATALOG_SCHEMA, DEFAULT_MESSAGES, type CatalogRow } from './diagnostics.js';
export {
  CALL_DEPTH_LIMIT,
  DEFAULT_PROFILE_ID,
  EXHAUSTION_CODES,
  LANGUAGE_PROFILE,
  METER_ID,
  METER_MANIFEST_ID,
  RESOURCE_PROFILES,
  profileById,
  type ResourceProfile,
} from './meter.js';
export { RESERVED_NAMES, FORBIDDEN_EXTENSIONS } from './normalizer.js';
export { CAPABILITY_ROWS } from './control-primitives.js';
// Embedding: evaluation in worker threads with the wall clock, cancellation, memory bounds and
// warm-worker reuse (what `lispex mcp serve` uses); the baseline API the worker resets to.
export {
  LispexHost,
  evaluateInWorker,
  DEFAULT_WALL_CLOCK_MS,
  UNBOUNDED_TRANSFER,
  DEFAULT_WORKER_MEMORY,
  locateWorkerScript,
  type LispexHostOptions,
  type EvaluateOptions,
  type HostOutcome,
  type WorkerFailureReason,
  type EvaluationJob,
  type TransferBounds,
  type BoundExcess,
  type WorkerScript,
  type WorkerMemoryLimits,
} from './host/index.js';
export { engineState, resetEngineTo, type EngineState } from './baseline.js';
