// The single global environment of a run (all top-level forms share it): one mutable cell per
// global name, pre-bound to the primitives. Both routes resolve a global to its cell once (the VM
// at compile time) and read `cell.value` afterwards.

import { Sym, type Value } from './values.js';

/** Marker for "no value yet": an unbound global (E300/E303) or an uninitialized letrec slot (E321). */
export class Unassigned {
  static readonly instance = new Unassigned();
  private constructor() {}
}
/** `Unassigned` typed as a Value so it can sit in value slots; never escapes to guest code. */
export const UNASSIGNED = Unassigned.instance as unknown as Value;

export class GlobalCell {
  value: Value = UNASSIGNED;
  constructor(readonly name: Sym) {}
}

export class Globals {
  private readonly cells = new Map<Sym, GlobalCell>();

  /**
   * `initial`: the values every name starts with (the primitives, by name). A cell is made only
   * when a name is first used, so a run pays for the globals it touches, not for the whole table
   * (most of a small evaluation's cost otherwise).
   */
  constructor(private readonly initial: ReadonlyMap<string, Value> | null = null) {}

  cell(name: Sym): GlobalCell {
    let c = this.cells.get(name);
    if (c === undefined) {
      c = new GlobalCell(name);
      const v = this.initial?.get(name.name);
      if (v !== undefined) c.value = v;
      this.cells.set(name, c);
    }
    return c;
  }

  define(name: Sym | string, value: Value): void {
    this.cell(typeof name === 'string' ? Sym.of(name) : name).value = value;
  }

  lookup(name: Sym): Value | undefined {
    const c = this.cells.get(name);
    if (c === undefined) return this.initial?.get(name.name);
    return c.value === UNASSIGNED ? undefined : c.value;
  }
}
