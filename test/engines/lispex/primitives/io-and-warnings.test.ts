// Output primitives write through rt.writeOut (one append per call); deprecated aliases warn
// through rt.warn and still return their result.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeRuntime, call } from './harness.js';

describe('io', () => {
  test('display, write, newline and println append exactly their printed form', () => {
    const rt = new FakeRuntime();
    call('(display "a\\"b")', rt);
    call('(write "a\\"b")', rt);
    call('(newline)', rt);
    call('(display (1 "x" #\\y 1.5))', rt);
    call('(write (1 "x" #\\y 1.5))', rt);
    call('(println |a b|)', rt);
    call('(write |a b|)', rt);
    assert.equal(rt.stdout, 'a"b"a\\"b"\n(1 x y 1.5)(1 "x" #\\y 1.5)a b\n|a b|');
  });

  test('each output call is a single append (so the meter sees one candidate)', () => {
    const appends: string[] = [];
    const rt = new FakeRuntime();
    rt.writeOut = (text: string) => void appends.push(text);
    call('(println (1 2))', rt);
    call('(display #(a "b"))', rt);
    assert.deepEqual(appends, ['(1 2)\n', '#(a b)']);
  });
});

describe('deprecated aliases', () => {
  test('% warns W330 and computes modulo', () => {
    const out = call('(% -7 2)');
    assert.equal(out.result, '1');
    assert.deepEqual(out.warnings, ['W330']);
  });
  test('list-first and list-rest warn W331 and behave as car/cdr', () => {
    const rt = new FakeRuntime();
    assert.equal(call('(list-first (1 2))', rt).result, '1');
    assert.equal(call('(list-rest (1 2))', rt).result, '(2)');
    assert.deepEqual(rt.warnings, ['W331', 'W331']);
  });
  test('the warning is recorded even when the call then fails', () => {
    const out = call('(list-first ())');
    assert.equal(out.result, '!E310');
    assert.deepEqual(out.warnings, ['W331']);
  });
  test('non-deprecated names never warn', () => {
    const rt = new FakeRuntime();
    call('(modulo -7 2)', rt);
    call('(car (1))', rt);
    assert.deepEqual(rt.warnings, []);
  });
});
