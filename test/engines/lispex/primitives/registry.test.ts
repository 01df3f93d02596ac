// The registry is derived from primitive-capabilities.v2.json: exactly 205 rows bound, aliases
// share one procedure, arities come from the contract, and a missing or extra implementation
// makes loading fail.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import capabilitiesJson from '../../../../engines/lispex/contracts/primitive-capabilities.v2.json' with { type: 'json' };
import { makeControlPrimitives } from '../../../../engines/lispex/control-primitives.js';
import { PRIMITIVE_CAPABILITIES, parseArity } from '../../../../engines/lispex/primitives/capabilities.js';
import {
  RegistryBindingError,
  VALUE_FAMILY_TABLES,
  buildPrimitiveRegistry,
  type PrimitiveTable,
} from '../../../../engines/lispex/primitives/registry.js';
import { primitiveTable } from '../../../../engines/lispex/evaluator.js';

function machineControl(): PrimitiveTable {
  const out: Record<string, PrimitiveTable[string]> = {};
  for (const p of makeControlPrimitives().values()) out[p.name] = p.fn;
  return out;
}

describe('primitive registry', () => {
  test('binds exactly the 205 contract rows, with the machine control family', () => {
    const reg = buildPrimitiveRegistry(machineControl());
    assert.equal(capabilitiesJson.rows.length, 205);
    assert.equal(reg.byName.size, 205);
    assert.deepEqual(
      [...reg.byName.keys()],
      capabilitiesJson.rows.map((r) => r[1]),
    );
  });

  test('the evaluator binds the same 205 names', () => {
    assert.deepEqual([...primitiveTable().keys()].sort(), capabilitiesJson.rows.map((r) => r[1] as string).sort());
  });

  test('arities and families come from the contract', () => {
    const reg = buildPrimitiveRegistry(machineControl());
    for (const row of PRIMITIVE_CAPABILITIES) {
      const p = reg.byName.get(row.name)!;
      const { minArgs, maxArgs } = parseArity(row.arity);
      assert.equal(p.minArgs, minArgs, row.name);
      assert.equal(p.maxArgs, maxArgs, row.name);
    }
    assert.deepEqual(parseArity('1-or-2'), { minArgs: 1, maxArgs: 2 });
    assert.deepEqual(parseArity('0+'), { minArgs: 0, maxArgs: Infinity });
    assert.throws(() => parseArity('two'), /unknown arity/);
    const families = new Map<string, number>();
    for (const row of PRIMITIVE_CAPABILITIES) families.set(row.family, (families.get(row.family) ?? 0) + 1);
    assert.deepEqual(Object.fromEntries(families), {
      equality: 7,
      compat: 3,
      numeric: 38,
      hof: 12,
      aggregate: 58,
      control: 10,
      search: 6,
      predicate: 24,
      char: 20,
      string: 19,
      io: 4,
      'error-object': 2,
      symbol: 2,
    });
    assert.equal(PRIMITIVE_CAPABILITIES.filter((r) => r.mayCallGuestProcedure).length, 18);
  });

  test('names in one runtime identity group are one procedure', () => {
    const reg = buildPrimitiveRegistry(machineControl());
    const pairs: [string, string][] = [
      ['call/cc', 'call-with-current-continuation'],
      ['equal?', '=='],
      ['first', 'car'],
      ['inexact', 'exact->inexact'],
      ['inexact->exact', 'exact'],
      ['nth', 'list-ref'],
      ['null?', 'empty?'],
      ['reduce', 'fold-left'],
      ['rest', 'cdr'],
    ];
    for (const [alias, target] of pairs) assert.equal(reg.byName.get(alias), reg.byName.get(target), alias);
    assert.notEqual(reg.byName.get('list-first'), reg.byName.get('car'), 'deprecated aliases are their own procedures');
    assert.equal(new Set(reg.byName.values()).size, 205 - pairs.length);
  });

  test('a row without an implementation fails the load', () => {
    const control = { ...machineControl() };
    delete (control as Record<string, unknown>)['dynamic-wind'];
    assert.throws(
      () => buildPrimitiveRegistry(control),
      (e: unknown) => e instanceof RegistryBindingError && /dynamic-wind/.test(e.message),
    );
    const fewer = PRIMITIVE_CAPABILITIES.filter((r) => r.name !== 'car');
    assert.throws(() => buildPrimitiveRegistry(machineControl(), fewer), /204 rows, expected 205/);
  });

  test('an implementation the contract does not list fails the load', () => {
    const control = { ...machineControl(), 'call/ec': () => 0 };
    assert.throws(() => buildPrimitiveRegistry(control), /call\/ec \(control\)/);
  });

  test('every value-family table entry is a contract row of that family', () => {
    for (const [family, table] of Object.entries(VALUE_FAMILY_TABLES)) {
      for (const name of Object.keys(table)) {
        const row = PRIMITIVE_CAPABILITIES.find((r) => r.identityGroup === name);
        assert.ok(row !== undefined && row.family === family, `${name} in ${family}`);
      }
    }
  });
});
