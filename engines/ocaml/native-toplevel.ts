// topup-opt needs a native toplevel (compiler-libs.native-toplevel / ocamlnat) to run phrases as
// native code and Dynlink .cmxs archives. Debian's OCaml packages do not ship one, so for now the
// only honest thing topup-opt can do is detect that and say so.
import { runCommand } from './run-command.js';

export interface NativeToplevelProbe {
  available: boolean;
  /** What was looked for and what was found. */
  detail: string;
}

export async function probeNativeToplevel(env: NodeJS.ProcessEnv = process.env): Promise<NativeToplevelProbe> {
  const query = await runCommand('ocamlfind', ['query', 'compiler-libs.native-toplevel'], { env, timeoutMs: 30_000 }).catch(() => null);
  if (query === null) return { available: false, detail: 'ocamlfind is not installed' };
  if (query.code === 0) return { available: true, detail: `compiler-libs.native-toplevel at ${query.output.trim()}` };
  const nat = await runCommand('ocamlnat', ['-version'], { env, timeoutMs: 30_000 }).catch(() => null);
  if (nat && nat.code === 0) return { available: true, detail: `ocamlnat ${nat.output.trim()}` };
  return { available: false, detail: 'neither the findlib package compiler-libs.native-toplevel nor an ocamlnat program was found' };
}
