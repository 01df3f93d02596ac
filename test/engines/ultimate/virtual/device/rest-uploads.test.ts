// POST drives:mount / drives:load_rom with the image or ROM in the body, and files:create_dnp —
// answered as firmware 3.15 answers them (route_drives.cc, route_files.cc), over real HTTP. Each of
// these was a bare 404 on the virtual device before.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startRig, type Rig } from '../../helpers.js';

interface Reply {
  status: number;
  json: Record<string, unknown> | null;
}

async function send(rig: Rig, method: string, path: string, init: { body?: Uint8Array | FormData; type?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = init.type ? { 'Content-Type': init.type } : {};
  const body = init.body instanceof Uint8Array ? Buffer.from(init.body) : init.body;
  const res = await fetch(`http://127.0.0.1:${rig.virtual.ports.http}${path}`, { method, body, headers });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

/** A multipart form with one file part named `name`, as a browser or curl -F sends it. */
function form(bytes: Uint8Array, name: string): FormData {
  const f = new FormData();
  f.append('file', new Blob([Buffer.from(bytes)]), name);
  return f;
}

function driveA(json: Record<string, unknown> | null): Record<string, unknown> {
  const drives = (json as { drives: Array<Record<string, Record<string, unknown>>> }).drives;
  return drives[0]!.a!;
}

describe('POST drives:mount and drives:load_rom', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => {
    await rig.close();
  });

  test('a multipart upload is stored under /Temp/cache/upload by its file name and mounted by its extension', async () => {
    const image = new Uint8Array(174848).fill(0x5a);
    const r = await send(rig, 'POST', '/v1/drives/a:mount', { body: form(image, 'game.d64') });
    assert.deepEqual(
      [r.status, r.json],
      [200, { Subsys: 2, Ftype: 1541, command: 0x1520, file: '/Temp/cache/upload/game.d64', errors: [] }],
    );
    const a = driveA((await send(rig, 'GET', '/v1/drives')).json);
    assert.equal(a.image_file, 'game.d64');
    assert.equal(a.image_path, '/Temp/cache/upload');
    assert.deepEqual(await rig.device.ftp.download('/Temp/cache/upload/game.d64'), image);

    // The same name again is a new file (FA_CREATE_NEW): `_1` before the extension; mode bits apply.
    const again = await send(rig, 'POST', '/v1/drives/b:mount?mode=readonly', { body: form(image, 'game.d64') });
    assert.deepEqual(again.json, { Subsys: 3, Ftype: 1541, command: 0x1520 | 0x8000, file: '/Temp/cache/upload/game_1.d64', errors: [] });

    // Leading dots/slashes are dropped and FAT-illegal characters become '_'.
    const odd = await send(rig, 'POST', '/v1/drives/a:mount', { body: form(image, '../we:ird.g64') });
    assert.equal(odd.status, 200);
    assert.equal(odd.json?.file, '/Temp/cache/upload/we_ird.g64');
    assert.equal(odd.json?.command, 0x1530);
  });

  test('a raw body has no name: stored as temp%04x, so the type must come from `type`', async () => {
    const fresh = await startRig();
    try {
      const bytes = new Uint8Array(819200);
      const untyped = await send(fresh, 'POST', '/v1/drives/a:mount', { body: bytes, type: 'application/octet-stream' });
      assert.deepEqual([untyped.status, untyped.json], [400, { errors: ["Invalid Type ''"] }]);
      const typed = await send(fresh, 'POST', '/v1/drives/a:mount?type=d81', { body: bytes, type: 'application/octet-stream' });
      assert.deepEqual(
        [typed.status, typed.json],
        [200, { Subsys: 2, Ftype: 1581, command: 0x1520, file: '/Temp/cache/upload/temp0001', errors: [] }],
      );
      const bad = await send(fresh, 'POST', '/v1/drives/a:mount?type=tap', { body: bytes });
      assert.deepEqual([bad.status, bad.json], [400, { errors: ["Invalid Type 'tap'"] }]);
    } finally {
      await fresh.close();
    }
  });

  test('bad drive, empty body and unknown parameters get the firmware answers', async () => {
    const img = new Uint8Array(1000);
    const drive = await send(rig, 'POST', '/v1/drives/z:mount', { body: form(img, 'x.d64') });
    assert.deepEqual([drive.status, drive.json], [400, { errors: ["Invalid Drive 'z'"] }]);
    const empty = await send(rig, 'POST', '/v1/drives/a:mount?type=d64', { body: new Uint8Array(0) });
    assert.deepEqual([empty.status, empty.json], [412, { errors: ['Expected Body, but got none.'] }]);
    const extra = await send(rig, 'POST', '/v1/drives/a:mount?image=x.d64', { body: form(img, 'x.d64') });
    assert.deepEqual([extra.status, extra.json], [400, { errors: ['Function mount does not have parameter image'] }]);
    const romExtra = await send(rig, 'POST', '/v1/drives/a:load_rom?file=x', { body: form(img, 'x.bin') });
    assert.deepEqual([romExtra.status, romExtra.json], [400, { errors: ['Function load_rom does not have parameter file'] }]);
  });

  test('load_rom from an upload sets the drive ROM to the stored file', async () => {
    const rom = new Uint8Array(16384).fill(0xea);
    const r = await send(rig, 'POST', '/v1/drives/a:load_rom', { body: form(rom, 'jiffydos.bin') });
    assert.deepEqual([r.status, r.json], [200, { errors: [] }]);
    assert.equal(driveA((await send(rig, 'GET', '/v1/drives')).json).rom, 'jiffydos.bin');
    assert.deepEqual(await rig.device.ftp.download('/Temp/cache/upload/jiffydos.bin'), rom);
    const bad = await send(rig, 'POST', '/v1/drives/q:load_rom', { body: form(rom, 'x.bin') });
    assert.deepEqual([bad.status, bad.json], [400, { errors: ["Invalid Drive 'q'"] }]);
    const iec = await send(rig, 'POST', '/v1/drives/softiec:load_rom', { body: rom, type: 'application/octet-stream' });
    assert.deepEqual([iec.status, iec.json], [200, { errors: [] }]);
  });
});

describe('files:create_dnp', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => {
    await rig.close();
  });

  test('writes a CMD native partition of tracks × 64 KiB with the firmware root, BAM and directory', async () => {
    const r = await send(rig, 'PUT', '/v1/files/Temp/part.dnp:create_dnp?tracks=2&diskname=native,cm');
    assert.deepEqual(
      [r.status, r.json],
      [200, { path: 'Temp/part.dnp', tracks: 2, diskname: 'native,cm', bytes_written: 131072, errors: [] }],
    );
    const img = await rig.device.ftp.download('/Temp/part.dnp');
    assert.equal(img.length, 131072);
    const root = 256; // 1/1
    assert.deepEqual([...img.subarray(root, root + 3)], [1, 34, 0x48]);
    assert.equal(Buffer.from(img.subarray(root + 4, root + 10)).toString('latin1'), 'NATIVE');
    assert.equal(img[root + 10], 0xa0);
    assert.deepEqual([...img.subarray(root + 22, root + 27)], [0x43, 0x4d, 0xa0, 0x31, 0x48], 'disk ID, then DOS "1H"');
    assert.deepEqual([...img.subarray(root + 32, root + 34)], [1, 1]);
    const bam = 512; // 1/2
    assert.deepEqual([...img.subarray(bam, bam + 9)], [0, 0, 0x48, 0xb7, 0x43, 0x4d, 0xc0, 0, 2]);
    // Free map: sectors 0..34 in use, 35..511 free.
    assert.deepEqual([...img.subarray(bam + 32, bam + 38)], [0, 0, 0, 0, 0x1f, 0xff]);
    let free = 0;
    for (let i = 0; i < 64; i++) for (let b = 0; b < 8; b++) free += (img[bam + 32 + i]! >> b) & 1;
    assert.equal(free, 512 - 35);
    assert.equal(img[bam + 32 + 64], 0, 'nothing beyond the last sector');
    assert.deepEqual([...img.subarray(34 * 256, 34 * 256 + 2)], [0, 0xff], 'an empty directory block at 1/34');

    const plain = await send(rig, 'PUT', '/v1/files/Temp/one.dnp:create_dnp?tracks=1');
    assert.deepEqual(plain.json, { path: 'Temp/one.dnp', tracks: 1, diskname: 'one', bytes_written: 65536, errors: [] });
  });

  test('tracks is required and must be 1..255', async () => {
    const missing = await send(rig, 'PUT', '/v1/files/Temp/x.dnp:create_dnp');
    assert.deepEqual([missing.status, missing.json], [400, { errors: ['Function create_dnp requires parameter tracks'] }]);
    for (const [arg, tracks] of [
      ['0', 0],
      ['256', 256],
      ['abc', 0],
    ] as const) {
      const r = await send(rig, 'PUT', `/v1/files/Temp/x.dnp:create_dnp?tracks=${arg}`);
      assert.deepEqual([r.status, r.json], [400, { path: 'Temp/x.dnp', tracks, errors: ['Invalid number of tracks (1-255).'] }]);
    }
    assert.equal(
      (await rig.device.ftp.list('/Temp')).some((e) => e.name === 'x.dnp'),
      false,
    );
  });
});
