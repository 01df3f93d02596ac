// Differential test: ≥10,000 generated programs (see generator.ts for the four kinds), each run
// on the tree evaluator and on the VM;
// the two observations must agree on every semantic axis (status, stdout, diagnostics with
// code/message/irritants/position, warnings, exit status, values, interactive output, resource
// status/limit/limits). Counter values are route-local and not compared (meter-manifest v3).
// LISPEX_DIFF_PROGRAMS / LISPEX_DIFF_SEED override the count and the first seed.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LispexEvaluator, type Observation } from '../../../../engines/lispex/index.js';
import { OP_NAMES } from '../../../../engines/lispex/bytecode.js';
import { CorpusCoverage } from './coverage.js';
import { ProgramGenerator } from './generator.js';

/** The 13 core forms every derived form lowers to (core-ir.ts). */
const CORE_FORMS = [
  'literal',
  'variable',
  'quote',
  'if',
  'lambda',
  'begin',
  'set!',
  'define',
  'let',
  'letrec',
  'values',
  'application',
  'guard',
];

const COUNT = Number(process.env.LISPEX_DIFF_PROGRAMS ?? 10_000);
const SEED = Number(process.env.LISPEX_DIFF_SEED ?? 20261130);

/** Everything compared: the observation without route identity, timing and counter values. */
function semantic(o: Observation): unknown {
  return {
    status: o.status,
    stdout: o.stdout,
    stdout_bytes: o.stdout_bytes,
    diagnostics: o.diagnostics,
    warnings: o.warnings,
    exit_status: o.exit_status,
    values: o.values,
    interactive_stdout: o.interactive_stdout,
    resource: {
      status: o.resource_outcome.status,
      limit: o.resource_outcome.limit,
      limits: o.resource_outcome.limits,
      profile: o.resource_outcome.profile_id,
    },
    source_sha256: o.identity.source_sha256,
  };
}

test(`tree and VM agree on ${COUNT} generated programs`, { timeout: 600_000 }, (t) => {
  const ev = new LispexEvaluator();
  const statuses = new Map<string, number>();
  const codes = new Set<string>();
  const mismatches: string[] = [];
  const coverage = new CorpusCoverage();
  let failedInFirstForm = 0;
  for (let i = 0; i < COUNT; i++) {
    const source = new ProgramGenerator(SEED + i).program();
    coverage.add(source);
    const tree = ev.run(source, { route: 'tree' });
    const vm = ev.run(source, { route: 'vm' });
    const a = JSON.stringify(semantic(tree));
    const b = JSON.stringify(semantic(vm));
    if (a !== b && mismatches.length < 5) mismatches.push(`seed ${SEED + i}:\n${source}\ntree: ${a}\nvm:   ${b}`);
    statuses.set(tree.status, (statuses.get(tree.status) ?? 0) + 1);
    for (const d of tree.diagnostics) codes.add(d.code);
    if (tree.status === 'runtime-error' && tree.diagnostics[0]?.line === 1) failedInFirstForm++;
    assert.notEqual(tree.status, 'infrastructure-error', `seed ${SEED + i} crashed the engine:\n${source}\n${a}`);
  }
  assert.deepEqual(mismatches, [], `route mismatches:\n${mismatches.join('\n\n')}`);
  // The generator must exercise both successes and a spread of faults, or agreement is vacuous.
  const seen = JSON.stringify([...statuses]);
  t.diagnostic(`statuses ${seen}; failed in line 1: ${failedInFirstForm}; opcodes ${coverage.opcodes.size}/${OP_NAMES.length}`);
  // Mostly successes (the well-typed half), yet every kind of outcome is well represented.
  assert.ok((statuses.get('ok') ?? 0) > COUNT / 2, `too few ok programs: ${seen}`);
  assert.ok((statuses.get('runtime-error') ?? 0) > COUNT / 10, `too few failing programs: ${seen}`);
  assert.ok((statuses.get('source-error') ?? 0) > COUNT / 50, `too few reader-error programs: ${seen}`);
  assert.ok((statuses.get('resource') ?? 0) > COUNT / 200, `too few resource-limit programs: ${seen}`);
  assert.ok(failedInFirstForm < COUNT / 5, `${failedInFirstForm} programs failed in their first line`);
  for (const code of ['E100', 'E300', 'E302', 'E310', 'E312', 'E320', 'E330', 'E331', 'recursion-limit', 'output-limit']) {
    assert.ok(codes.has(code), `no generated program raised ${code}; saw ${[...codes].sort().join(' ')}`);
  }
  // Coverage: every VM instruction is emitted and every core form occurs somewhere in the corpus.
  assert.deepEqual(
    OP_NAMES.filter((op) => !coverage.opcodes.has(op)),
    [],
    'VM instructions never emitted by the corpus',
  );
  assert.deepEqual(
    CORE_FORMS.filter((k) => !coverage.coreForms.has(k)),
    [],
    'core forms never reached by the corpus',
  );
});
