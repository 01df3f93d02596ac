// The committed stand-in ROM images are exactly what acme makes of kernal-standin.asm, and the
// KERNAL jump table and hardware vectors are where C64 programs expect them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assembleStandin } from '../../../../../engines/ultimate/virtual/c64/kernal-standin-build.js';
import { BASIC_ROM, KERNAL_ROM, STANDIN_LABELS } from '../../../../../engines/ultimate/virtual/c64/kernal-standin.js';

test('kernal-standin.ts matches an acme build of kernal-standin.asm', () => {
  const built = assembleStandin();
  assert.ok(Buffer.from(built.basic).equals(Buffer.from(BASIC_ROM)), 'BASIC image');
  assert.ok(Buffer.from(built.kernal).equals(Buffer.from(KERNAL_ROM)), 'KERNAL image');
  assert.deepEqual(built.labels, { ...STANDIN_LABELS });
});

test('the KERNAL jump table $FF81-$FFF3 is 39 JMPs into the ROM; vectors point at the entry points', () => {
  const at = (addr: number) => KERNAL_ROM[addr - 0xe000]!;
  const word = (addr: number) => at(addr) | (at(addr + 1) << 8);
  for (let entry = 0xff81; entry <= 0xfff3; entry += 3) {
    const op = at(entry);
    assert.ok(op === 0x4c || op === 0x6c, `$${entry.toString(16)} is JMP or JMP (ind)`);
    const target = word(entry + 1);
    if (op === 0x4c) assert.ok(target >= 0xe000, `$${entry.toString(16)} jumps into the KERNAL`);
    else assert.ok(target >= 0x031a && target <= 0x0332, `$${entry.toString(16)} goes through a RAM vector`);
  }
  assert.equal(word(0xfffa), 0xfe43, 'NMI');
  assert.equal(word(0xfffc), 0xfce2, 'RESET');
  assert.equal(word(0xfffe), 0xff48, 'IRQ/BRK');
});
