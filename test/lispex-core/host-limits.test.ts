// A RangeError that is not a stack overflow (V8's BigInt size limit) is a host limit on data,
// reported as an infrastructure error that says so — never as recursion-limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LispexEvaluator } from '../../engines/lispex/index.js';

for (const route of ['tree', 'vm'] as const) {
  test(`${route}: an exact integer past the host's size limit is not a recursion-limit`, () => {
    const o = new LispexEvaluator().run('(expt 3 (expt 10 10))', { route });
    assert.equal(o.status, 'infrastructure-error');
    assert.equal(o.diagnostics.length, 1);
    assert.notEqual(o.diagnostics[0]!.code, 'recursion-limit');
    assert.match(o.diagnostics[0]!.message, /BigInt/);
  });
}
