// The committed Unicode tables (engines/lispex/unicode-tables.ts and the Topaz VM's
// unicode_tables.rs) are exactly what scripts/generate-unicode-tables.mjs generates from the
// UCD of the contract's version; and what the TypeScript side reads agrees with a few facts
// that name the version.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { packageRoot } from '../../../../common/index.js';
import { foldcase, isAlphabetic, isInvisible, UNICODE_VERSION, upcase } from '../../../../engines/lispex/chars.js';

const ucdDir = process.env.LISPEX_UCD_DIR ?? '/usr/share/unicode';
const ucdVersion = existsSync(join(ucdDir, 'DerivedCoreProperties.txt'))
  ? (readFileSync(join(ucdDir, 'DerivedCoreProperties.txt'), 'utf8').match(/^# DerivedCoreProperties-([0-9.]+)\.txt/)?.[1] ?? 'unknown')
  : null;

describe('Unicode tables', () => {
  test('the committed TypeScript and Rust tables are what the generator makes of the UCD', {
    skip:
      ucdVersion === UNICODE_VERSION
        ? false
        : `needs the UCD ${UNICODE_VERSION} in ${ucdDir} (Debian package unicode-data); found ${ucdVersion ?? 'none'}`,
  }, () => {
    const r = spawnSync(process.execPath, [join(packageRoot(), 'scripts', 'generate-unicode-tables.mjs'), '--check'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  test('the tables are Unicode 15.0, not the host runtime version', () => {
    assert.equal(UNICODE_VERSION, '15.0.0');
    // U+1E030 MODIFIER LETTER CYRILLIC SMALL A is new in Unicode 15.0: alphabetic here.
    assert.equal(isAlphabetic(0x1e030), true);
    // U+1E4D0 NAG MUNDARI LETTER O is assigned in 15.0; U+10EC2 only in 16.0: unassigned (written #\x…) here.
    assert.equal(isAlphabetic(0x1e4d0), true);
    assert.equal(isInvisible(0x10ec2), true);
    assert.equal(isAlphabetic(0x10ec2), false);
    // U+A7CB LATIN CAPITAL LETTER RAMS HORN (16.0) has no mapping in 15.0.
    assert.equal(foldcase(0xa7cb), 0xa7cb);
    assert.equal(upcase(0x0264), 0x0264);
  });
});
