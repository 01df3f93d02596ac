// Real C64 programs, assembled here with acme / 64tass / cl65, uploaded over FTP (basic-ftp), started
// through REST, and observed through readmem, the debug register and a captured debug stream whose
// decoded writes must match what the program does.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ACME_STUB, assemble, startRig, waitFor, type Rig } from './helpers.js';
import { DebugStreamCapture, readCaptureFile, cpuWrites, decodeDatagram } from '../../../engines/ultimate/index.js';

describe('programs on the virtual device', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => {
    await rig.close();
  });

  test('acme program: FTP upload, REST run_prg from the device path, readmem + debug register + decoded stream writes', async () => {
    const prg = await assemble(
      'acme',
      `${ACME_STUB}
start   ldx #0
loop    txa
        eor #$a5
        sta $c000,x
        inx
        cpx #16
        bne loop
        lda #$42
        sta $d7ff
done    jmp done
`,
      rig.dir,
    );
    const up = await rig.device.ftp.upload('/Temp/fill.prg', prg);
    assert.equal(up.bytes, prg.length);
    const listed = await rig.device.ftp.list('/Temp');
    assert.ok(
      listed.some((e) => e.name === 'fill.prg' && e.size === prg.length),
      JSON.stringify(listed),
    );

    await rig.device.rest.setDebugRegister(0);
    const cap = await DebugStreamCapture.open({
      file: join(rig.dir, 'fill.u64cap'),
      bindAddress: '127.0.0.1',
      port: 0,
      maxDatagrams: 200_000,
      maxDurationMs: 60_000,
    });
    const streamer = rig.virtual.streamer;
    const madeBefore = streamer.sent + streamer.backlog;
    await rig.device.rest.streamStart('debug', `127.0.0.1:${cap.address.port}`);
    await rig.device.rest.runPrg({ path: '/Temp/fill.prg' });
    await waitFor(
      'debug register $42',
      () => rig.device.rest.debugRegister(),
      (v) => v === 0x42,
    );
    // Let the stream carry the last writes out: every datagram the device had made when the
    // register read $42 (the reset's boot burst goes out SEND_PER_TURN a turn, so it can still be
    // queued), and 20 more, since a datagram goes when its 360 cycles are full.
    const made = streamer.sent + streamer.backlog - madeBefore;
    await waitFor(
      'more datagrams',
      () => cap.recorded,
      (n) => n >= made + 20,
    );
    await rig.device.rest.streamStop('debug');
    const summary = await cap.finish();

    const mem = await rig.device.rest.readMemory(0xc000, 16);
    assert.deepEqual(
      [...mem],
      Array.from({ length: 16 }, (_, i) => i ^ 0xa5),
    );

    const parsed = await readCaptureFile(summary.file);
    assert.equal(parsed.valid, true, parsed.problems.join('; '));
    assert.equal(parsed.sha256, summary.sha256);
    assert.equal(summary.gaps, 0);
    const writes = parsed.records
      .flatMap((r) => cpuWrites(r.datagram))
      .filter((w) => (w.address >= 0xc000 && w.address < 0xc010) || w.address === 0xd7ff);
    assert.deepEqual(writes, [
      ...Array.from({ length: 16 }, (_, i) => ({ address: 0xc000 + i, data: i ^ 0xa5 })),
      { address: 0xd7ff, data: 0x42 },
    ]);
    // The cycle just before the debug-register write is the STA's operand fetch: a CPU read.
    const cycles = parsed.records.flatMap((r) => decodeDatagram(r.datagram));
    const at = cycles.findIndex((c) => c.access === 'write' && c.address === 0xd7ff);
    assert.equal(cycles[at - 1]!.access, 'read');
    assert.equal(cycles[at - 1]!.rw, true);
    assert.equal(cycles[at]!.phi2, true);
  });

  test('64tass program uploaded with the REST POST runner', async () => {
    const prg = await assemble(
      '64tass',
      `*= $0801
        .byte $0b,$08,$0a,$00,$9e,$32,$30,$36,$31,$00,$00,$00
        ldy #0
-       tya
        clc
        adc #3
        sta $c100,y
        iny
        cpy #8
        bne -
        lda #$17
        sta $d7ff
-       jmp -
`,
      rig.dir,
      'tass',
    );
    await rig.device.rest.runPrg({ bytes: prg });
    await waitFor(
      'debug register $17',
      () => rig.device.rest.debugRegister(),
      (v) => v === 0x17,
    );
    assert.deepEqual([...(await rig.device.rest.readMemory(0xc100, 8))], [3, 4, 5, 6, 7, 8, 9, 10]);
  });

  test('cc65 C program built with cl65 runs from its BASIC stub', async () => {
    const prg = await assemble(
      'cl65',
      `
int main(void) {
  unsigned char i;
  for (i = 0; i < 10; ++i) ((unsigned char *)0xC200)[i] = (unsigned char)(i * 7);
  *(unsigned char *)0xD7FF = 0x99;
  for (;;) {}
  return 0;
}
`,
      rig.dir,
      'cprog',
    );
    await rig.device.ftp.upload('/Usb0/cprog.prg', prg);
    await rig.device.rest.runPrg({ path: '/Usb0/cprog.prg' });
    await waitFor(
      'debug register $99',
      () => rig.device.rest.debugRegister(),
      (v) => v === 0x99,
    );
    assert.deepEqual(
      [...(await rig.device.rest.readMemory(0xc200, 10))],
      Array.from({ length: 10 }, (_, i) => i * 7),
    );
  });

  test('load_prg only loads: the program does not run until started', async () => {
    const prg = await assemble(
      'acme',
      `${ACME_STUB}
        lda #$55
        sta $d7ff
-       jmp -
`,
      rig.dir,
      'loadonly',
    );
    await rig.device.rest.reset();
    await rig.device.rest.setDebugRegister(0);
    await rig.device.rest.loadPrg({ bytes: prg });
    const loaded = await rig.device.rest.readMemory(0x0801, prg.length - 2);
    assert.deepEqual([...loaded], [...prg.subarray(2)]);
    // Give the machine real time to run; the register must stay untouched.
    const before = rig.virtual.clock.executed;
    await waitFor(
      '100k clocks',
      () => rig.virtual.clock.executed,
      (n) => n > before + 100_000,
    );
    assert.equal(await rig.device.rest.debugRegister(), 0);
  });
});
