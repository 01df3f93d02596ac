// The virtual Ultimate 64 Elite II's native mode through its programmatic API: Run Update loads the
// example programs (built here with the RISC-V toolchain) and jumps to the last record's start; the
// program's UART output, exit, parking, traps and bounds are observed; the device's services are
// gone (connection refused) until recover().
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildRiscvProgram } from '../../../../../engines/ultimate/riscv-apps/riscv-toolchain.js';
import { packUe2, packUe2FromElf, Ue2FormatError } from '../../../../../engines/ultimate/riscv-apps/ue2.js';
import { decodeUtr2Mailbox, UTR2_REPLY_C64_ADDRESS } from '../../../../../engines/ultimate/riscv-apps/utr2-mailbox.js';
import { VIRTUAL_PRODUCT_ELITE2, VirtualUltimate } from '../../../../../engines/ultimate/virtual/index.js';
import { NativeStateError } from '../../../../../engines/ultimate/virtual/riscv/native-mode.js';
import { type BuiltExample, buildExample, type ExampleName } from '../../../../../examples/riscv/build.js';

/** Resolves with the connect error code (ECONNREFUSED) or 'connected'. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve('connected');
    });
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

const examples = new Map<ExampleName, BuiltExample>();
let dev: VirtualUltimate;
let spinUe2: Uint8Array;
let illegalUe2: Uint8Array;

describe('virtual Elite II native mode (API)', { timeout: 120_000 }, () => {
  before(async () => {
    for (const name of ['smoke', 'hello', 'c64-touch', 'ends'] as const) examples.set(name, await buildExample(name));
    const spin = await buildRiscvProgram({ sources: { 's.S': '.section .text.start\n.globl _start\n_start: addi a0, a0, 1\nj _start\n' } });
    spinUe2 = packUe2FromElf(spin.elf);
    const bad = await buildRiscvProgram({ sources: { 'b.S': '.section .text.start\n.globl _start\n_start: li a0, 1\nbad: .word 0\n' } });
    illegalUe2 = packUe2FromElf(bad.elf);
    dev = await VirtualUltimate.start({ product: 'u64-elite2', autoStart: false, vicePort: null });
  });
  after(async () => {
    await dev.stop();
  });

  const ue2 = (name: ExampleName) => examples.get(name)!.ue2;

  it('says it is an Elite II and starts on its firmware with every service listening', async () => {
    assert.equal(dev.identity().product, VIRTUAL_PRODUCT_ELITE2);
    assert.deepEqual(dev.nativeState, { mode: 'firmware' });
    assert.equal(await tryConnect(dev.ports.http), 'connected');
    assert.equal(await tryConnect(dev.ports.ftp), 'connected');
    assert.equal(await tryConnect(dev.ports.dma), 'connected');
  });

  it('runs the smoke program to its exit: UART checksum line, exit 0; REST/FTP/DMA refuse connections until recover()', async () => {
    const started = await dev.runUpdate(ue2('smoke'));
    assert.equal(started.entry, 0x03000000);
    assert.equal(dev.nativeState.mode, 'native');
    const report = await dev.whenNativeStopped();
    assert.equal(report.status, 'exited');
    assert.equal(report.exitCode, 0);
    assert.equal(report.uart, 'SMOKE crc=cbf43926 primes=00000234 OK\n');
    assert.ok(report.retired > 10_000, `retired ${report.retired}`);
    for (const port of [dev.ports.http, dev.ports.ftp, dev.ports.dma]) assert.equal(await tryConnect(port), 'ECONNREFUSED');
    // Still native after the program ended: the firmware does not come back by itself.
    assert.equal(dev.nativeState.mode, 'native');
    await dev.recover();
    assert.deepEqual(dev.nativeState, { mode: 'firmware' });
    for (const port of [dev.ports.http, dev.ports.ftp, dev.ports.dma]) assert.equal(await tryConnect(port), 'connected');
    const res = await fetch(`http://127.0.0.1:${dev.ports.http}/v1/version`);
    assert.deepEqual(await res.json(), { version: '0.1', errors: [] });
    assert.equal(dev.lastNativeRun?.uart, 'SMOKE crc=cbf43926 primes=00000234 OK\n');
  });

  it('the UART hello prints its line and parks; the interpreter stops spinning', async () => {
    await dev.runUpdate(ue2('hello'));
    const r = await dev.whenNativeStopped();
    assert.equal(r.status, 'parked');
    assert.equal(r.uart, 'Hello from the Ultimate 64 Elite II RISC-V core\n');
    await dev.recover();
  });

  it('the program that ends exits with its code (42)', async () => {
    await dev.runUpdate(ue2('ends'));
    const r = await dev.whenNativeStopped();
    assert.equal(r.status, 'exited');
    assert.equal(r.exitCode, 42);
    assert.equal(r.uart, 'BYE\n');
    await dev.recover();
  });

  it('the C64-memory program reads the UTR2 token from the mailbox, echoes it on the UART and writes the reply into C64 RAM', async () => {
    await dev.runUpdate(ue2('c64-touch'), { token: 'run-7f3a.utr2_test' });
    const r = await dev.whenNativeStopped();
    assert.equal(r.status, 'exited');
    assert.equal(r.exitCode, 0);
    assert.equal(r.token, 'run-7f3a.utr2_test');
    assert.equal(r.uart, 'UTR2 run-7f3a.utr2_test OK\n');
    assert.deepEqual(decodeUtr2Mailbox(dev.machine.readMem(UTR2_REPLY_C64_ADDRESS, 80)), { token: 'run-7f3a.utr2_test', status: 1 });
    // "run" in screen codes on the C64 screen.
    assert.deepEqual([...dev.machine.readMem(0x0400, 3)], [18, 21, 14]);
    await dev.recover();
    // The power cycle restarted the C64: the reply is gone.
    assert.equal(decodeUtr2Mailbox(dev.machine.readMem(UTR2_REPLY_C64_ADDRESS, 80)), undefined);
  });

  it('without a token the C64-memory program says so and exits 2', async () => {
    await dev.runUpdate(ue2('c64-touch'));
    const r = await dev.whenNativeStopped();
    assert.equal(r.exitCode, 2);
    assert.equal(r.uart, 'UTR2 - NO-TOKEN\n');
    await dev.recover();
  });

  it('an illegal instruction stops the program as trapped, with cause, pc and the word', async () => {
    await dev.runUpdate(illegalUe2);
    const r = await dev.whenNativeStopped();
    assert.equal(r.status, 'trapped');
    assert.deepEqual(r.trap, { cause: 'illegal-instruction', pc: 0x03000004, tval: 0 });
    await dev.recover();
  });

  it('a program that never ends is stopped by the instruction budget (exactly) and stays native', async () => {
    await dev.runUpdate(spinUe2, { maxInstructions: 1_000_000 });
    const r = await dev.whenNativeStopped();
    assert.equal(r.status, 'instruction-limit');
    assert.equal(r.retired, 1_000_000);
    assert.equal(dev.nativeState.mode, 'native');
    await dev.recover();
  });

  it('a program that never ends is stopped by the time bound too', async () => {
    await dev.runUpdate(spinUe2, { maxMs: 50, maxInstructions: 1e12 });
    const r = await dev.whenNativeStopped();
    assert.equal(r.status, 'time-limit');
    await dev.recover();
  });

  it('recover() while the program runs cuts it (power-cycled)', async () => {
    await dev.runUpdate(spinUe2, { maxInstructions: 1e12, maxMs: 60_000 });
    await dev.recover();
    assert.equal(dev.lastNativeRun?.status, 'power-cycled');
    assert.deepEqual(dev.nativeState, { mode: 'firmware' });
  });

  it('a malformed update file is refused before anything changes; a second Run Update while native is refused', async () => {
    const bad = packUe2([{ address: 0x03000000, bytes: new Uint8Array(8) }], 0x03000000).subarray(0, 15);
    await assert.rejects(dev.runUpdate(bad), Ue2FormatError);
    assert.deepEqual(dev.nativeState, { mode: 'firmware' });
    assert.equal(await tryConnect(dev.ports.http), 'connected');
    await dev.runUpdate(ue2('hello'));
    await assert.rejects(dev.runUpdate(ue2('hello')), NativeStateError);
    await dev.recover();
  });

  it('UART output past maxUartBytes is counted as dropped, not kept', async () => {
    const chatty = await buildRiscvProgram({
      sources: {
        'c.S':
          '.section .text.start\n.globl _start\n_start: li t0, 0x10000000\nli t1, 1000\nli t2, 0x41\n1: sb t2, 0x10(t0)\naddi t1, t1, -1\nbnez t1, 1b\nli a0, 0\nli a7, 93\necall\n',
      },
    });
    const small = await VirtualUltimate.start({ product: 'u64-elite2', autoStart: false, vicePort: null, native: { maxUartBytes: 100 } });
    try {
      await small.runUpdate(packUe2FromElf(chatty.elf));
      const r = await small.whenNativeStopped();
      assert.equal(r.status, 'exited');
      assert.equal(r.uart, 'A'.repeat(100));
      assert.equal(r.uartDropped, 900);
    } finally {
      await small.stop();
    }
  });

  it('a plain Ultimate 64 has no Run Update', async () => {
    const u64 = await VirtualUltimate.start({ autoStart: false, vicePort: null });
    try {
      await assert.rejects(u64.runUpdate(ue2('ends')), /needs an Ultimate 64 Elite II/);
      assert.equal(u64.ports.bench, undefined);
    } finally {
      await u64.stop();
    }
  });
});
