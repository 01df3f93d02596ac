// The VICE binary monitor client against the virtual device's monitor server (a real protocol
// peer over the same emulated machine), and against real VICE when x64sc is on PATH.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import net from 'node:net';
import { ACME_STUB, startRig, waitFor, type Rig } from '../helpers.js';
import { ViceMonitorClient, UltimateError, CheckpointOp, ViceError, type ViceEvent } from '../../../../engines/ultimate/index.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { writeFile } from 'node:fs/promises';

const execFileP = promisify(execFile);

const PROGRAM = `${ACME_STUB}
start   lda #0
        sta $c300
loop    inc $c300
        lda $c300
        cmp #5
        bne loop
marker  lda #$77
        sta $d7ff
done    jmp done
`;

/** Assembles with acme and reads the label file, so checkpoints use the program's real addresses. */
async function build(dir: string): Promise<{ prg: Uint8Array; labels: Record<string, number> }> {
  await writeFile(join(dir, 'vt.asm'), PROGRAM);
  await execFileP('acme', ['--format', 'cbm', '--outfile', join(dir, 'vt.prg'), '-l', join(dir, 'vt.lbl'), join(dir, 'vt.asm')]);
  const labels: Record<string, number> = {};
  for (const line of (await readFile(join(dir, 'vt.lbl'), 'utf8')).split('\n')) {
    const m = /^\s*(\w+)\s*=\s*\$([0-9a-f]+)/i.exec(line);
    if (m) labels[m[1]!] = parseInt(m[2]!, 16);
  }
  return { prg: new Uint8Array(await readFile(join(dir, 'vt.prg'))), labels };
}

function collect(client: ViceMonitorClient): ViceEvent[] {
  const events: ViceEvent[] = [];
  client.on('event', (e) => events.push(e));
  return events;
}

describe('VICE client against the virtual monitor', () => {
  let rig: Rig;
  let client: ViceMonitorClient;
  let labels: Record<string, number>;
  before(async () => {
    rig = await startRig();
    const built = await build(rig.dir);
    labels = built.labels;
    await rig.device.ftp.upload('/Temp/vt.prg', built.prg);
    client = await ViceMonitorClient.connect({ port: rig.virtual.ports.vice!, timeoutMs: 10_000 });
  });
  after(async () => {
    client.close();
    await rig.close();
  });

  test('a command stops the machine; exit resumes it', async () => {
    const stopped = client.waitForEvent('stopped');
    await client.ping();
    await stopped;
    assert.equal(rig.virtual.clock.running, false);
    const at = rig.virtual.clock.executed;
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(rig.virtual.clock.executed, at);
    const resumed = client.waitForEvent('resumed');
    await client.resume();
    await resumed;
    assert.equal(rig.virtual.clock.running, true);
  });

  test('exec checkpoint at a label from the assembler, autostart, registers, memory, step', async () => {
    const cp = await client.checkpointSet({ start: labels.marker!, op: CheckpointOp.exec });
    assert.equal(cp.start, labels.marker);
    assert.equal(cp.stopWhenHit, true);
    const hit = client.waitForEvent('checkpoint', 15_000);
    const stoppedAtMarker = client.waitForEvent('stopped', 15_000, (e) => e.pc === labels.marker);
    await client.autostart('/Temp/vt.prg');
    const info = await hit;
    assert.equal(info.checkpoint.number, cp.number);
    assert.equal(info.checkpoint.currentlyHit, true);
    assert.equal(info.checkpoint.hitCount, 1);
    await stoppedAtMarker;
    const regs = await client.registersGet();
    assert.equal(regs.PC, labels.marker);
    assert.equal(regs.A, 5);
    assert.deepEqual([...(await client.memoryGet(0xc300, 0xc300))], [5]);

    const afterStep = client.waitForEvent('stopped', 5000, (e) => e.pc === labels.marker! + 2);
    await client.step(1);
    await afterStep;
    assert.equal((await client.registersGet()).A, 0x77);
    await client.checkpointDelete(cp.number);
  });

  test('step over a JSR runs the whole subroutine as one step', async () => {
    // $9000: JSR $9010 / NOP ; $9010: LDX #$0A / DEX / BNE $9012 / RTS
    await client.memorySet(0x9000, Uint8Array.of(0x20, 0x10, 0x90, 0xea));
    await client.memorySet(0x9010, Uint8Array.of(0xa2, 0x0a, 0xca, 0xd0, 0xfd, 0x60));
    await client.registersSet({ PC: 0x9000 });
    const over = client.waitForEvent('stopped', 5000, (e) => e.pc === 0x9003);
    await client.step(1, true);
    await over;
    const regs = await client.registersGet();
    assert.equal(regs.PC, 0x9003);
    assert.equal(regs.X, 0);
    const into = client.waitForEvent('stopped', 5000, (e) => e.pc === 0x9010);
    await client.registersSet({ PC: 0x9000 });
    await client.step(1, false);
    await into;
  });

  test('store checkpoint on the debug register stops right after the write', async () => {
    const cp = await client.checkpointSet({ start: 0xd7ff, op: CheckpointOp.store });
    const stopped = client.waitForEvent('stopped', 15_000);
    await client.registersSet({ PC: labels.marker! });
    await client.resume();
    await stopped;
    assert.equal((await client.registersGet()).PC, labels.done);
    assert.equal(await rig.device.rest.debugRegister(), 0x77);
    const list = await client.checkpointList();
    assert.deepEqual(
      list.map((c) => c.number),
      [cp.number],
    );
    assert.ok(list[0]!.hitCount >= 1);
    await client.checkpointDelete(cp.number);
    assert.deepEqual(await client.checkpointList(), []);
  });

  test('memory set/get round trip, register set, keyboard feed, reset', async () => {
    await client.memorySet(0x7000, Uint8Array.of(1, 2, 3, 4));
    assert.deepEqual([...(await client.memoryGet(0x7000, 0x7003))], [1, 2, 3, 4]);
    assert.deepEqual([...(await rig.device.rest.readMemory(0x7000, 4))], [1, 2, 3, 4]);
    const regs = await client.registersSet({ X: 0x33, Y: 0x44 });
    assert.equal(regs.X, 0x33);
    assert.equal(regs.Y, 0x44);
    await client.reset();
    await client.keyboardFeed('list\n');
    assert.equal((await client.memoryGet(0xc6, 0xc6))[0], 5);
  });

  test('errors come back as vice errors with the protocol codes', async () => {
    await assert.rejects(
      client.memoryGet(0, 10, { memspace: 1 }),
      (e: unknown) => e instanceof UltimateError && e.kind === 'vice' && e.code === ViceError.invalidMemspace,
    );
    await assert.rejects(client.checkpointDelete(9999), (e: unknown) => e instanceof UltimateError && e.code === ViceError.objectMissing);
    await assert.rejects(client.request(0x55), (e: unknown) => e instanceof UltimateError && e.code === ViceError.unknownCommand);
    await assert.rejects(
      client.request(0x01, Uint8Array.of(0, 1)),
      (e: unknown) => e instanceof UltimateError && e.code === ViceError.invalidLength,
    );
    await assert.rejects(client.memoryGet(0x10, 0x0f), (e: unknown) => e instanceof UltimateError && e.code === ViceError.invalidParameter);
    await assert.rejects(
      client.autostart('/Temp/none.prg'),
      (e: unknown) => e instanceof UltimateError && e.code === ViceError.objectMissing,
    );
  });

  test('a JAM is announced as VICE does: JAM with an empty body, then REGISTER_INFO and STOPPED with the PC', async () => {
    const events = collect(client);
    const stopped = new Promise<ViceEvent>((resolve) => {
      const on = (e: ViceEvent) => {
        if (e.type === 'stopped' && events.some((x) => x.type === 'jam')) {
          client.off('event', on);
          resolve(e);
        }
      };
      client.on('event', on);
    });
    await client.memorySet(0x8000, Uint8Array.of(0x02)); // KIL/JAM
    await client.registersSet({ PC: 0x8000 });
    events.length = 0;
    await client.resume();
    const stop = await stopped;
    const fromJam = events.slice(events.findIndex((e) => e.type === 'jam'));
    assert.deepEqual(
      fromJam.map((e) => e.type),
      ['jam', 'registers', 'stopped'],
    );
    const jam = fromJam[0]!;
    assert.ok(jam.type === 'jam' && !jam.pcSent && jam.pc === 0, 'the JAM event carries no PC');
    assert.ok(stop.type === 'stopped' && stop.pc >= 0x8000 && stop.pc <= 0x8001, 'STOPPED carries it');
    await client.reset();
    await client.resume();
  });

  test('a step leaves the monitor and enters it again: RESUMED, then REGISTER_INFO and STOPPED', async () => {
    await client.ping(); // stops the machine
    const events = collect(client);
    const stopped = client.waitForEvent('stopped', 10_000);
    await client.step(1);
    await stopped;
    assert.deepEqual(
      events.map((e) => e.type),
      ['resumed', 'registers', 'stopped'],
    );
    await client.resume();
  });

  test('reset honours its type: 1 (hard) clears RAM, 0 (soft) keeps it, 8 (a drive) leaves the C64 alone', async () => {
    await client.memorySet(0x6000, Uint8Array.of(0x5a));
    await client.reset(0);
    assert.equal((await client.memoryGet(0x6000, 0x6000))[0], 0x5a);
    await client.reset(8);
    assert.equal((await client.memoryGet(0x6000, 0x6000))[0], 0x5a);
    await client.reset(1);
    assert.equal((await client.memoryGet(0x6000, 0x6000))[0], 0x00);
    await assert.rejects(client.reset(5), (e: unknown) => e instanceof UltimateError && e.code === ViceError.invalidParameter);
    await client.resume();
  });

  test('on the wire: errors have response type 0x00; an unknown API version gets no answer', async () => {
    const s = net.connect({ host: '127.0.0.1', port: rig.virtual.ports.vice! });
    await new Promise<void>((r) => s.once('connect', () => r()));
    let got = Buffer.alloc(0);
    s.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
    });
    // Request (VICE manual): STX 02, API 02, body length u32 LE, request id u32 LE, command, body.
    // API 0x07 with id 0x11 (skipped), then MEMORY_GET 0x01 with a 2-byte body (bad length) id 0x22,
    // then PING 0x81 id 0x33.
    s.write(Buffer.from([0x02, 0x07, 0, 0, 0, 0, 0x11, 0, 0, 0, 0x81]));
    s.write(Buffer.from([0x02, 0x02, 2, 0, 0, 0, 0x22, 0, 0, 0, 0x01, 0x00, 0x00]));
    s.write(Buffer.from([0x02, 0x02, 0, 0, 0, 0, 0x33, 0, 0, 0, 0x81]));
    // Responses: STX, API, body length u32, type, error, request id u32, body (12-byte header).
    const error = Buffer.from([0x02, 0x02, 0, 0, 0, 0, 0x00, 0x80, 0x22, 0, 0, 0]);
    const pong = Buffer.from([0x02, 0x02, 0, 0, 0, 0, 0x81, 0x00, 0x33, 0, 0, 0]);
    await waitFor(
      'the ping answer',
      () => got.includes(pong),
      (v) => v,
    );
    // Only events (id FFFFFFFF) besides these two answers: nothing for request 0x11.
    const answers: Buffer[] = [];
    for (let at = 0; at + 12 <= got.length; ) {
      const frame = got.subarray(at, at + 12 + got.readUInt32LE(at + 2));
      if (frame.readUInt32LE(8) !== 0xffffffff) answers.push(frame);
      at += frame.length;
    }
    assert.deepEqual(answers, [error, pong]);
    s.destroy();
    await client.resume();
  });

  test('garbage framing closes only that connection', async () => {
    const s = net.connect({ host: '127.0.0.1', port: rig.virtual.ports.vice! });
    await new Promise<void>((r) => s.once('connect', () => r()));
    const closed = new Promise<void>((r) => s.once('close', () => r()));
    s.write(Buffer.from('GET / HTTP/1.0\r\n\r\n'));
    await closed;
    // A frame that announces a 4 GiB body is refused at once, not buffered.
    const s2 = net.connect({ host: '127.0.0.1', port: rig.virtual.ports.vice! });
    await new Promise<void>((r) => s2.once('connect', () => r()));
    const closed2 = new Promise<void>((r) => s2.once('close', () => r()));
    s2.write(Buffer.from([0x02, 0x02, 0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0, 0x81]));
    await closed2;
    await client.ping();
    await client.resume();
  });

  test('quit ends the session and leaves the machine running', async () => {
    const other = await ViceMonitorClient.connect({ port: rig.virtual.ports.vice! });
    const closed = new Promise<void>((r) => other.once('close', () => r()));
    await other.quit();
    await closed;
    await waitFor(
      'clock running',
      () => rig.virtual.clock.running,
      (v) => v === true,
    );
  });
});

const X64SC = spawnSync('sh', ['-c', 'command -v x64sc'], { encoding: 'utf8' }).stdout.trim();

describe('VICE client against real VICE (x64sc)', () => {
  test('ping, registers, memory round trip, quit', {
    skip: X64SC ? false : 'x64sc is not on PATH (Debian ships VICE in contrib without ROMs), so the real-VICE run is skipped',
  }, async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const vice = spawn(X64SC, ['-console', '-silent', '-binarymonitor', '-binarymonitoraddress', `ip4://127.0.0.1:${port}`], {
      stdio: 'ignore',
    });
    try {
      const client = await waitFor(
        'x64sc monitor',
        async () => ViceMonitorClient.connect({ port, timeoutMs: 5000 }).catch(() => undefined),
        (c) => c !== undefined,
        30_000,
      );
      await client!.ping();
      const regs = await client!.registersGet();
      assert.equal(typeof regs.PC, 'number');
      await client!.memorySet(0xc000, Uint8Array.of(0xde, 0xad));
      assert.deepEqual([...(await client!.memoryGet(0xc000, 0xc001))], [0xde, 0xad]);
      await client!.quit().catch(() => undefined);
      client!.close();
    } finally {
      vice.kill('SIGTERM');
    }
  });
});
