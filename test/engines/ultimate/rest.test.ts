// The REST client against the virtual device: identity, memory, debug register, configs, drives,
// streams — and bad input, each answered the device's own way, with nothing crashing.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { basicSysPrg, startRig, waitFor, type Rig } from './helpers.js';
import { RestClient, UltimateDevice, UltimateError } from '../../../engines/ultimate/index.js';

async function expectError(
  p: Promise<unknown>,
  check: Partial<Pick<UltimateError, 'kind' | 'status'>> & { deviceErrors?: string[] },
): Promise<UltimateError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof UltimateError, `expected UltimateError, got ${String(e)}`);
    if (check.kind) assert.equal(e.kind, check.kind, e.message);
    if (check.status) assert.equal(e.status, check.status, e.message);
    if (check.deviceErrors) assert.deepEqual(e.deviceErrors, check.deviceErrors);
    return e;
  }
  assert.fail('expected an error');
}

describe('REST client against the virtual device', () => {
  let rig: Rig;
  let base: string;
  before(async () => {
    rig = await startRig();
    base = `http://127.0.0.1:${rig.virtual.ports.http}`;
  });
  after(async () => {
    await rig.close();
  });

  test('probe returns the identity snapshot and says the device is virtual', async () => {
    const p = await rig.device.probe();
    assert.equal(p.apiVersion, '0.1');
    assert.match(p.product, /virtual/i);
    assert.equal(p.virtual, true);
    assert.equal(p.hostname, 'virtual-u64');
    assert.match(p.uniqueId ?? '', /^[0-9A-F]{8}$/);
    assert.equal(typeof p.firmwareVersion, 'string');
    assert.equal(typeof p.fpgaVersion, 'string');
  });

  test('write then read memory: PUT for ≤128 bytes, POST beyond', async () => {
    const small = Uint8Array.from({ length: 128 }, (_, i) => (i * 5) & 0xff);
    const w1 = await rig.device.rest.writeMemory(0x4000, small);
    assert.equal(w1.address, '4000-407f');
    assert.deepEqual(await rig.device.rest.readMemory(0x4000, 128), small);
    const big = Uint8Array.from({ length: 5000 }, (_, i) => (i * 13 + 7) & 0xff);
    const w2 = await rig.device.rest.writeMemory(0x5000, big);
    assert.equal(w2.address, '5000-6387');
    assert.deepEqual(await rig.device.rest.readMemory(0x5000, 5000), big);
    // The very top of memory is reachable; one byte further is not.
    await rig.device.rest.writeMemory(0xffff, Uint8Array.of(0x12));
    const top = await rig.device.rest.readMemory(0xfff0, 16);
    assert.equal(top.length, 16);
  });

  test('debug register: set and read back', async () => {
    assert.equal(await rig.device.rest.setDebugRegister(0x3c), 0x3c);
    assert.equal(await rig.device.rest.debugRegister(), 0x3c);
  });

  test('client-side validation rejects bad ranges before sending', async () => {
    await expectError(rig.device.rest.readMemory(0xfff0, 17), { kind: 'bad-input' });
    await expectError(rig.device.rest.readMemory(-1, 1), { kind: 'bad-input' });
    await expectError(rig.device.rest.readMemory(0x10000, 1), { kind: 'bad-input' });
    await expectError(rig.device.rest.writeMemory(0xffff, Uint8Array.of(1, 2)), { kind: 'bad-input' });
    await expectError(rig.device.rest.setDebugRegister(256), { kind: 'bad-input' });
    assert.throws(() => new RestClient({ baseUrl: 'not a url' }), UltimateError);
  });

  test("malformed input gets the firmware's own answers", async () => {
    const r = rig.device.rest;
    // Length past $FFFF.
    await expectError(r.request('GET', '/v1/machine:readmem', { query: { address: 'FFF0', length: 17 } }), {
      kind: 'device',
      status: 400,
      deviceErrors: ['Memory read exceeds location $FFFF'],
    });
    await expectError(r.request('GET', '/v1/machine:readmem', { query: { address: '0', length: 65537 } }), {
      kind: 'device',
      status: 400,
      deviceErrors: ['Invalid length'],
    });
    await expectError(r.request('GET', '/v1/machine:readmem', { query: { address: '10000' } }), {
      status: 400,
      deviceErrors: ['Invalid address'],
    });
    await expectError(r.request('GET', '/v1/machine:readmem', { query: { address: '-5' } }), {
      status: 400,
      deviceErrors: ['Invalid address'],
    });
    // A non-hex address parses as 0 (C's strtol), exactly as the firmware reads it.
    const zero = await r.request('GET', '/v1/machine:readmem', { query: { address: 'zz', length: 2 }, binary: true });
    assert.deepEqual(zero, await r.readMemory(0, 2));
    await expectError(r.request('PUT', '/v1/machine:writemem', { query: { address: 'C000', data: '12G4' } }), {
      status: 400,
      deviceErrors: ["Invalid char 'G' at position 2."],
    });
    await expectError(r.request('PUT', '/v1/machine:writemem', { query: { address: 'FFFF', data: '0102' } }), {
      status: 400,
      deviceErrors: ['Memory write exceeds location $FFFF'],
    });
    await expectError(r.request('PUT', '/v1/machine:writemem', { query: { address: 'C000', data: '' } }), {
      status: 400,
      deviceErrors: ['Use this API call to write at least one byte!'],
    });
    await expectError(r.request('PUT', '/v1/machine:writemem', { query: { address: 'C000', data: '00'.repeat(129) } }), {
      status: 400,
      deviceErrors: ['Maximum length of 128 bytes exceeded. Consider using POST method with attachment.'],
    });
    await expectError(r.request('POST', '/v1/machine:writemem', { query: { address: 'FF00' }, body: new Uint8Array(257) }), {
      status: 400,
      deviceErrors: ['Memory write exceeds location $FFFF'],
    });
    await expectError(r.request('POST', '/v1/machine:writemem', { query: { address: 'C000' } }), {
      status: 412,
      deviceErrors: ['Expected Body, but got none.'],
    });
    // The upload is read before the parameters are checked: no body is 412 even without `address`.
    await expectError(r.request('POST', '/v1/machine:writemem'), {
      status: 412,
      deviceErrors: ['Expected Body, but got none.'],
    });
    await expectError(r.request('POST', '/v1/machine:writemem', { body: Uint8Array.of(1) }), {
      status: 400,
      deviceErrors: ['Function writemem requires parameter address'],
    });
    await expectError(r.request('GET', '/v1/machine:readmem', { query: { address: '0', bogus: '1' } }), {
      status: 400,
      deviceErrors: ['Function readmem does not have parameter bogus'],
    });
    await expectError(r.request('GET', '/v1/machine:readmem'), {
      status: 400,
      deviceErrors: ['Function readmem requires parameter address'],
    });
  });

  test('unknown routes, commands and methods are a bare 404 → unknown-route', async () => {
    const r = rig.device.rest;
    await expectError(r.request('GET', '/v1/nonsense'), { kind: 'unknown-route', status: 404 });
    await expectError(r.request('PUT', '/v1/machine:explode'), { kind: 'unknown-route' });
    await expectError(r.request('DELETE', '/v1/machine:reset'), { kind: 'unknown-route' });
    await expectError(r.request('PUT', '/v1/streams/debug:explode'), { kind: 'unknown-route' });
    const raw = await fetch(`${base}/v1/nonsense`);
    assert.equal(raw.status, 404);
    assert.equal((await raw.arrayBuffer()).byteLength, 0);
  });

  test('firmware order and texts: bare 404 before the password, cmd "none", strtol base 0, required ip, stream names', async () => {
    const locked = await startRig({ password: 'pw' });
    try {
      // An unknown call is a bare 404 even without the password (routes.h checks it only for calls that exist).
      const raw = await fetch(`http://127.0.0.1:${locked.virtual.ports.http}/v1/nosuch`);
      assert.equal(raw.status, 404);
      assert.equal((await raw.arrayBuffer()).byteLength, 0);
      const known = await fetch(`http://127.0.0.1:${locked.virtual.ports.http}/v1/version`);
      assert.equal(known.status, 403);
    } finally {
      await locked.close();
    }
    const r = rig.device.rest;
    await expectError(r.request('GET', '/v1/version', { query: { x: '1' } }), {
      status: 400,
      deviceErrors: ['Function none does not have parameter x'],
    });
    // readmem's length is parsed by strtol(…, 0): 0x10 is 16, 010 is 8.
    const hexLen = await fetch(`${base}/v1/machine:readmem?address=0400&length=0x10`);
    assert.equal((await hexLen.arrayBuffer()).byteLength, 16);
    const octLen = await fetch(`${base}/v1/machine:readmem?address=0400&length=010`);
    assert.equal((await octLen.arrayBuffer()).byteLength, 8);
    await expectError(r.request('PUT', '/v1/streams/debug:start'), {
      status: 400,
      deviceErrors: ['Function start requires parameter ip'],
    });
    await expectError(r.request('PUT', '/v1/streams/hologram:start', { query: { ip: '127.0.0.1' } }), {
      kind: 'device',
      status: 404,
      deviceErrors: ['Unrecognized stream name'],
    });
    // Stream names are matched case-insensitively.
    await r.request('PUT', '/v1/streams/DEBUG:stop');
    // A configs POST must say it is JSON.
    const noType = await fetch(`${base}/v1/configs`, { method: 'POST', body: '{}' });
    assert.equal(noType.status, 400);
  });

  test('DMA writes cannot reach the 6510 port: $00/$01 writes land in RAM, the banking stays', async () => {
    const r = rig.device.rest;
    await r.writeMemory(0x0000, Uint8Array.of(0x00, 0x30)); // would bank out BASIC, KERNAL and I/O
    // I/O is still mapped: the debug register answers through $D7FF as before.
    await r.setDebugRegister(0x3c);
    assert.deepEqual([...(await r.readMemory(0xd7ff, 1))], [0x3c]);
    assert.deepEqual([...(await r.readMemory(0x0000, 2))], [0x00, 0x30], 'the RAM under the port holds the bytes');
    assert.equal(rig.virtual.machine.peek(0x01) & 0x07, 0x07, 'the CPU still sees its port (all ROMs in)');
  });

  test('oversized bodies are refused with 507 before they are stored', async () => {
    const r = rig.device.rest;
    await expectError(r.request('POST', '/v1/runners:run_prg', { body: new Uint8Array(4 * 1024 * 1024 + 1) }), {
      kind: 'device',
      status: 507,
    });
    // The device is still fine afterwards.
    assert.equal(await r.version(), '0.1');
  });

  test('garbage on the HTTP port is refused without harming the device', async () => {
    const s = net.connect({ host: '127.0.0.1', port: rig.virtual.ports.http });
    await new Promise<void>((r) => s.once('connect', () => r()));
    const reply = new Promise<string>((r) => {
      let t = '';
      s.on('data', (d) => {
        t += d;
      });
      s.on('close', () => r(t));
    });
    s.write('\x00\x01GARBAGE\r\n\r\n');
    assert.match(await reply, /^HTTP\/1\.1 400/);
    assert.equal(await rig.device.rest.version(), '0.1');
  });

  test('runner answers: missing file 404, short or overlong PRG 200 as the firmware, no cartridge emulation 501', async () => {
    const r = rig.device.rest;
    await expectError(r.runPrg({ path: '/Usb0/none.prg' }), { status: 404, deviceErrors: ['Cannot open file'] });
    // The firmware discards dma_load's result: a 2-byte file loads nothing, one past $FFFF is cut.
    assert.deepEqual(await r.runPrg({ bytes: Uint8Array.of(1, 8) }), { errors: [] });
    assert.deepEqual(await r.loadPrg({ bytes: Uint8Array.of(0xf0, 0xff, ...Array.from({ length: 32 }, (_, i) => i + 1)) }), { errors: [] });
    await expectError(r.runPrg({ bytes: new Uint8Array(0) }), { kind: 'bad-input' });
    await expectError(r.runCrt({ bytes: Uint8Array.of(1, 2, 3) }), { status: 501 });
  });

  test('multipart/form-data uploads run like raw ones', async () => {
    // BASIC stub, then at $080D: LDA #$5A / STA $D7FF / JMP $0812.
    const prg = basicSysPrg([0xa9, 0x5a, 0x8d, 0xff, 0xd7, 0x4c, 0x12, 0x08]);
    const form = new FormData();
    form.append('file', new Blob([Buffer.from(prg)]), 'prog.prg');
    const res = await fetch(`${base}/v1/runners:run_prg`, { method: 'POST', body: form });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { errors: [] });
    await waitFor(
      'debug register $5A',
      () => rig.device.rest.debugRegister(),
      (v) => v === 0x5a,
    );
  });

  test('run_prg of machine code at $C000 without a BASIC stub loads it but does not start it', async () => {
    const r = rig.device.rest;
    await r.setDebugRegister(0);
    // $C000: LDA #$5B / STA $D7FF / JMP $C005 — on hardware RUN finds no BASIC program.
    await r.runPrg({ bytes: Uint8Array.of(0x00, 0xc0, 0xa9, 0x5b, 0x8d, 0xff, 0xd7, 0x4c, 0x05, 0xc0) });
    const before = rig.virtual.clock.executed;
    await waitFor(
      '200k clocks after run_prg',
      () => rig.virtual.clock.executed,
      (n) => n > before + 200_000,
    );
    assert.equal(await r.debugRegister(), 0, 'the program did not run');
    assert.deepEqual([...(await r.readMemory(0xc000, 3))], [0xa9, 0x5b, 0x8d], 'it is loaded');
  });

  test('load_prg resets the machine: a running program stops', async () => {
    const r = rig.device.rest;
    // A loop that keeps writing $77 to the debug register.
    await r.runPrg({ bytes: basicSysPrg([0xa9, 0x77, 0x8d, 0xff, 0xd7, 0x4c, 0x0d, 0x08]) });
    await waitFor(
      'the loop running',
      () => r.debugRegister(),
      (v) => v === 0x77,
    );
    await r.loadPrg({ bytes: Uint8Array.of(0x00, 0x30, 1, 2, 3) });
    await r.setDebugRegister(0);
    const before = rig.virtual.clock.executed;
    await waitFor(
      '200k clocks after load_prg',
      () => rig.virtual.clock.executed,
      (n) => n > before + 200_000,
    );
    assert.equal(await r.debugRegister(), 0, 'the old loop was stopped by the reset');
    assert.deepEqual([...(await r.readMemory(0x3000, 3))], [1, 2, 3]);
  });

  test('REU preload: a choice-list offset, loaded at boot only — never by a reset', async () => {
    const r = rig.device.rest;
    await expectError(r.setConfigItem('C64 and Cartridge Settings', 'REU Preload Offset', '256'), {
      status: 400,
      deviceErrors: ["Value '256' is not a valid choice for item REU Preload Offset"],
    });
    const image = Uint8Array.from({ length: 4096 }, (_, i) => (i * 3) & 0xff);
    await rig.device.ftp.upload('/Flash/reu.bin', image);
    await r.setConfigs({
      'C64 and Cartridge Settings': {
        'RAM Expansion Unit': 'Enabled',
        'REU Preload': 'Enabled',
        'REU Preload Image': '/Flash/reu.bin',
        'REU Preload Offset': '128 KB',
      },
    });
    await r.reset();
    assert.deepEqual(rig.virtual.readReu(0x20000, 16), new Uint8Array(16), 'a REST reset preloads nothing');
    await r.setConfigItem('C64 and Cartridge Settings', 'REU Preload', 'Disabled');
    // At boot, with the image on the storage and the items saved, the preload happens once.
    const booted = await startRig({
      files: { '/Usb0/preload.reu': image },
      config: {
        'C64 and Cartridge Settings': { 'RAM Expansion Unit': 'Enabled', 'REU Preload': 'Enabled', 'REU Preload Offset': '128 KB' },
      },
    });
    try {
      assert.deepEqual(booted.virtual.readReu(0x20000, image.length), image);
      await booted.device.writeReu(Uint8Array.of(0xee), 0x20000);
      await booted.device.rest.reset();
      assert.equal(booted.virtual.readReu(0x20000, 1)[0], 0xee, 'a reset keeps the REU contents');
    } finally {
      await booted.close();
    }
  });

  test('the device constructor rejects a malformed host', () => {
    assert.throws(
      () => new UltimateDevice({ host: 'http://x/y' }),
      (e: unknown) => e instanceof UltimateError && e.kind === 'bad-input',
    );
    assert.throws(
      () => new UltimateDevice({ host: '' }),
      (e: unknown) => e instanceof UltimateError && e.kind === 'bad-input',
    );
    assert.throws(
      () => new UltimateDevice({ host: '10.0.0.1', baseUrl: 'http://10.0.0.2' }),
      (e: unknown) => e instanceof UltimateError && e.kind === 'bad-input',
    );
  });

  test('a device can be named by its REST base URL', async () => {
    const byUrl = new UltimateDevice({ baseUrl: base, ftpPort: rig.virtual.ports.ftp });
    assert.equal(byUrl.host, '127.0.0.1');
    assert.equal((await byUrl.probe()).virtual, true);
    assert.ok((await byUrl.ftp.list('/')).length === 5);
    await byUrl.close();
  });

  test('configuration categories and items', async () => {
    const r = rig.device.rest;
    const cats = await r.configCategories();
    assert.ok(cats.includes('C64 and Cartridge Settings'));
    await r.setConfigItem('C64 and Cartridge Settings', 'REU Size', '16 MB');
    const item = await r.configItem('C64 and Cartridge Settings', 'REU Size');
    assert.equal((item['C64 and Cartridge Settings'] as Record<string, { current: string }>)['REU Size']!.current, '16 MB');
    await expectError(r.setConfigItem('C64 and Cartridge Settings', 'REU Size', '3 MB'), { status: 400 });
    // Names are case-insensitive wildcards; no match is 200 without the category.
    assert.deepEqual(Object.keys(await r.configCategory('No Such Category')), ['errors']);
    const wild = await r.configItem('c64 and*', 'REU Pre*');
    assert.deepEqual(Object.keys(wild['C64 and Cartridge Settings'] as object).sort(), [
      'REU Preload',
      'REU Preload Image',
      'REU Preload Offset',
    ]);
    await expectError(r.setConfigItem('No Such Category', 'x', '1'), {
      status: 404,
      deviceErrors: ["There is no config category that matches 'No Such Category'"],
    });
    await r.setConfigs({ 'Network Settings': { 'Host Name': 'renamed' } });
    assert.equal((await r.info()).hostname, 'renamed');
    await r.setConfigs({ 'Network Settings': { 'Host Name': 'virtual-u64' } });
  });

  test('drives: list, mount an uploaded image, remove', async () => {
    const r = rig.device.rest;
    await rig.device.ftp.upload('/Usb0/disk.d64', new Uint8Array(174848));
    await r.mount('a', '/Usb0/disk.d64');
    const drives = (await r.drives()) as unknown as { drives: Array<Record<string, Record<string, unknown>>> };
    // The firmware's keys: bus_id, image_file and image_path apart.
    assert.deepEqual(drives.drives[0]!.a, {
      enabled: true,
      bus_id: 8,
      type: '1541',
      rom: '1541.rom',
      image_file: 'disk.d64',
      image_path: '/Usb0',
    });
    await expectError(r.mount('a', '/Usb0/missing.d64'), { status: 404 });
    await expectError(r.request('PUT', '/v1/drives/z:mount', { query: { image: '/Usb0/disk.d64' } }), {
      status: 400,
      deviceErrors: ["Invalid Drive 'z'"],
    });
    await r.driveCommand('a', 'remove');
    assert.equal(JSON.stringify(await r.drives()).includes('disk.d64'), false);
  });

  test('power off holds the machine until a reset; the menu button freezes and unfreezes it', async () => {
    const r = rig.device.rest;
    await r.poweroff();
    assert.deepEqual(rig.virtual.clock.holds, ['power-off']);
    await r.reset();
    assert.equal(rig.virtual.clock.running, true);
    await r.menuButton();
    assert.deepEqual(rig.virtual.clock.holds, ['menu']);
    await r.menuButton();
    assert.equal(rig.virtual.clock.running, true);
  });

  test('pause and resume stop and restart the clock', async () => {
    const r = rig.device.rest;
    await r.pause();
    const at = rig.virtual.clock.executed;
    await new Promise((res) => setTimeout(res, 50));
    assert.equal(rig.virtual.clock.executed, at);
    await r.resume();
    assert.equal(rig.virtual.clock.running, true);
  });

  test("a paused machine stays paused through memory writes and runs again at run_prg, as the firmware's dma_load starts the boot cartridge", async () => {
    const r = rig.device.rest;
    await r.pause();
    await r.writeMemory(0xc100, Uint8Array.of(0xab, 0xcd));
    assert.deepEqual(rig.virtual.clock.holds, ['rest-pause'], 'a DMA write leaves a stopped machine stopped');
    // A PRG at $C000 (JMP $C000): what it does does not matter, only that the machine runs again.
    await rig.device.runPrg({ bytes: Uint8Array.of(0x00, 0xc0, 0x4c, 0x00, 0xc0) });
    assert.equal(rig.virtual.clock.running, true, 'run_prg lifted the pause');
    await r.pause();
    await r.loadPrg({ bytes: Uint8Array.of(0x00, 0xc0, 0x4c, 0x00, 0xc0) });
    assert.equal(rig.virtual.clock.running, true, 'load_prg lifted it too');
  });
});

describe('password, timeouts and refused connections', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig({ password: 'sekret' });
  });
  after(async () => {
    await rig.close();
  });

  test('the right password works; a wrong or missing one is 403 Forbidden', async () => {
    assert.equal(await rig.device.rest.version(), '0.1');
    const wrong = new UltimateDevice({ host: '127.0.0.1', httpPort: rig.virtual.ports.http, password: 'nope' });
    await expectError(wrong.rest.version(), { kind: 'forbidden', status: 403, deviceErrors: ['Forbidden.'] });
    const none = new UltimateDevice({ host: '127.0.0.1', httpPort: rig.virtual.ports.http });
    await expectError(none.rest.readMemory(0, 1), { kind: 'forbidden', status: 403 });
  });

  test('a device that never answers is a timeout', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((s) => {
      sockets.add(s);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const port = (silent.address() as net.AddressInfo).port;
    try {
      const client = new RestClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 300 });
      await expectError(client.version(), { kind: 'timeout' });
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  test('nothing listening is connection-refused', async () => {
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const client = new RestClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 2000 });
    await expectError(client.version(), { kind: 'connection-refused' });
  });
});
