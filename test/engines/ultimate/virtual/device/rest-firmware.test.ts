// The REST calls of firmware 3.15 that the virtual device used to lack: the SoftIEC drive and the
// drive commands, machine:measure, machine:menu_screen (3.15 only) and files:create_d64 — each
// answered as the firmware answers it, over real HTTP.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startRig, type Rig } from '../../helpers.js';
import { UltimateError } from '../../../../../engines/ultimate/index.js';

/** A raw request: status and parsed JSON (or null for a bare answer). */
async function call(rig: Rig, method: string, path: string): Promise<{ status: number; json: Record<string, unknown> | null }> {
  const res = await fetch(`http://127.0.0.1:${rig.virtual.ports.http}${path}`, { method });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

describe('REST calls of firmware 3.15 on the virtual device', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig();
    await rig.device.ftp.upload('/Usb0/game.d64', new Uint8Array(174848));
    await rig.device.ftp.upload('/Usb0/dos.bin', new Uint8Array(16384));
  });
  after(async () => {
    await rig.close();
  });

  test('GET drives lists the SoftIEC drive after A and B', async () => {
    const { json } = await call(rig, 'GET', '/v1/drives');
    const drives = (json as { drives: Array<Record<string, Record<string, unknown>>> }).drives;
    assert.deepEqual(
      drives.map((d) => Object.keys(d)[0]),
      ['a', 'b', 'IEC Drive'],
    );
    assert.deepEqual(drives[2]!['IEC Drive'], {
      bus_id: 11,
      enabled: false,
      type: 'DOS emulation',
      last_error: '73,U64HD ULTIMATE DOS V2.0,00,00',
      partitions: [{ id: 1, path: '/Temp' }],
    });
  });

  test('mount answers the subsystem, file type and command; the type comes from the extension and is checked; drive names are case-insensitive', async () => {
    const m = await call(rig, 'PUT', '/v1/drives/A:mount?image=/Usb0/game.d64&mode=readonly');
    assert.equal(m.status, 200);
    assert.deepEqual(m.json, { Subsys: 2, Ftype: 1541, command: 0x1520 | 0x8000, file: '/Usb0/game.d64', errors: [] });
    const bad = await call(rig, 'PUT', '/v1/drives/b:mount?image=/Usb0/dos.bin');
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.json, { errors: ["Invalid Type 'bin'"] });
    const typed = await call(rig, 'PUT', '/v1/drives/b:mount?image=/Usb0/dos.bin&type=g64');
    assert.deepEqual(typed.json, { Subsys: 3, Ftype: 1541, command: 0x1530, file: '/Usb0/dos.bin', errors: [] });
    // SoftIEC accepts the command and does nothing with it (the IEC subsystem ignores 1541 codes).
    const soft = await call(rig, 'PUT', '/v1/drives/softiec:mount?image=/Usb0/game.d64');
    assert.deepEqual(soft.json, { Subsys: 7, Ftype: 1541, command: 0x1520, file: '/Usb0/game.d64', errors: [] });
  });

  test('unlink, load_rom and set_mode on A; every command on softiec succeeds without effect; bad names and modes are refused', async () => {
    await call(rig, 'PUT', '/v1/drives/a:mount?image=/Usb0/game.d64');
    assert.equal((await call(rig, 'PUT', '/v1/drives/a:unlink')).status, 200);
    assert.equal(rig.virtual.drives.get('a')!.mode, 'unlinked');
    assert.equal((await call(rig, 'PUT', '/v1/drives/a:load_rom?file=/Usb0/dos.bin')).status, 200);
    const setMode = await call(rig, 'PUT', '/v1/drives/a:set_mode?mode=1571');
    assert.deepEqual(setMode.json, { mode: '1571', errors: [] });
    const listed = (await call(rig, 'GET', '/v1/drives')).json as { drives: Array<Record<string, Record<string, unknown>>> };
    assert.equal(listed.drives[0]!.a!.type, '1571');
    assert.equal(listed.drives[0]!.a!.rom, 'dos.bin');
    const badMode = await call(rig, 'PUT', '/v1/drives/a:set_mode?mode=1542');
    assert.deepEqual([badMode.status, badMode.json], [400, { errors: ["Invalid Drive Type '1542'"] }]);
    assert.deepEqual((await call(rig, 'PUT', '/v1/drives/a:load_rom')).json, { errors: ['Function load_rom requires parameter file'] });
    for (const cmd of ['reset', 'remove', 'on', 'off', 'unlink', 'set_mode?mode=1581', 'load_rom?file=/nowhere']) {
      assert.equal((await call(rig, 'PUT', `/v1/drives/SoftIEC:${cmd}`)).status, 200, cmd);
    }
    const q = await call(rig, 'PUT', '/v1/drives/c:unlink');
    assert.deepEqual([q.status, q.json], [400, { errors: ["Invalid Drive 'c'"] }]);
  });

  test('machine:measure answers as a firmware on an FPGA without bus measurement; menu_screen has no menu to copy', async () => {
    const m = await call(rig, 'GET', '/v1/machine:measure');
    assert.deepEqual(
      [m.status, m.json],
      [501, { errors: ['The current FPGA build does not support timing measurement of the cartridge bus.'] }],
    );
    const s = await call(rig, 'GET', '/v1/machine:menu_screen');
    assert.deepEqual([s.status, s.json], [404, { errors: ['Menu screen unavailable.'] }]);
    // Through the client: a device error, not an unknown route.
    await assert.rejects(
      rig.device.rest.request('GET', '/v1/machine:menu_screen'),
      (e: unknown) => e instanceof UltimateError && e.kind === 'device' && e.status === 404,
    );
  });

  test('files:create_d64 writes an empty formatted D64 and answers path, tracks, disk name and bytes written', async () => {
    const r = await call(rig, 'PUT', '/v1/files/Temp/blank.d64:create_d64');
    assert.deepEqual(
      [r.status, r.json],
      [200, { path: 'Temp/blank.d64', tracks: 35, diskname: 'blank', bytes_written: 174848, errors: [] }],
    );
    const img = await rig.device.ftp.download('/Temp/blank.d64');
    assert.equal(img.length, 174848);
    const bam = 357 * 256; // track 18, sector 0
    assert.deepEqual([...img.subarray(bam, bam + 4)], [18, 1, 0x41, 0x20]);
    // Name upper-cased and padded, DOS type "2A".
    assert.equal(Buffer.from(img.subarray(bam + 144, bam + 149)).toString('latin1'), 'BLANK');
    assert.equal(img[bam + 149], 0xa0);
    assert.deepEqual([...img.subarray(bam + 165, bam + 167)], [0x32, 0x41]);
    // 664 blocks free: every sector of 35 tracks but the BAM and the first directory block.
    let free = 0;
    for (let t = 1; t <= 35; t++) free += img[bam + 4 * t]!;
    assert.equal(free, 683 - 2);
    assert.deepEqual([...img.subarray(bam + 4 * 18, bam + 4 * 18 + 4)], [17, 0xfc, 0xff, 0x07]);
    assert.deepEqual([...img.subarray(bam + 256, bam + 258)], [0, 0xff], 'an empty directory block at 18/1');

    const named = await call(rig, 'PUT', '/v1/files/Temp/big.d64:create_d64?tracks=40&diskname=games,ab');
    assert.deepEqual(named.json, { path: 'Temp/big.d64', tracks: 40, diskname: 'games,ab', bytes_written: 196608, errors: [] });
    const big = await rig.device.ftp.download('/Temp/big.d64');
    assert.equal(Buffer.from(big.subarray(bam + 144, bam + 149)).toString('latin1'), 'GAMES');
    assert.deepEqual([...big.subarray(bam + 162, bam + 164)], [0x41, 0x42], 'the part after the comma is the disk ID');

    const tooMany = await call(rig, 'PUT', '/v1/files/Temp/x.d64:create_d64?tracks=42');
    assert.deepEqual(
      [tooMany.status, tooMany.json],
      [400, { path: 'Temp/x.d64', tracks: 42, diskname: 'x', errors: ['Track count should be between 35 and 41.'] }],
    );
  });
});

describe('files:create_d71 and create_d81', () => {
  test('write formatted images with their BAMs where the firmware puts them', async () => {
    const rig = await startRig();
    try {
      const d71 = await call(rig, 'PUT', '/v1/files/Temp/two.d71:create_d71');
      assert.deepEqual(d71.json, { path: 'Temp/two.d71', tracks: 70, diskname: 'two', bytes_written: 349696, errors: [] });
      const img71 = await rig.device.ftp.download('/Temp/two.d71');
      const bam = 357 * 256;
      assert.deepEqual([...img71.subarray(bam, bam + 4)], [18, 1, 0x41, 0x80]);
      let free1 = 0;
      for (let t = 1; t <= 35; t++) free1 += img71[bam + 4 * t]!;
      let free2 = 0;
      for (let t = 36; t <= 70; t++) free2 += img71[bam + 0xdd + t - 36]!;
      assert.deepEqual([free1, free2], [681, 683 - 19], 'side 1 less the BAM and directory; side 2 less track 53');
      const bam2 = (683 + 357) * 256; // track 53, sector 0
      assert.deepEqual([...img71.subarray(bam2, bam2 + 3)], [0xff, 0xff, 0x1f], 'track 36: 21 sectors free');
      assert.deepEqual([...img71.subarray(bam2 + 3 * 17, bam2 + 3 * 17 + 3)], [0, 0, 0], 'track 53 all in use');

      const d81 = await call(rig, 'PUT', '/v1/files/Temp/big.d81:create_d81?diskname=work,x1');
      assert.deepEqual(d81.json, { path: 'Temp/big.d81', diskname: 'work,x1', bytes_written: 819200, errors: [] });
      const img81 = await rig.device.ftp.download('/Temp/big.d81');
      const root = 39 * 40 * 256;
      assert.deepEqual([...img81.subarray(root, root + 3)], [40, 3, 0x44]);
      assert.equal(Buffer.from(img81.subarray(root + 4, root + 8)).toString('latin1'), 'WORK');
      assert.deepEqual([...img81.subarray(root + 22, root + 24)], [0x58, 0x31], 'disk ID X1');
      assert.deepEqual([...img81.subarray(root + 25, root + 27)], [0x33, 0x44], 'DOS type 3D');
      const b1 = root + 256;
      assert.deepEqual([...img81.subarray(b1, b1 + 7)], [40, 2, 0x44, 0xbb, 0x58, 0x31, 0xc0]);
      assert.deepEqual([...img81.subarray(b1 + 256, b1 + 262)], [0, 0xff, 0x44, 0xbb, 0x58, 0x31]);
      assert.deepEqual(
        [...img81.subarray(b1 + 0x10 + 6 * 39, b1 + 0x10 + 6 * 40)],
        [36, 0xf0, 0xff, 0xff, 0xff, 0xff],
        'track 40: 40/0-3 used',
      );
      assert.deepEqual([...img81.subarray(b1 + 0x110, b1 + 0x116)], [40, 0xff, 0xff, 0xff, 0xff, 0xff], 'track 41 all free');
      assert.deepEqual([...img81.subarray(root + 3 * 256, root + 3 * 256 + 2)], [0, 0xff]);
    } finally {
      await rig.close();
    }
  });
});

describe('configs: save_to_flash, load_from_flash, reset_to_default', () => {
  test('save writes only stale categories; load brings the flash values back; reset takes the defaults; a category pattern lists what it touched', async () => {
    const rig = await startRig({ config: { 'Data Streams': { 'Stream Debug to': '127.0.0.1:5000' } } });
    try {
      const item = async () => {
        const { json } = await call(rig, 'GET', '/v1/configs/Data%20Streams/Stream%20Debug%20to');
        return (
          (json as Record<string, Record<string, Record<string, unknown>>>)['Data Streams']!['Stream Debug to'] as { current: string }
        ).current;
      };
      // The boot configuration is the flash's: nothing to write.
      assert.deepEqual((await call(rig, 'PUT', '/v1/configs:save_to_flash')).json, { written: [], errors: [] });
      await call(rig, 'PUT', '/v1/configs/Data%20Streams/Stream%20Debug%20to?value=127.0.0.1:6000');
      assert.deepEqual((await call(rig, 'PUT', '/v1/configs:save_to_flash')).json, { written: ['Data Streams'], errors: [] });
      await call(rig, 'PUT', '/v1/configs/Data%20Streams/Stream%20Debug%20to?value=127.0.0.1:7000');
      assert.deepEqual((await call(rig, 'PUT', '/v1/configs:load_from_flash')).json, { errors: [] });
      assert.equal(await item(), '127.0.0.1:6000');
      assert.deepEqual((await call(rig, 'PUT', '/v1/configs/data*:reset_to_default')).json, { reset: ['Data Streams'], errors: [] });
      assert.equal(await item(), '239.0.1.66:11002');
      assert.deepEqual((await call(rig, 'PUT', '/v1/configs/Data%20Streams:load_from_flash')).json, {
        loaded: ['Data Streams'],
        errors: [],
      });
      assert.equal(await item(), '127.0.0.1:6000');
      const deep = await call(rig, 'PUT', '/v1/configs/a/b:save_to_flash');
      assert.deepEqual([deep.status, deep.json], [400, { errors: ['Path depth exceeds 1.'] }]);
    } finally {
      await rig.close();
    }
  });
});

describe('the 3.15 input API on an Ultimate-II+', () => {
  test('GET and POST machine:input answer 501 with the firmware text; menu_screen exists there too', async () => {
    const rig = await startRig({ product: 'u2plus' });
    try {
      for (const method of ['GET', 'POST']) {
        const r = await call(rig, method, '/v1/machine:input');
        assert.deepEqual(
          [r.status, r.json],
          [501, { errors: ['Keyboard and joystick injection require Ultimate 64-class hardware.'] }],
          method,
        );
      }
      assert.equal((await call(rig, 'GET', '/v1/machine:menu_screen')).status, 404);
    } finally {
      await rig.close();
    }
  });
});

describe('REST calls new in 3.15 on a 3.14 virtual device', () => {
  test('machine:menu_screen is a bare 404 on firmware 3.14', async () => {
    const rig = await startRig({ firmware: '3.14' });
    try {
      const s = await call(rig, 'GET', '/v1/machine:menu_screen');
      assert.deepEqual([s.status, s.json], [404, null]);
    } finally {
      await rig.close();
    }
  });
});
