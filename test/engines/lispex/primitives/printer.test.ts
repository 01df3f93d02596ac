// The one fixed printed form: write/display per value kind, round-trip through the reader for
// the portable kinds, datum labels for cycles, and iterative printing of deep structures.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { displayValue, writeValue } from '../../../../engines/lispex/printer.js';
import {
  Bytevector,
  Char,
  Closure,
  Continuation,
  ErrorObject,
  Flonum,
  LString,
  LVector,
  NIL,
  Pair,
  Primitive,
  Ratnum,
  Sym,
  UNSPECIFIED,
  listFromArray,
  type ClosureCode,
  type Value,
} from '../../../../engines/lispex/values.js';
import { isEqual } from '../../../../engines/lispex/primitives/equality.js';
import { datum } from './harness.js';

describe('write', () => {
  const cases: [Value, string][] = [
    [true, '#t'],
    [false, '#f'],
    [NIL, '()'],
    [42, '42'],
    [-7, '-7'],
    [2n ** 64n, '18446744073709551616'],
    [new Ratnum(-1n, 3n), '-1/3'],
    [new Flonum(1.5), '1.5'],
    [new Flonum(1), '1.0'],
    [new Flonum(-0), '-0.0'],
    [new Flonum(1e21), '1.0e21'],
    [new Flonum(1.5e-7), '1.5e-7'],
    [new Flonum(123456789012345680000), '123456789012345680000.0'],
    [new Flonum(0.1), '0.1'],
    [new Flonum(5e-324), '5.0e-324'],
    [new Flonum(1.7976931348623157e308), '1.7976931348623157e308'],
    [new LString('a"b\\c\nd\te\r\x07\x08\x00\x7f|λ😀'), '"a\\"b\\\\c\\nd\\te\\r\\a\\b\\x0;\\x7f;|λ😀"'],
    [Char.of(97), '#\\a'],
    [Char.of(32), '#\\space'],
    [Char.of(10), '#\\newline'],
    [Char.of(9), '#\\tab'],
    [Char.of(0), '#\\null'],
    [Char.of(7), '#\\alarm'],
    [Char.of(8), '#\\backspace'],
    [Char.of(127), '#\\delete'],
    [Char.of(27), '#\\escape'],
    [Char.of(13), '#\\return'],
    [Char.of(1), '#\\x1'],
    [Char.of(0x3bb), '#\\λ'],
    [Char.of(0x1f600), '#\\😀'],
    [Char.of(0x85), '#\\x85'],
    [Char.of(40), '#\\('],
    [Char.of(0xa0), '#\\xa0'],
    [Char.of(0x300), '#\\x300'],
    [Char.of(0x2028), '#\\x2028'],
    [Sym.of('abc'), 'abc'],
    [Sym.of('hello-world!?'), 'hello-world!?'],
    [Sym.of('+'), '+'],
    [Sym.of('...'), '...'],
    [Sym.of('->x'), '->x'],
    [Sym.of('λ'), 'λ'],
    [Sym.of(''), '||'],
    [Sym.of('a b'), '|a b|'],
    [Sym.of('1'), '|1|'],
    [Sym.of('+1'), '|+1|'],
    [Sym.of('.5a'), '|.5a|'],
    [Sym.of('#foo'), '|#foo|'],
    [Sym.of('.'), '|.|'],
    [Sym.of('a|b'), '|a\\|b|'],
    [Sym.of('a(b'), '|a(b|'],
    [Sym.of('+inf.0'), '|+inf.0|'],
    [Sym.of('tab\there'), '|tab\\there|'],
    [listFromArray([1, 2, 3]), '(1 2 3)'],
    [new Pair(1, 2), '(1 . 2)'],
    [listFromArray([1, 2], 3), '(1 2 . 3)'],
    [listFromArray([Sym.of('quote'), Sym.of('x')]), '(quote x)'],
    [listFromArray([NIL, listFromArray([NIL])]), '(() (()))'],
    [new LVector([]), '#()'],
    [new LVector([1, new LString('x'), Char.of(97)]), '#(1 "x" #\\a)'],
    [new Bytevector(new Uint8Array([])), '#u8()'],
    [new Bytevector(new Uint8Array([0, 255])), '#u8(0 255)'],
    [new Primitive('car', 1, 1, () => 0), '#<procedure car>'],
    [new Continuation(null, 0), '#<continuation>'],
    [new ErrorObject(new LString('bad "x"'), [1, new LString('s')]), '#<error-object "bad \\"x\\"" 1 "s">'],
    [UNSPECIFIED, '#<unspecified>'],
  ];
  for (const [v, want] of cases) {
    test(want, () => assert.equal(writeValue(v), want));
  }

  test('closures print with their name when they have one', () => {
    const named: ClosureCode = { name: 'fact', required: 1, rest: false };
    const anon: ClosureCode = { name: null, required: 0, rest: true };
    assert.equal(writeValue(new Closure(named, null)), '#<procedure fact>');
    assert.equal(writeValue(new Closure(anon, null)), '#<procedure>');
  });
});

describe('display', () => {
  test('strings, characters and symbols print raw, also inside structures', () => {
    assert.equal(displayValue(new LString('a"b\n')), 'a"b\n');
    assert.equal(displayValue(Char.of(32)), ' ');
    assert.equal(displayValue(Sym.of('a b')), 'a b');
    assert.equal(displayValue(listFromArray([new LString('x y'), Char.of(97), new Flonum(2)])), '(x y a 2.0)');
  });
  test('numbers and booleans print as with write', () => {
    assert.equal(displayValue(new Ratnum(1n, 2n)), '1/2');
    assert.equal(displayValue(true), '#t');
  });
});

describe('round trip', () => {
  const texts = [
    '(1 2.5 -3/4 "a\\nb\\x1F600;" #\\x #\\space #\\x7f sym |odd sym| || #(1 #u8(2 3)) (a . b) () #t #f)',
    '(100000000000000000000 -0.0 1e-300 123.456 #\\λ "\\\\" |a\\|b| |1| (quote x))',
    '(#\\( #\\) #\\; #\\" #\\| #\\# #\\\' #\\xa0 #\\x300 |a\\xa0;b| |#| a# - -a |1+| @x x.y ... ->)',
  ];
  for (const text of texts) {
    test(text, () => {
      const v = datum(text);
      const written = writeValue(v);
      assert.ok(isEqual(datum(written), v), `${written} reads back equal`);
      assert.equal(writeValue(datum(written)), written);
    });
  }
});

describe('bounded printing', () => {
  test('maxLength cuts long output and marks it', () => {
    const long = listFromArray(Array.from({ length: 1_000_000 }, (_, i) => i));
    assert.equal(writeValue(long, 10), '(0 1 2 3 4...');
    assert.equal(writeValue(new LString('x'.repeat(50)), 5), '"xxxx...');
    assert.equal(writeValue(listFromArray([1, 2]), 10), '(1 2)');
    assert.equal(displayValue(new LString('abcdef'), 3), 'abc...');
  });
});

describe('cycles and depth', () => {
  test('a vector containing itself prints with a datum label', () => {
    const v = new LVector([1, 2]);
    v.items[1] = v;
    assert.equal(writeValue(v), '#0=#(1 #0#)');
  });
  test('a cycle through a list inside a vector', () => {
    const v = new LVector([0]);
    const list = listFromArray([1, v]);
    v.items[0] = list;
    assert.equal(writeValue(list), '#0=(1 #(#0#))');
    assert.equal(displayValue(v), '#0=#((1 #0#))');
  });
  test('shared but acyclic structure is not labelled', () => {
    const shared = new LVector([1]);
    assert.equal(writeValue(new LVector([shared, shared])), '#(#(1) #(1))');
  });
  test('a long list and a deeply nested list print without stack overflow', () => {
    const items = Array.from({ length: 200_000 }, (_, i) => i);
    const long = listFromArray(items);
    assert.equal(writeValue(long).length, items.join(' ').length + 2);
    let deep: Value = NIL;
    for (let i = 0; i < 100_000; i++) deep = new Pair(deep, NIL);
    const text = writeValue(deep);
    assert.equal(text.length, 100_000 * 2 + 2);
    let nested: Value = NIL;
    for (let i = 0; i < 50_000; i++) nested = new LVector([nested]);
    assert.equal(writeValue(nested).length, 50_000 * 3 + 2);
  });
});
