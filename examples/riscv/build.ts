// Builds the example native programs into ELF and .UE2 files (examples/riscv/build/). Used by the
// tests (buildExample) and by hand or from setup: node --import tsx examples/riscv/build.ts
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRiscvProgram, packUe2FromElf } from '../../engines/ultimate/index.js';

const here = dirname(fileURLToPath(import.meta.url));

/** The examples and their source files. */
export const EXAMPLES = {
  smoke: ['crt0.S', 'runtime.c', 'smoke.c'],
  hello: ['crt0.S', 'runtime.c', 'hello.c'],
  'c64-touch': ['crt0.S', 'runtime.c', 'c64-touch.c'],
  ends: ['ends.S'],
} as const;

export type ExampleName = keyof typeof EXAMPLES;

export interface BuiltExample {
  elf: Uint8Array;
  ue2: Uint8Array;
  symbols: Map<string, number>;
}

export async function buildExample(name: ExampleName): Promise<BuiltExample> {
  const sources: Record<string, string> = {};
  for (const f of [...EXAMPLES[name], 'ultimate.h']) sources[f] = readFileSync(join(here, f), 'utf8');
  const built = await buildRiscvProgram({ sources, flags: ['-O2'] });
  return { elf: built.elf, ue2: packUe2FromElf(built.elf), symbols: built.symbols };
}

async function main(): Promise<void> {
  const out = join(here, 'build');
  await mkdir(out, { recursive: true });
  for (const name of Object.keys(EXAMPLES) as ExampleName[]) {
    const b = await buildExample(name);
    await writeFile(join(out, `${name}.elf`), b.elf);
    await writeFile(join(out, `${name}.ue2`), b.ue2);
    process.stdout.write(`examples/riscv/build/${name}.ue2 (${b.ue2.length} bytes)\n`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
