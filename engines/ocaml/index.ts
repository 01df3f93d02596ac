// The OCaml engine: a persistent OCaml toplevel usable from plain TypeScript (no MCP here).
export { OcamlToplevel, DEFAULT_TIMEOUT_SEC, MAX_TIMEOUT_SEC, type OcamlToplevelOptions } from './toplevel.js';
export { OcamlError, OCAML_PACKAGES, type OcamlErrorCode } from './errors.js';
export { validateCheckpointLabel } from './checkpoint-label.js';
export { DEFAULT_INLINE_CAP, DEFAULT_SPILL_RETENTION_MS, defaultSpillDir } from './overflow.js';
export { defaultLogPath } from './phrase-log.js';
export { type AgentDriver, defaultAgentCacheDir, ensureAgentBinary, ocamlVersion } from './agent-build.js';
export { PROMOTE_MARKER } from './promote.js';
export type {
  Binding,
  CheckpointResult,
  CompileResult,
  EvalBatchResult,
  EvalErrorKind,
  EvalBatchOptions,
  EvalOptions,
  EvalResult,
  LookupResult,
  SourceLocation,
  ToplevelRestart,
} from './types.js';
