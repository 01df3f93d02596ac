// Reader: the 15 datum kinds, comments, strict UTF-8, spans (1-based line, scalar column), the
// reader-phase diagnostics, and the frontend-transition / token charges.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Meter, profileById } from '../../../engines/lispex/meter.js';
import { readAll, syntaxToValue } from '../../../engines/lispex/reader.js';
import { encodeSource } from '../../../engines/lispex/source.js';
import { writeValue } from '../../../engines/lispex/printer.js';
import { both, failure, value, values } from './helpers.js';

function read(text: string | Uint8Array): string[] {
  const meter = new Meter(profileById('lispex-mcp-local-authoring/v1').limits);
  return readAll(typeof text === 'string' ? encodeSource(text) : text, meter).map((s) => writeValue(syntaxToValue(s)));
}

describe('reader: the 15 datum kinds', () => {
  test('booleans, integers, rationals, finite reals', () => {
    assert.deepEqual(read('#t #f #true #false'), ['#t', '#f', '#t', '#f']);
    assert.deepEqual(read('42 -7 +5 123456789012345678901234567890'), ['42', '-7', '5', '123456789012345678901234567890']);
    assert.deepEqual(read('1/3 -6/4 4/2'), ['1/3', '-3/2', '2']);
    assert.deepEqual(read('1.5 -0.25 .5 1e3'), ['1.5', '-0.25', '0.5', '1000.0']);
    assert.deepEqual(read('#x-ff #b101 #o17 #e1.25 #i1/4'), ['-255', '5', '15', '5/4', '0.25']);
  });

  test('characters, strings, symbols', () => {
    assert.deepEqual(read('#\\a #\\space #\\newline #\\x41 #\\('), ['#\\a', '#\\space', '#\\newline', '#\\A', '#\\(']);
    assert.deepEqual(read('"a\\nb" "tab\\t" "\\x48;i" "q\\"q"'), ['"a\\nb"', '"tab\\t"', '"Hi"', '"q\\"q"']);
    assert.deepEqual(read('"line \\\n    continued"'), ['"line continued"']);
    assert.deepEqual(read('abc hello-world ... + - |two words|'), ['abc', 'hello-world', '...', '+', '-', '|two words|']);
  });

  test('proper and dotted lists, vectors, bytevectors', () => {
    assert.deepEqual(read('(1 2 3) () (a . b) (1 2 . 3)'), ['(1 2 3)', '()', '(a . b)', '(1 2 . 3)']);
    assert.deepEqual(read('#(1 "x" #\\y) #u8(0 255)'), ['#(1 "x" #\\y)', '#u8(0 255)']);
  });

  test('the four shorthands', () => {
    assert.deepEqual(read("'a `b ,c ,@d"), ['(quote a)', '(quasiquote b)', '(unquote c)', '(unquote-splicing d)']);
  });

  test('comments: line, nested block; an empty source has zero roots', () => {
    assert.deepEqual(read('; nothing\n1 #| a #| nested |# b |# 2 ; tail'), ['1', '2']);
    assert.deepEqual(read(''), []);
    assert.deepEqual(values(both('')), []);
  });

  test('a BOM is an ordinary scalar (here: part of a symbol)', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x61]);
    assert.deepEqual(read(bytes), [`|${String.fromCodePoint(0xfeff)}a|`]);
  });
});

describe('reader diagnostics', () => {
  const cases: [string, string, number, number][] = [
    ['(1 2', 'E100', 1, 1],
    [')', 'E100', 1, 1],
    ['1abc', 'E100', 1, 1],
    ['#| never closed', 'E100', 1, 1],
    ['[1]', 'E100', 1, 1],
    ['#u8(1 300)', 'E100', 1, 7],
    ['1\n  #;(hidden) 2', 'E120', 2, 3],
    ['#!fold-case', 'E120', 1, 1],
    ['( . 1)', 'E140', 1, 3],
    ['(1 . )', 'E140', 1, 6],
    ['(1 . 2 3)', 'E140', 1, 8],
    ['"unterminated', 'E150', 1, 1],
    ['"bad \\q escape"', 'E150', 1, 7],
    ['#\\nosuchname', 'E150', 1, 1],
    ['"\\xD800;"', 'E150', 1, 3],
    ['+inf.0', 'E314', 1, 1],
    ['(list -nan.0)', 'E314', 1, 7],
    ['1e400', 'E314', 1, 1],
  ];
  for (const [src, code, line, column] of cases) {
    test(`${JSON.stringify(src)} → ${code} at ${line}:${column}`, () => {
      const f = failure(src);
      assert.equal(f.code, code);
      assert.equal(f.status, 'source-error');
      assert.equal(f.phase, 'reader');
      assert.deepEqual([f.line, f.column], [line, column]);
    });
  }

  test('invalid UTF-8 is E100 at the bad sequence, columns count scalars', () => {
    const bytes = new Uint8Array([...encodeSource('(é\n é '), 0xc3, 0x28, 0x29]);
    const f = failure(bytes);
    assert.equal(f.code, 'E100');
    assert.deepEqual([f.line, f.column], [2, 4]);
    for (const bad of [
      [0xc0, 0x80],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe2, 0x82],
    ]) {
      assert.equal(failure(new Uint8Array(bad)).code, 'E100', `bytes ${bad}`);
    }
  });

  test('lone surrogates in a JS string source are rejected, not replaced', () => {
    assert.equal(failure('"a\ud800b"').code, 'E100');
  });

  test('source errors: empty stdout, exit 1, rendering with the logical source id', () => {
    const o = both('(display "x") (1 . )', { sourceId: 'lib/main.lspx' });
    assert.equal(o.status, 'source-error');
    assert.equal(o.stdout, '');
    assert.equal(o.exit_status, 1);
    assert.match(o.diagnostics[0]!.rendered, /^E140 lib\/main\.lspx:1:20 /);
  });
});

describe('reader meter charges', () => {
  test('one frontend transition per scalar, one token per token', () => {
    const meter = new Meter(profileById('lispex-mcp-local-authoring/v1').limits);
    readAll(encodeSource('(a "é" 1) ; c'), meter);
    assert.equal(meter.frontend, 13);
    assert.equal(meter.tokens, 5); // ( a "é" 1 )
  });

  test('the values of read data flow into evaluation unchanged', () => {
    assert.equal(value('\'(1 #(2) "three" #\\4 . five)'), '(1 #(2) "three" #\\4 . five)');
  });
});
