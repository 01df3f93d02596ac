// Bus behaviours at the edges of the 6510 and the REU: what the RAM under the processor port
// receives, a read-modify-write that starts a REU transfer through $FF00, the 17xx DRAM's
// power-on content, and a real C64's power-on RAM pattern as an option.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { C64Machine } from '../../../../../engines/ultimate/virtual/c64/machine.js';

/** Puts a program at $C000 and runs it to its final JMP * (at most `limit` clocks). */
function runAt(m: C64Machine, code: number[], limit = 20_000): void {
  code.forEach((b, i) => {
    m.ram[0xc000 + i] = b;
  });
  m.cpu.pc = 0xc000;
  const end = 0xc000 + code.length - 3;
  m.run(limit, (mm) => mm.cpu.pc === end);
  assert.equal(m.cpu.pc, end, 'the program reached its end');
}

test('a CPU write to $00/$01 leaves the VIC-II byte of that clock in the RAM underneath, not the value', () => {
  const m = new C64Machine();
  // The VIC-II on bank 1 ($4000-$7FFF, no character ROM there), all of it $18: whatever it reads
  // in phi1 — idle byte, DRAM refresh, sprite pointer, character or bitmap data — is $18.
  m.ram.fill(0x18, 0x4000, 0x8000);
  m.poke(0xdd02, 0x03);
  m.poke(0xdd00, 0x02);
  runAt(m, [0xa9, 0x2f, 0x85, 0x00, 0xa9, 0x37, 0x85, 0x01, 0x4c, 0x08, 0xc0]);
  assert.equal(m.ram[0], 0x18);
  assert.equal(m.ram[1], 0x18);
  assert.equal(m.peek(0), 0x2f, 'the port itself took the value');
});

test('a read-modify-write of $FF00 starts an armed REU transfer with its first write; the second is lost', () => {
  const m = new C64Machine({ reuKb: 128 });
  m.reu!.ram[0x100] = 0x5a;
  m.ram[0xff00] = 0x10;
  const old = m.peek(0xff00); // INC reads the KERNAL ROM there; its writes go to the RAM underneath
  m.ram.fill(0, 0xc100, 0xc101);
  // C64 $C100 ← REU $000100, one byte, fetch, execute armed for the $FF00 trigger.
  const regs = [0x00, 0xc1, 0x00, 0x01, 0x00, 0x01, 0x00];
  for (const [i, v] of regs.entries()) m.poke(0xdf02 + i, v);
  m.poke(0xdf01, 0x81);
  assert.equal(m.ram[0xc100], 0, 'nothing moves before the trigger');
  runAt(m, [0xee, 0x00, 0xff, 0x4c, 0x03, 0xc0]); // INC $FF00 (writes go to the RAM under the KERNAL)
  assert.equal(m.ram[0xc100], 0x5a, 'the transfer ran');
  assert.equal(m.ram[0xff00], old, 'the dummy write of the old value landed, the incremented one did not');
});

test("a REU's own DRAM starts with the 17xx power-on pattern; a shared memory is used as it is", () => {
  const m = new C64Machine({ reuKb: 256 });
  assert.deepEqual([...m.reu!.ram.subarray(0, 6)], [0xff, 0x00, 0x00, 0xff, 0xff, 0x00]);
  assert.equal(m.reu!.ram[0x100], 0x00, 'inverted every other 256 bytes');
  assert.equal(m.reu!.ram[0x30001], 0xff, 'and again in the measured blocks of each four banks');
  const shared = new Uint8Array(1 << 20);
  const n = new C64Machine({ reuKb: 512, reuMemory: shared });
  assert.equal(n.reu!.ram, shared);
  assert.equal(shared[0], 0);
});

test('powerOnRam: zero by default, the $00/$FF blocks of a real C64 on request, anything else refused', () => {
  // The KERNAL's reset writes low RAM; $8000 up is untouched by the stand-in's boot.
  assert.equal(new C64Machine().ram[0x8002], 0);
  const m = new C64Machine({ powerOnRam: 'c64' });
  assert.deepEqual([...m.ram.subarray(0x8000, 0x8008)], [0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00]);
  assert.deepEqual([...m.ram.subarray(0x4000, 0x4004)], [0xff, 0xff, 0x00, 0x00], 'odd 16 KiB blocks inverted');
  assert.throws(() => new C64Machine({ powerOnRam: 'random' as 'c64' }), /powerOnRam must be 'zero' or 'c64'/);
});
