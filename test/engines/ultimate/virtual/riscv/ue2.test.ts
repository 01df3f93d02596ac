// The .UE2 update-file format: packing a linked program (from its ELF) and reading files back with
// strict validation, one malformed file per rule; plus the ELF reader's refusals.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ElfFormatError, readElf32 } from '../../../../../engines/ultimate/riscv-apps/elf32.js';
import { buildRiscvProgram } from '../../../../../engines/ultimate/riscv-apps/riscv-toolchain.js';
import { packUe2, packUe2FromElf, parseUe2, UE2_MAX_FILE_BYTES, Ue2FormatError } from '../../../../../engines/ultimate/riscv-apps/ue2.js';

const BASE = 0x03000000;

/** Builds a file from raw headers: [load, length, start, payloadBytes?]. */
function file(...records: Array<[number, number, number, number?]>): Uint8Array {
  const parts: Buffer[] = [];
  for (const [load, length, start, payload] of records) {
    const h = Buffer.alloc(12);
    h.writeUInt32LE(load, 0);
    h.writeUInt32LE(length, 4);
    h.writeUInt32LE(start, 8);
    parts.push(h, Buffer.alloc(payload ?? length, 0x13));
  }
  return new Uint8Array(Buffer.concat(parts));
}

function rejects(bytes: Uint8Array, pattern: RegExp): void {
  assert.throws(
    () => parseUe2(bytes),
    (e: unknown) => e instanceof Ue2FormatError && pattern.test(e.message),
  );
}

let elf: Uint8Array;

describe('UE2 update files', { timeout: 60_000 }, () => {
  before(async () => {
    const built = await buildRiscvProgram({
      sources: {
        'p.S':
          '.section .text.start\n.globl _start\n_start: la t0, msg\nlb a0, 0(t0)\nj _start\n.data\nmsg: .byte 1, 2, 3\n.bss\nbuf: .space 32\n',
      },
    });
    elf = built.elf;
  });

  it('packs a linked program: one record per loadable segment, padded lengths, the entry in every record', () => {
    const program = readElf32(elf);
    const ue2 = packUe2FromElf(elf);
    const image = parseUe2(ue2);
    assert.equal(image.entry, program.entry);
    assert.equal(image.entry, BASE);
    assert.equal(image.records.length, program.segments.length);
    for (const [i, r] of image.records.entries()) {
      const seg = program.segments[i]!;
      assert.equal(r.loadAddress, seg.address);
      assert.equal(r.start, program.entry);
      assert.equal(r.bytes.length % 4, 0);
      assert.deepEqual([...r.bytes.subarray(0, seg.bytes.length)], [...seg.bytes]);
    }
    // .data (3 bytes) and .bss (32) are in the image, zeros included.
    const all = image.records.reduce((n, r) => n + r.bytes.length, 0);
    assert.ok(all >= 16 + 3 + 32, `payload ${all}`);
  });

  it('writes the padded length in the header and zero-fills the padding', () => {
    const ue2 = packUe2([{ address: BASE, bytes: new Uint8Array([1, 2, 3, 4, 5]) }], BASE);
    const v = new DataView(ue2.buffer);
    assert.equal(ue2.length, 12 + 8);
    assert.equal(v.getUint32(0, true), BASE);
    assert.equal(v.getUint32(4, true), 8);
    assert.equal(v.getUint32(8, true), BASE);
    assert.deepEqual([...ue2.subarray(12)], [1, 2, 3, 4, 5, 0, 0, 0]);
  });

  it('sorts segments by address and refuses overlapping ones or an entry outside them', () => {
    const ue2 = packUe2(
      [
        { address: BASE + 0x100, bytes: new Uint8Array(4) },
        { address: BASE, bytes: new Uint8Array(4) },
      ],
      BASE + 0x100,
    );
    assert.deepEqual(
      parseUe2(ue2).records.map((r) => r.loadAddress),
      [BASE, BASE + 0x100],
    );
    assert.throws(
      () =>
        packUe2(
          [
            { address: BASE, bytes: new Uint8Array(8) },
            { address: BASE + 4, bytes: new Uint8Array(4) },
          ],
          BASE,
        ),
      /overlaps/,
    );
    assert.throws(() => packUe2([{ address: BASE, bytes: new Uint8Array(4) }], BASE + 8), /not inside any loaded record/);
    assert.throws(() => packUe2([{ address: 0x1000, bytes: new Uint8Array(4) }], 0x1000), /outside the application region/);
    assert.throws(() => packUe2([], BASE), /no segments/);
  });

  it('reads a file whose earlier records carry start 0 (only the last one counts)', () => {
    const image = parseUe2(file([BASE + 0x10, 4, 0], [BASE, 8, BASE]));
    assert.equal(image.entry, BASE);
    assert.equal(image.payloadBytes, 12);
  });

  it('refuses an empty file and a truncated header', () => {
    rejects(new Uint8Array(0), /empty/);
    rejects(file([BASE, 4, BASE]).subarray(0, 11), /record 0 at file offset 0: truncated header, 11 bytes left/);
    const two = file([BASE, 4, BASE], [BASE + 4, 4, BASE]);
    rejects(two.subarray(0, 16 + 5), /record 1 at file offset 16: truncated header, 5 bytes left/);
  });

  it('refuses a payload running past the end of the file', () => {
    rejects(file([BASE, 16, BASE, 8]), /record 0 at file offset 0: payload of 16 bytes runs past the end of the file \(8 bytes left\)/);
  });

  it('refuses zero and unpadded lengths', () => {
    rejects(file([BASE, 0, BASE]), /length is 0/);
    rejects(file([BASE, 6, BASE]), /length 6 is not a multiple of 4/);
  });

  it('refuses loads outside the application region 0x03000000..0x04000000 and misaligned load addresses', () => {
    rejects(file([0x02fffffc, 4, BASE]), /outside the application region 0x03000000\.\.0x04000000/);
    rejects(file([0x04000000, 4, 0x04000000]), /outside the application region/);
    rejects(file([0x03fffffc, 8, 0x03fffffc]), /8 bytes at 0x03fffffc\.\.0x04000004 fall outside/);
    rejects(file([0x10000000, 4, 0x10000000]), /outside the application region/);
    rejects(file([BASE + 2, 4, BASE]), /load address 0x03000002 is not 4-byte aligned/);
  });

  it('refuses an entry that is 0, misaligned, outside the records, or disagrees between records', () => {
    rejects(file([BASE, 4, 0]), /last record's start address is 0/);
    rejects(file([BASE, 8, BASE + 2]), /entry 0x03000002 is not 4-byte aligned/);
    rejects(file([BASE, 8, BASE + 8]), /entry 0x03000008 is not inside any loaded record/);
    rejects(file([BASE, 4, BASE + 4], [BASE + 4, 4, BASE]), /record 0 has start 0x03000004 but the last record has 0x03000000/);
  });

  it('refuses overlapping records and oversized files', () => {
    rejects(file([BASE, 8, BASE], [BASE + 4, 4, BASE]), /record 1 at 0x03000004 overlaps record 0/);
    rejects(new Uint8Array(UE2_MAX_FILE_BYTES + 1), /at most/);
  });

  it('the ELF reader refuses files that are not linked little-endian RV32 executables', () => {
    const refuse = (bytes: Uint8Array, pattern: RegExp) =>
      assert.throws(
        () => readElf32(bytes),
        (e: unknown) => e instanceof ElfFormatError && pattern.test(e.message),
      );
    refuse(new Uint8Array(10), /too short/);
    refuse(new Uint8Array(64), /not an ELF file/);
    const as64 = elf.slice();
    as64[4] = 2;
    refuse(as64, /not ELF32/);
    const x86 = elf.slice();
    x86[18] = 3;
    x86[19] = 0;
    refuse(x86, /not a RISC-V ELF: e_machine is 3/);
    const rel = elf.slice();
    rel[16] = 1;
    refuse(rel, /not a linked executable/);
    refuse(elf.subarray(0, 60), /program headers end at/);
  });
});
