// The virtual C64 with real Commodore ROM images (VICE's, from shared/tools/vice/C64): it boots as
// a real C64 — BASIC's banner, READY — and BASIC, RUN and the KERNAL's routines are the real ones.
// No Commodore ROM is in this repository; without VICE's folder these tests skip.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { C64Machine } from '../../../../../engines/ultimate/virtual/c64/machine.js';
import { loadRomDir, VICE_ROM_FILES } from '../../../../../engines/ultimate/virtual/c64/rom-dir.js';
import { parseVirtualDeviceArgs } from '../../../../../engines/ultimate/virtual/cli.js';
import { acmePrg } from './helpers.js';

const ROM_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', '..', '..', 'shared', 'tools', 'vice', 'C64');
const present = existsSync(resolve(ROM_DIR, VICE_ROM_FILES.kernal));
const skip = present ? false : `VICE's ROM folder ${ROM_DIR} is absent (no Commodore ROM ships with the project)`;

function petscii(text: string): number[] {
  return [...text].map((c) => (c === '\n' ? 13 : c.charCodeAt(0)));
}

/** Types `text` a buffer-full at a time, letting the real KERNAL take each batch. */
function type(m: C64Machine, text: string): void {
  const keys = petscii(text);
  for (let i = 0; i < keys.length; i += 10) {
    m.typeKeys(keys.slice(i, i + 10));
    m.run(2_000_000, (mm) => mm.ram[0xc6] === 0);
  }
}

describe('real ROMs', { skip }, () => {
  test('the machine boots as a real C64: the BASIC V2 banner, 38911 bytes free, READY.', () => {
    const m = new C64Machine({ roms: loadRomDir(ROM_DIR) });
    assert.ok(m.isReady());
    const text = m.screenText();
    assert.match(text, /\*\*\*\* COMMODORE 64 BASIC V2 \*\*\*\*/);
    assert.match(text, /64K RAM SYSTEM {2}38911 BASIC BYTES FREE/);
    assert.match(text, /READY\.$/);
    assert.equal(m.peek(0xa000), loadRomDir(ROM_DIR).basic[0], 'BASIC ROM mapped at $A000');
  });

  test('a BASIC line typed at READY runs in the real interpreter', () => {
    const m = new C64Machine({ roms: loadRomDir(ROM_DIR) });
    type(m, 'PRINT 6*7+1\n');
    m.run(3_000_000, (mm) => mm.isReady());
    assert.match(m.screenText(), /PRINT 6\*7\+1\n 43\n\nREADY\.$/);
  });

  test("runPrg loads and RUNs a program that prints through the KERNAL's CHROUT", () => {
    const m = new C64Machine({ roms: loadRomDir(ROM_DIR) });
    const prg = acmePrg(`
* = $0801
        !word next, 10
        !byte $9e
        !text "2061", 0
next:   !word 0
        ldx #0
-       lda msg,x
        beq done
        jsr $ffd2          ; CHROUT
        inx
        bne -
done:   lda #0
        sta $d7ff
        rts
msg:    !text "HELLO FROM CHROUT", 13, 0
`);
    let reported: number | undefined;
    m.onDebugRegisterWrite = (v) => {
      reported = v;
    };
    m.runPrg(prg);
    m.run(5_000_000, (mm) => reported !== undefined && mm.isReady());
    assert.equal(reported, 0);
    assert.match(m.screenText(), /RUN\nHELLO FROM CHROUT\n\nREADY\.$/);
  });

  test('the character generator ROM is readable where CHAREN maps it', () => {
    const roms = loadRomDir(ROM_DIR);
    const m = new C64Machine({ roms });
    m.poke(0x01, 0x33); // CHAREN low: character ROM at $D000
    assert.deepEqual([...m.readMem(0xd008, 8)], [...roms.chargen.subarray(8, 16)]);
  });
});

describe('ROM options', () => {
  test('a ROM image of the wrong size is refused, naming the ROM and the size expected', () => {
    assert.throws(
      () => new C64Machine({ roms: { kernal: new Uint8Array(100), basic: new Uint8Array(0x2000), chargen: new Uint8Array(0x1000) } }),
      /kernal ROM image must be 8192 bytes; got 100/,
    );
  });

  test('virtual-device --rom-dir names the missing file', () => {
    assert.throws(() => parseVirtualDeviceArgs(['--rom-dir', '/nonexistent-rom-dir']), /kernal-901227-03\.bin/);
  });

  test('virtual-device --cia-model, --video and --reu-kb become machine options; bad values are refused', () => {
    const parsed = parseVirtualDeviceArgs(['--cia-model', '6526A', '--video', 'ntsc', '--reu-kb', '512']);
    assert.notEqual(parsed, 'help');
    if (parsed === 'help') return;
    assert.equal(parsed.options.ciaModel, '6526A');
    assert.equal(parsed.options.video, 'ntsc');
    assert.equal(parsed.options.reuKb, 512);
    assert.throws(() => parseVirtualDeviceArgs(['--reu-kb', '300']), /--reu-kb expects one of 128/);
    assert.throws(() => parseVirtualDeviceArgs(['--video', 'secam']), /--video expects pal or ntsc/);
    const batch = parseVirtualDeviceArgs(['--cia-model', '6526-4485']);
    assert.ok(batch !== 'help' && batch.options.ciaModel === '6526-4485');
    const c64c = parseVirtualDeviceArgs(['--vic-revision', 'new']);
    assert.ok(c64c !== 'help' && c64c.options.vicRevision === 'new');
    assert.throws(
      () => parseVirtualDeviceArgs(['--vic-revision', '8565']),
      /--vic-revision expects old \(6569\/6567\) or new \(8565\/8562\), got "8565"/,
    );
    assert.throws(() => parseVirtualDeviceArgs(['--cia-model', '8521']), /--cia-model expects one of 6526, 6526A, 6526-4485; got "8521"/);
  });

  test("--rom-dir with VICE's folder gives the three images", { skip }, () => {
    const parsed = parseVirtualDeviceArgs(['--rom-dir', ROM_DIR]);
    assert.ok(parsed !== 'help' && parsed.options.roms?.kernal.length === 0x2000);
  });

  test('an NTSC machine has 263 lines of 65 cycles', () => {
    const m = new C64Machine({ video: 'ntsc' });
    assert.equal(m.cyclesPerFrame, 65 * 263);
    const seen = new Set<number>();
    for (let i = 0; i < 300; i++) {
      m.run(65);
      seen.add(m.rasterLine());
    }
    assert.equal(Math.max(...seen), 262);
  });
});
