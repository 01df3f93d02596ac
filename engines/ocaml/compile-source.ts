// `load` of an OCaml source file under the native driver: the file is compiled on its own into a
// plugin (.cmxs) in a private directory, which the agent then dynlinks like any other .cmxs.
// The copy keeps the compiler's outputs (.cmi/.cmx/.o) out of the user's directory; the
// original directory stays on the include path so the file can use its neighbours' interfaces.
import { copyFile, mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { OcamlError, ocamlMissing } from './errors.js';
import { CommandNotFound, runCommand } from './run-command.js';

/** A file name that is also a valid module name (Foo.ml / foo.ml → Foo). */
const MODULE_FILE = /^[A-Za-z][A-Za-z0-9_']*\.ml$/;

/** Compile `source` into `<outDir>/<name>.cmxs` and return that path. */
export async function compileSourceToPlugin(source: string, outDir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const file = basename(source);
  if (!MODULE_FILE.test(file)) {
    throw new OcamlError('bad_argument', `${source}: the file name must be a module name (letters, digits, _ and ', ending in .ml)`);
  }
  await mkdir(outDir, { recursive: true, mode: 0o700 });
  await copyFile(source, join(outDir, file));
  const plugin = `${file.slice(0, -3)}.cmxs`;
  let r: Awaited<ReturnType<typeof runCommand>>;
  try {
    r = await runCommand('ocamlfind', ['ocamlopt', '-shared', '-I', dirname(source), '-o', plugin, file], {
      cwd: outDir,
      env,
      timeoutMs: 300_000,
    });
  } catch (err) {
    if (err instanceof CommandNotFound) throw ocamlMissing('ocamlfind');
    throw err;
  }
  if (r.code !== 0) throw new OcamlError('bad_argument', `cannot compile ${source}:\n${r.output.trim()}`);
  return join(outDir, plugin);
}
