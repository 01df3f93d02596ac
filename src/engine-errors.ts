// Where engine errors become wire errors: the one mapping from an EngineError (common/) to the
// isError payload `{ error: message, code: errorCode, ...wireDetails }`. The ToolRegistry applies
// it to anything a handler throws; an adapter may still throw its own ToolError for tool-level
// failures.
import { EngineError } from '../common/engine-error.js';
import { ToolError } from './tool-result.js';

export function toolErrorFromEngineError(err: EngineError): ToolError {
  return new ToolError(err.message, { code: err.errorCode, ...err.wireDetails() });
}

/** The ToolError for a thrown value, or undefined when it is not an engine's or a tool's error. */
export function asToolError(err: unknown): ToolError | undefined {
  if (err instanceof ToolError) return err;
  if (err instanceof EngineError) return toolErrorFromEngineError(err);
  return undefined;
}
