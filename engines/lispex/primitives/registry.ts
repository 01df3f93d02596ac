// The primitive registry: binds every row of primitive-capabilities.v2.json to an
// implementation. One `Primitive` object per runtime identity group, so aliases (first/car,
// call/cc/call-with-current-continuation, …) are the same procedure. Loading asserts that the
// contract has exactly 205 rows, that every row is bound, that each implementation comes from
// the table of its row's family, and that no table holds a name the contract does not list.

import { Primitive, type PrimitiveFn } from '../values.js';
import { AGGREGATE_PRIMITIVES } from './aggregate.js';
import { PRIMITIVE_CAPABILITIES, REQUIRED_ROWS, type PrimitiveCapability, type PrimitiveFamily } from './capabilities.js';
import { CHAR_PRIMITIVES } from './char.js';
import { EQUALITY_PRIMITIVES } from './equality.js';
import { HOF_PRIMITIVES } from './hof.js';
import { IO_PRIMITIVES } from './io.js';
import { COMPAT_PRIMITIVES, ERROR_OBJECT_PRIMITIVES, SYMBOL_PRIMITIVES } from './misc.js';
import { NUMERIC_PRIMITIVES } from './numeric.js';
import { PREDICATE_PRIMITIVES } from './predicate.js';
import { SEARCH_PRIMITIVES } from './search.js';
import { STRING_PRIMITIVES } from './string.js';

export type PrimitiveTable = Readonly<Record<string, PrimitiveFn>>;

/** L2's implementations by family; the control family comes from the machine (L1). */
export const VALUE_FAMILY_TABLES: Readonly<Record<Exclude<PrimitiveFamily, 'control'>, PrimitiveTable>> = {
  equality: EQUALITY_PRIMITIVES,
  compat: COMPAT_PRIMITIVES,
  numeric: NUMERIC_PRIMITIVES,
  hof: HOF_PRIMITIVES,
  aggregate: AGGREGATE_PRIMITIVES,
  search: SEARCH_PRIMITIVES,
  predicate: PREDICATE_PRIMITIVES,
  char: CHAR_PRIMITIVES,
  string: STRING_PRIMITIVES,
  io: IO_PRIMITIVES,
  'error-object': ERROR_OBJECT_PRIMITIVES,
  symbol: SYMBOL_PRIMITIVES,
};

export interface PrimitiveRegistry {
  /** Every contract row, in contract order. */
  readonly capabilities: readonly PrimitiveCapability[];
  /** Guest name → procedure (aliases map to their group's procedure). */
  readonly byName: ReadonlyMap<string, Primitive>;
  /** Guest name → contract row. */
  readonly capabilityByName: ReadonlyMap<string, PrimitiveCapability>;
}

export class RegistryBindingError extends Error {
  override readonly name = 'RegistryBindingError';
}

/**
 * Bind every contract row. `control` holds the machine's implementations of the control
 * family (keyed by identity-group name). Throws RegistryBindingError when the binding is not
 * exactly the contract's 205 rows.
 */
export function buildPrimitiveRegistry(
  control: PrimitiveTable,
  capabilities: readonly PrimitiveCapability[] = PRIMITIVE_CAPABILITIES,
): PrimitiveRegistry {
  const tables: Readonly<Record<PrimitiveFamily, PrimitiveTable>> = { ...VALUE_FAMILY_TABLES, control };
  if (capabilities.length !== REQUIRED_ROWS) {
    throw new RegistryBindingError(`primitive-capabilities has ${capabilities.length} rows, expected ${REQUIRED_ROWS}`);
  }
  const groups = new Map<string, Primitive>();
  const byName = new Map<string, Primitive>();
  const capabilityByName = new Map<string, PrimitiveCapability>();
  const used = new Set<string>();
  const missing: string[] = [];
  for (const row of capabilities) {
    capabilityByName.set(row.name, row);
    let prim = groups.get(row.identityGroup);
    if (prim === undefined) {
      const table = tables[row.family];
      const fn = Object.hasOwn(table, row.identityGroup) ? table[row.identityGroup] : undefined;
      if (fn === undefined) {
        missing.push(`${row.name} (${row.family})`);
        continue;
      }
      used.add(`${row.family}:${row.identityGroup}`);
      prim = new Primitive(row.identityGroup, row.minArgs, row.maxArgs, fn);
      groups.set(row.identityGroup, prim);
    } else if (prim.minArgs !== row.minArgs || prim.maxArgs !== row.maxArgs) {
      throw new RegistryBindingError(`alias ${row.name} disagrees in arity with ${row.identityGroup}`);
    }
    byName.set(row.name, prim);
  }
  if (missing.length > 0) throw new RegistryBindingError(`primitives without implementation: ${missing.join(', ')}`);
  const extra: string[] = [];
  for (const [family, table] of Object.entries(tables)) {
    for (const name of Object.keys(table)) if (!used.has(`${family}:${name}`)) extra.push(`${name} (${family})`);
  }
  if (extra.length > 0) throw new RegistryBindingError(`implementations not in the contract: ${extra.join(', ')}`);
  if (byName.size !== REQUIRED_ROWS) {
    throw new RegistryBindingError(`bound ${byName.size} primitive names, expected ${REQUIRED_ROWS}`);
  }
  return { capabilities, byName, capabilityByName };
}
