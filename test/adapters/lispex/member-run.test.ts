// Which member a failed comparison names. The court cancels the other members as soon as one
// fails, so on a loaded machine the worker member listed first can be "cancelled" while the
// product listed second is the one that ran past its wall clock: the error must name the product.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failedMemberIndex, type MemberRun } from '../../../adapters/lispex/member-run.js';

const cancelledWorker: MemberRun = { host: { kind: 'cancelled', hostMs: 4_900 } };
const completedWorker = { host: { kind: 'completed', hostMs: 3 } } as unknown as MemberRun;
const hungProduct: MemberRun = {
  external: { kind: 'failed', reason: 'wall-clock-exceeded', message: 'topaz-vm ran past the 5000 ms wall clock', processesStarted: 1 },
};
const cancelledProduct: MemberRun = {
  external: { kind: 'failed', reason: 'cancelled', message: 'cancelled', processesStarted: 1 },
};

test('a member cancelled because another failed does not stand in for the cause', () => {
  assert.equal(failedMemberIndex([cancelledWorker, hungProduct]), 1);
  assert.equal(failedMemberIndex([cancelledProduct, { host: { kind: 'wall-clock-exceeded', limitMs: 5_000, hostMs: 5_001 } }]), 1);
});

test('the first failure when it is the cause, or when every failure is a cancellation', () => {
  assert.equal(failedMemberIndex([hungProduct, cancelledWorker]), 0);
  assert.equal(failedMemberIndex([completedWorker, cancelledProduct]), 1);
  assert.equal(failedMemberIndex([cancelledWorker, cancelledProduct]), 0);
});

test('no failure: -1', () => {
  assert.equal(failedMemberIndex([completedWorker, completedWorker]), -1);
});
