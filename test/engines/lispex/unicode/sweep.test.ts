// A fixed sample of the Unicode sweep (sweep.ts) on the built-in VM and the Topaz VM, plus the
// contract's answers for the scalars whose mappings are special. The whole range 0..#x10FFFF is
// bench/lispex-unicode/sweep.ts (about 20 minutes on this machine).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { builtinObservation, requireTopaz, topazObservation } from '../external/harness.js';
import { SPECIAL_ANSWERS, specialAnswersProgram, sweepRange } from './sweep.js';

/** The ranges where case mapping and the properties are least regular, and a seeded spread. */
function sampleRanges(): Array<[number, number]> {
  const fixed: Array<[number, number]> = [
    [0x0, 0x800], // ASCII, Latin-1 (ß, µ, ÿ), Latin Extended (ſ, İ, ǅ), IPA, combining marks, Greek, Cyrillic, Armenian
    [0x10a0, 0x1100], // Georgian (lowercase with uppercase Mtavruli elsewhere)
    [0x13a0, 0x1400], // Cherokee (folds to uppercase)
    [0x1c80, 0x1cc0], // Cyrillic Extended-C, Georgian Mtavruli
    [0x1e00, 0x2200], // Latin Extended Additional (ẞ, ẛ), Greek Extended (ᾀ…), spaces, Ω K Å, Roman numerals
    [0x2c00, 0x2d40], // Glagolitic, Latin Extended-C, Coptic, Georgian Supplement
    [0xa640, 0xa800], // Cyrillic Extended-B, Latin Extended-D (changed across Unicode versions)
    [0xab70, 0xabc0], // Cherokee Supplement
    [0xfb00, 0xfb20], // Latin and Armenian ligatures (full mappings of three scalars)
    [0xfff0, 0x10000], // specials, noncharacters
    [0x10400, 0x10500], // Deseret, Osage (astral case pairs)
    [0x10570, 0x105c0], // Vithkuqi (new in Unicode 14)
    [0x1e900, 0x1e960], // Adlam
    [0xe0000, 0xe0080], // tags (Cf, case-ignorable)
    [0x10fff0, 0x110000], // the last scalars
  ];
  // A deterministic spread of 24 ranges of 64 scalars across the rest of the code space.
  let seed = 0x5eed;
  const spread: Array<[number, number]> = [];
  for (let k = 0; k < 24; k++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const from = seed % (0x110000 - 64);
    spread.push([from, from + 64]);
  }
  return [...fixed, ...spread];
}

describe('Unicode sweep sample: built-in VM and Topaz VM', () => {
  requireTopaz();
  for (const [from, to] of sampleRanges()) {
    test(`scalars #x${from.toString(16)}..#x${(to - 1).toString(16)}`, async () => {
      const { lines, differences } = await sweepRange(from, to);
      const surrogates = Math.max(0, Math.min(to, 0xe000) - Math.max(from, 0xd800));
      assert.equal(lines, to - from - surrogates);
      assert.deepEqual(differences.slice(0, 5), []);
    });
  }
});

describe('special mappings answer as the contract says on both machines', () => {
  requireTopaz();
  const source = specialAnswersProgram();
  test('built-in VM and Topaz VM', async () => {
    const want = SPECIAL_ANSWERS.map(([, answer]) => answer);
    const vm = builtinObservation(source, 'vm');
    const topaz = await topazObservation(source);
    assert.deepEqual(vm.stdout.text.split('\n').slice(0, -1), want);
    assert.deepEqual(topaz.stdout.text.split('\n').slice(0, -1), want);
  });
});
