// The VM route as the evaluator sees it: compile each top-level form (the whole program is
// normalized first, so the compiler knows every assigned global) and run it on one VM.

import { Compiler } from '../compiler.js';
import type { Core, CoreProgram } from '../core-ir.js';
import type { SourcePosition } from '../diagnostics.js';
import type { RouteRunner } from '../route-runner.js';
import type { RunContext } from '../run-context.js';
import type { Primitive, Value } from '../values.js';
import { Vm } from './vm.js';

export class VmRoute implements RouteRunner {
  private readonly compiler: Compiler;
  private readonly vm: Vm;

  constructor(ctx: RunContext, program: CoreProgram, primitives: ReadonlyMap<string, Primitive>) {
    this.compiler = new Compiler(program, ctx.globals, primitives);
    this.vm = new Vm(ctx);
  }

  evalForm(form: Core): Value {
    return this.vm.runTopLevel(this.compiler.compileForm(form));
  }

  currentSite(): SourcePosition {
    return this.vm.currentSite();
  }
}
