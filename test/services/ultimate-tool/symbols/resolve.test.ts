// resolveAddress (resolver schema 2) over real assembler output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AddressError, parseAddress, parseSymbolFile, resolveAddress } from '../../../../services/ultimate-tool/symbols/index.js';
import { build64tass, buildAcme, buildCa65 } from './helpers/assemble.js';
import { ACME_SOURCE, CA65_OTHER, TASS_SOURCE, ca65Main } from './sources.js';

test('address forms: decimal, $ABCD, 0xABCD; anything else refused', { timeout: 30_000 }, () => {
  for (const form of ['49152', '$C000', '$c000', '0xC000', '0Xc000', 49152])
    assert.deepEqual(parseAddress(form), { ok: true, address: 0xc000 });
  assert.deepEqual(parseAddress('0'), { ok: true, address: 0 });
  assert.deepEqual(parseAddress('$FFFF'), { ok: true, address: 0xffff });
  for (const bad of ['65536', '$10000', '0x10000', '-1', 'C000', '$', '0x', ' 1', '1.5', 'start', '', 70000, -1, 1.5]) {
    assert.equal(parseAddress(bad).ok, false, String(bad));
  }
  assert.throws(() => resolveAddress([], '$12345'), AddressError);
});

test('acme labels: exact, inside (offset), unmapped far away, every form agrees', { timeout: 30_000 }, () => {
  const tables = [parseSymbolFile('acme-vicelabels', buildAcme(ACME_SOURCE).files.labels!, 'main.labels')];
  const exact = resolveAddress(tables, '$080D');
  assert.equal(exact.resolver_schema_version, 2);
  assert.equal(exact.result, 'resolved');
  assert.equal(exact.address, 0x080d);
  assert.equal(exact.address_hex, '$080D');
  assert.equal(exact.symbols[0]!.name, 'start');
  assert.equal(exact.symbols[0]!.offset, 0);
  assert.equal(exact.reason, null);
  assert.deepEqual(resolveAddress(tables, '2061'), exact);
  assert.deepEqual(resolveAddress(tables, '0x80d'), exact);
  assert.deepEqual(resolveAddress(tables, 2061), exact);

  const inside = resolveAddress(tables, 0x080f); // the sta after lda #0
  assert.equal(inside.result, 'resolved');
  assert.equal(inside.symbols[0]!.name, 'start');
  assert.equal(inside.symbols[0]!.offset, 2);

  const far = resolveAddress(tables, 0x4000);
  assert.equal(far.result, 'unmapped');
  assert.match(far.reason!, /no symbol within \$FF bytes/);
  const below = resolveAddress(tables, 0x0400);
  assert.equal(below.result, 'unmapped');
});

test('64tass scopes: two names at one address are ambiguous until a context chooses', { timeout: 30_000 }, () => {
  const tables = [parseSymbolFile('64tass-vice-labels', build64tass(TASS_SOURCE).files.labels!, 'main.labels')];
  const scopeAddress = tables[0]!.symbols.find((s) => s.name === 'scope')!.address;
  const both = resolveAddress(tables, scopeAddress);
  assert.equal(both.result, 'ambiguous');
  assert.deepEqual(
    both.symbols.map((s) => s.name),
    ['scope', 'scope:deep'],
  );
  assert.match(both.reason!, /a context can choose/);
  const chosen = resolveAddress(tables, scopeAddress + 2, 'scope');
  assert.equal(chosen.result, 'resolved');
  assert.equal(chosen.symbols[0]!.name, 'scope:deep');
  assert.equal(chosen.symbols[0]!.offset, 2);
  assert.equal(chosen.context, 'scope');
  const nowhere = resolveAddress(tables, scopeAddress, 'no-such-scope');
  assert.equal(nowhere.result, 'unavailable');
  assert.match(nowhere.reason!, /no-such-scope/);
});

test('ld65 labels + map: segments bound the search', { timeout: 30_000 }, () => {
  const built = buildCa65({ main: ca65Main(), other: CA65_OTHER });
  const labels = parseSymbolFile('ld65-labels', built.files.labels!, 'main.lbl');
  const map = parseSymbolFile('ld65-map', built.files.map!, 'main.map');
  const tables = [labels, map];
  const other = labels.symbols.find((s) => s.name === 'other')!.address;
  const r = resolveAddress(tables, other + 3); // the rts of other, in CODE
  assert.equal(r.result, 'resolved');
  assert.equal(r.symbols[0]!.name, 'other');
  assert.equal(r.symbols[0]!.segment, 'CODE');
  assert.equal(r.symbols[0]!.format, 'ld65-labels', 'the first table naming it answers');
  assert.deepEqual(r.segment, { name: 'CODE', start: other, end: other + 3, offset: 3 });

  // The first byte of CODE after STARTUP belongs to CODE's symbol, never to helper's tail.
  const helperEnd = resolveAddress(tables, other - 1);
  assert.equal(helperEnd.segment?.name, 'STARTUP');
  assert.notEqual(helperEnd.symbols[0]?.name, 'other');

  // The load address bytes ($07FF) are in LOADADDR, which has no symbol.
  const load = resolveAddress(tables, 0x07ff);
  assert.equal(load.result, 'unmapped');
  assert.match(load.reason!, /segment LOADADDR/);

  // A segment name is a context.
  const inData = resolveAddress(tables, labels.symbols.find((s) => s.name === 'table')!.address + 5, 'DATA');
  assert.equal(inData.result, 'resolved');
  assert.equal(inData.symbols[0]!.name, 'table');
  // The file name is a context too.
  assert.equal(resolveAddress(tables, other, 'main.map').result, 'resolved');
});

test('no symbol information at all is unavailable', { timeout: 30_000 }, () => {
  const r = resolveAddress([], '$C000');
  assert.equal(r.result, 'unavailable');
  assert.deepEqual(r.symbols, []);
  assert.match(r.reason!, /no snapshotted label or map file/);
});
