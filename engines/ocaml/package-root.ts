// Where the shipped agent source lives at run time (from source under tsx and from dist/ alike).
import { join } from 'node:path';
import { packageRoot } from '../../common/package-info.js';

/** The agents' OCaml sources, shipped in the package under engines/ocaml/agent/. */
export function agentSourceDir(): string {
  return join(packageRoot(), 'engines', 'ocaml', 'agent');
}
