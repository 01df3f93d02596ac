// Errors the OCaml engine reports to its caller. Each names what is wrong and what would fix it;
// `code` lets an adapter map them without parsing messages; as an EngineError (common/) it reaches
// the wire as `{ error, code }` through the registry's one mapping.
import { EngineError } from '../../common/engine-error.js';

export type OcamlErrorCode =
  | 'ocaml_missing' // the toolchain is not installed
  | 'agent_build' // the agent program failed to compile
  | 'agent_start' // the agent did not come up
  | 'bad_argument' // the caller passed something malformed (label, path, name)
  | 'not_found' // an unbound name, a missing checkpoint or file
  | 'log_unavailable' // the phrase log is not writable
  | 'cancelled' // the call was cancelled before it ran
  | 'closed' // the engine was closed
  | 'build_failed'; // compile_to_binary precondition failure

export class OcamlError extends EngineError {
  override readonly name = 'OcamlError';
  readonly engine = 'ocaml';
  constructor(
    readonly code: OcamlErrorCode,
    message: string,
  ) {
    super(message);
  }

  get errorCode(): OcamlErrorCode {
    return this.code;
  }
}

/** The Debian packages that provide everything the engine needs. */
export const OCAML_PACKAGES = 'ocaml-nox ocaml-dune ocaml-findlib libfindlib-ocaml-dev';

export function ocamlMissing(what: string): OcamlError {
  return new OcamlError(
    'ocaml_missing',
    `${what} was not found on PATH; the OCaml toplevel needs the OCaml toolchain: install it with ` +
      `"apt-get install ${OCAML_PACKAGES}" (Debian/Ubuntu)`,
  );
}
