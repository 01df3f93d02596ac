// Resource promises the meter does not cover: V8's own data limits, large allocations outside the
// V8 heap, and oversized error payloads. Each ends in a catalog diagnostic, on both routes alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IRRITANT_COUNT_LIMIT, IRRITANT_TEXT_LIMIT, MESSAGE_TEXT_LIMIT } from '../../../engines/lispex/evaluator.js';
import { ALLOCATION_BUDGET_BYTES } from '../../../engines/lispex/run-context.js';
import { both } from './helpers.js';

test("an exact integer past V8's BigInt size limit is E311, not an infrastructure error", () => {
  const o = both('(display "kept") (expt 3 (expt 10 10))');
  assert.equal(o.status, 'runtime-error');
  assert.equal(o.diagnostics[0]!.code, 'E311');
  assert.match(o.diagnostics[0]!.message, /exact integer beyond the host limit/);
  assert.doesNotMatch(o.diagnostics[0]!.message, /BigInt|Maximum/);
  assert.equal(o.stdout, 'kept');
});

test("a string past V8's length limit is E311 with a message of ours", () => {
  const o = both('(define s (make-string 16777216 #\\a)) (define (grow x n) (if (= n 0) x (grow (string-append x x) (- n 1)))) (grow s 6)');
  assert.equal(o.status, 'runtime-error');
  assert.equal(o.diagnostics[0]!.code, 'E311');
  assert.match(o.diagnostics[0]!.message, /string longer than the host limit/);
});

test('bytevectors count against the run allocation budget: a loop of 16 MiB bytevectors ends in E311', () => {
  const o = both('(define (hoard n acc) (hoard (+ n 1) (cons (make-bytevector 16777216 1) acc))) (hoard 0 (quote ()))');
  assert.equal(o.status, 'runtime-error');
  assert.equal(o.diagnostics[0]!.code, 'E311');
  assert.match(o.diagnostics[0]!.message, /make-bytevector: allocation beyond the run's memory budget/);
  assert.deepEqual(o.diagnostics[0]!.irritants, ['16777216']);
  // Exactly budget / 16 MiB bytevectors fit before the refusal.
  assert.match(o.diagnostics[0]!.message, new RegExp(`\\(${ALLOCATION_BUDGET_BYTES} of ${ALLOCATION_BUDGET_BYTES} bytes`));
});

test('make-vector and make-string share the same budget', () => {
  const o = both('(define a (make-vector 16777216 0)) (define b (make-vector 16777216 0)) (make-string 1 #\\a)');
  assert.equal(o.diagnostics[0]!.code, 'E311');
  assert.match(o.diagnostics[0]!.message, /^make-string: allocation beyond/);
});

test('a huge irritant is cut so the diagnostic stays small and keeps its code', () => {
  const o = both('(+ 1 (make-list 300000 0))');
  assert.equal(o.diagnostics[0]!.code, 'E312');
  const [, big] = [o.diagnostics[0]!.irritants[0], o.diagnostics[0]!.irritants.at(-1)!];
  assert.ok(big.length <= IRRITANT_TEXT_LIMIT + 3);
  assert.ok(big.endsWith('...'));
  assert.ok(JSON.stringify(o).length < 10_000);
});

test('many irritants are capped and counted; a huge guest message is cut', () => {
  const o = both('(apply error "many" (make-list 100 1))');
  assert.equal(o.diagnostics[0]!.irritants.length, IRRITANT_COUNT_LIMIT + 1);
  assert.equal(o.diagnostics[0]!.irritants.at(-1), `...${100 - IRRITANT_COUNT_LIMIT} more`);
  const m = both('(error (make-string 100000 #\\m))');
  assert.equal(m.diagnostics[0]!.message.length, MESSAGE_TEXT_LIMIT + 3);
});

test('diagnostic texts do not repeat the name (message, then the name as irritant)', () => {
  const unbound = both('undefined-name');
  assert.equal(unbound.diagnostics[0]!.rendered, 'E300 source:1:1 unbound variable undefined-name');
  const setUnbound = both('(set! other-name 1)');
  assert.equal(setUnbound.diagnostics[0]!.code, 'E303');
  assert.equal(setUnbound.diagnostics[0]!.rendered.split('other-name').length - 1, 1);
});
