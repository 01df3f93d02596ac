// The compiler's fast paths are keyed by the primitive a name denotes, so an aliased primitive
// (`null?` belongs to the identity group `empty?`) gets its instruction too — and a shadowed or
// assigned name never does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { disassemble } from '../../../engines/lispex/bytecode.js';
import { Compiler } from '../../../engines/lispex/compiler.js';
import { Globals } from '../../../engines/lispex/globals.js';
import { primitiveTable } from '../../../engines/lispex/index.js';
import { DEFAULT_PROFILE_ID, Meter, profileById } from '../../../engines/lispex/meter.js';
import { normalizeProgram } from '../../../engines/lispex/normalizer.js';
import { readAll } from '../../../engines/lispex/reader.js';
import { encodeSource } from '../../../engines/lispex/source.js';

/** Disassembly of every top-level form of `source`. */
function listing(source: string): string {
  const meter = new Meter(profileById(DEFAULT_PROFILE_ID).limits);
  const primitives = primitiveTable();
  const program = normalizeProgram(readAll(encodeSource(source), meter), meter, (name) => primitives.get(name)!);
  const compiler = new Compiler(program, new Globals(), primitives);
  return program.forms.map((f) => disassemble(compiler.compileForm(f))).join('\n');
}

const opsOf = (text: string): string[] => text.split('\n').map((l) => l.trim().split(/\s+/)[1] ?? '');

test('null? compiles to its fast instruction, and to the fused branch in an if test', () => {
  assert.ok(opsOf(listing("(null? '())")).includes('null?'));
  assert.ok(opsOf(listing("(if (null? '()) 1 2)")).includes('jump-unless-null?'));
});

test('every alias of a fast-path primitive gets the same instruction', () => {
  assert.ok(opsOf(listing("(empty? '())")).includes('null?'));
  assert.ok(opsOf(listing("(if (empty? '()) 1 2)")).includes('jump-unless-null?'));
});

test('a global the program assigns is never compiled to a fast path', () => {
  const ops = opsOf(listing("(set! null? (lambda (x) 'mine)) (null? '())"));
  assert.ok(!ops.includes('null?'));
  assert.ok(ops.includes('call'));
});
