// Coverage of a generated corpus: which VM instructions the compiler emits for it (every code
// object, nested procedures included) and which core forms its normalized IR contains. Measured
// statically, by compiling each program once more outside the run, so the VM's hot loop carries
// no instrumentation; a program whose source fails before compiling contributes nothing.

import { CodeObject, OP_NAMES, OPERANDS } from '../../../../engines/lispex/bytecode.js';
import { Compiler } from '../../../../engines/lispex/compiler.js';
import type { Core } from '../../../../engines/lispex/core-ir.js';
import { Globals } from '../../../../engines/lispex/globals.js';
import { primitiveTable } from '../../../../engines/lispex/index.js';
import { DEFAULT_PROFILE_ID, Meter, profileById } from '../../../../engines/lispex/meter.js';
import { normalizeProgram } from '../../../../engines/lispex/normalizer.js';
import { readAll } from '../../../../engines/lispex/reader.js';
import { encodeSource } from '../../../../engines/lispex/source.js';

export class CorpusCoverage {
  readonly opcodes = new Set<string>();
  readonly coreForms = new Set<string>();

  add(source: string): void {
    const meter = new Meter(profileById(DEFAULT_PROFILE_ID).limits);
    const primitives = primitiveTable();
    let forms: readonly Core[];
    let compiler: Compiler;
    try {
      const program = normalizeProgram(readAll(encodeSource(source), meter), meter, (name) => primitives.get(name)!);
      forms = program.forms;
      compiler = new Compiler(program, new Globals(), primitives);
    } catch {
      return;
    }
    for (const form of forms) {
      this.walk(form);
      try {
        this.code(compiler.compileForm(form));
      } catch {
        // A form the compiler refuses (too deep) contributes nothing.
      }
    }
  }

  private code(c: CodeObject): void {
    for (let pc = 0; pc < c.code.length; ) {
      const op = c.code[pc]!;
      this.opcodes.add(OP_NAMES[op]!);
      pc += 1 + (OPERANDS[op] ?? 0);
    }
    for (const k of c.consts) if (k instanceof CodeObject) this.code(k);
  }

  private walk(root: Core): void {
    const stack: unknown[] = [root];
    while (stack.length > 0) {
      const x = stack.pop();
      if (Array.isArray(x)) {
        for (const y of x) stack.push(y);
        continue;
      }
      if (x === null || typeof x !== 'object' || !('k' in x) || !('span' in x)) continue;
      this.coreForms.add((x as { k: string }).k);
      for (const [key, v] of Object.entries(x)) if (key !== 'span' && key !== 'value' && typeof v === 'object') stack.push(v);
    }
  }
}
