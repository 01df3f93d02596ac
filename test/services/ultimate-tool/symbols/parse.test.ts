// parseSymbolFile on the real output of acme, 64tass and ca65/ld65, checked against the bytes of
// the PRG the same run produced (a label must point at the instruction the source puts there).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SymbolFileError, parseSymbolFile } from '../../../../services/ultimate-tool/symbols/index.js';
import { build64tass, buildAcme, buildCa65, buildCl65C, byteAt } from './helpers/assemble.js';
import { ACME_SOURCE, CA65_OTHER, TASS_SOURCE, ca65Main } from './sources.js';

const LDA_IMM = 0xa9;
const INC_ABS = 0xee;
const JSR = 0x20;

test('acme --vicelabels', { timeout: 30_000 }, () => {
  const built = buildAcme(ACME_SOURCE);
  const table = parseSymbolFile('acme-vicelabels', built.files.labels!, 'main.labels');
  const by = new Map(table.symbols.map((s) => [s.name, s]));
  assert.deepEqual([...by.keys()].sort(), ['border', 'counter', 'loop', 'start', 'table']);
  assert.equal(by.get('start')!.address, 0x080d);
  assert.equal(byteAt(built.prg, by.get('start')!.address), LDA_IMM);
  assert.equal(byteAt(built.prg, by.get('loop')!.address), INC_ABS);
  assert.equal(by.get('border')!.address, 0xd020, 'constants are listed too');
  assert.equal(table.file, 'main.labels');
  assert.deepEqual(table.segments, []);
});

test('64tass --vice-labels, with a scope', { timeout: 30_000 }, () => {
  const built = build64tass(TASS_SOURCE);
  const table = parseSymbolFile('64tass-vice-labels', built.files.labels!);
  const by = new Map(table.symbols.map((s) => [s.name, s]));
  assert.ok(by.has('scope:deep'), built.files.labels);
  assert.equal(by.get('scope:deep')!.scope, 'scope');
  assert.equal(by.get('scope')!.scope, null);
  assert.equal(by.get('scope')!.address, by.get('scope:deep')!.address);
  assert.equal(byteAt(built.prg, by.get('start')!.address), LDA_IMM);
  assert.equal(byteAt(built.prg, by.get('scope:deep')!.address), LDA_IMM);
});

test('ld65 -Ln and -m: symbols, segments and modules', { timeout: 30_000 }, () => {
  const built = buildCa65({ main: ca65Main(), other: CA65_OTHER });
  const labels = parseSymbolFile('ld65-labels', built.files.labels!);
  const by = new Map(labels.symbols.map((s) => [s.name, s]));
  assert.equal(labels.symbols.filter((s) => s.name === 'start').length, 1, 'ld65 repeats exported labels; one is kept');
  assert.equal(by.get('start')!.address, 0x0801);
  assert.equal(byteAt(built.prg, by.get('start')!.address), LDA_IMM);
  assert.equal(byteAt(built.prg, by.get('loop')!.address), JSR);
  assert.ok(by.has('@inner') && by.has('helper') && by.has('other') && by.has('table'));

  const map = parseSymbolFile('ld65-map', built.files.map!, 'main.map');
  const segments = new Map(map.segments.map((s) => [s.name, s]));
  assert.deepEqual([...segments.keys()], ['LOADADDR', 'STARTUP', 'CODE', 'RODATA', 'DATA']);
  assert.equal(segments.get('STARTUP')!.start, 0x0801);
  assert.equal(segments.get('DATA')!.size, 17);
  assert.equal(segments.get('CODE')!.start, by.get('other')!.address, 'CODE starts at other');
  for (const s of map.segments) assert.equal(s.end - s.start + 1, s.size, s.name);
  const modules = new Map(map.modules.map((m) => [m.name, m]));
  assert.deepEqual([...modules.keys()].sort(), ['loadaddr.o', 'main.o', 'other.o']);
  assert.deepEqual(modules.get('other.o')!.segments, [{ segment: 'CODE', offset: 0, size: 4 }]);
  assert.equal(map.symbols.find((s) => s.name === 'other')?.address, by.get('other')!.address, 'exports carry values');
  // The prg is the segments laid end to end after the load address.
  assert.equal(built.prg.length, 2 + map.segments.filter((s) => s.name !== 'LOADADDR').reduce((n, s) => n + s.size, 0));
});

test('a cc65 C program: library modules, two exports per line', { timeout: 60_000 }, () => {
  const built = buildCl65C('int main(void) { *(unsigned char *)0xd020 = 0; return 0; }\n');
  const map = parseSymbolFile('ld65-map', built.files.map!, 'main.map');
  const names = map.modules.map((m) => m.name);
  assert.ok(names.includes('main.o'), names.join(' '));
  assert.ok(
    names.some((n) => /c64\.lib\(crt0\.o\)$/.test(n)),
    'library members are named lib(obj)',
  );
  const exports = new Map(map.symbols.map((s) => [s.name, s.address]));
  assert.equal(exports.get('BSOUT'), 0xffd2);
  assert.equal(exports.get('ST'), 0x90, 'the second export of a line ("BSOUT … ST 000090 RLZ") is read too');
  const labels = parseSymbolFile('ld65-labels', built.files.labels!);
  const main = labels.symbols.find((s) => s.name === '_main')!;
  assert.equal(exports.get('_main'), main.address);
  const code = map.segments.find((s) => s.name === 'CODE')!;
  assert.ok(main.address >= code.start && main.address <= code.end);
  // Every module's shares add up to the segment sizes.
  for (const seg of map.segments) {
    const shares = map.modules.flatMap((m) => m.segments).filter((s) => s.segment === seg.name);
    if (shares.length > 0) assert.ok(shares.reduce((n, s) => n + s.size, 0) <= seg.size, seg.name);
  }
});

test('malformed input names the format, the line and what was expected', { timeout: 30_000 }, () => {
  assert.throws(
    () => parseSymbolFile('acme-vicelabels', 'al C:080d .start\nstart = $080d\n'),
    (err: unknown) => {
      assert.ok(err instanceof SymbolFileError);
      assert.equal(err.line, 2);
      assert.match(err.message, /acme-vicelabels line 2: expected "al <hex address> \.<name>"/);
      return true;
    },
  );
  assert.throws(() => parseSymbolFile('ld65-labels', 'al 123456 .far\n'), /beyond the C64's 64 KiB/);
  assert.throws(() => parseSymbolFile('ld65-map', 'al 000801 .start\n'), /is this an ld65 -m map file/);
  assert.throws(() => parseSymbolFile('ld65-map', 'Segment list:\n-------------\nSTARTUP  000801\n'), /ld65-map line 3/);
  assert.deepEqual(parseSymbolFile('64tass-vice-labels', '\n\n').symbols, [], 'an empty file is an empty table');
});
