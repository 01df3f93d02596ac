// Where the shipped agent source lives at run time (from source under tsx and from dist/ alike).
import { join } from 'node:path';
import { packageRoot } from '../../common/package-info.js';

/** The agent's OCaml source file, shipped in the package under engines/ocaml/agent/. */
export function agentSourcePath(): string {
  return join(packageRoot(), 'engines', 'ocaml', 'agent', 'topup_agent.ml');
}
