// The service (services/ultimate-tool/address.ts) and the API (api/address.ts) each had
// an address parser. Now api/address.ts is the only one: the manifest, the resolve route, the
// timeline and the adapter's inputs parse with it, and the package's old export names map to it.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { AddressSchema, addressHex, addressValue, parseAddress } from '../../../services/ultimate-tool/api/address.js';
import * as service from '../../../services/ultimate-tool/index.js';
import { repoRoot } from '../../helpers/bin.js';

const SPELLINGS: Array<[string | number, number | undefined]> = [
  ['49152', 0xc000],
  ['$C000', 0xc000],
  ['$c000', 0xc000],
  ['0xC000', 0xc000],
  ['0Xc000', 0xc000],
  [49152, 0xc000],
  ['0', 0],
  ['$FFFF', 0xffff],
  ['65536', undefined],
  ['$10000', undefined],
  ['C000', undefined],
  ['$C000\n', undefined],
  [' 1', undefined],
  ['1.5', undefined],
  ['', undefined],
];

test('every entry point answers every spelling the same way', () => {
  for (const [text, expected] of SPELLINGS) {
    const label = JSON.stringify(text);
    assert.equal(addressValue(text), expected, label);
    assert.equal(service.parseAddress(text), expected, `${label} through the package entry`);
    const r = parseAddress(text);
    assert.equal(r.ok ? r.address : undefined, expected, label);
    const z = AddressSchema.safeParse(text);
    assert.equal(z.success ? z.data : undefined, typeof text === 'number' && expected === undefined ? undefined : expected, label);
  }
  assert.equal(addressHex(0xd020), '$D020');
  assert.equal(service.hex16(0xd020), '$D020');
});

test('no other source file carries its own address parser or $ABCD formatter', () => {
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !p.endsWith(join('api', 'address.ts')) && !p.endsWith(join('api', 'address-syntax.ts'))) {
        const src = readFileSync(p, 'utf8');
        if (src.includes('0[xX][0-9a-fA-F]{1,4}') || src.includes("toString(16).toUpperCase().padStart(4, '0')"))
          offenders.push(relative(repoRoot, p));
      }
    }
  };
  walk(join(repoRoot, 'services', 'ultimate-tool'));
  walk(join(repoRoot, 'adapters', 'ultimate'));
  assert.deepEqual(offenders, []);
});
