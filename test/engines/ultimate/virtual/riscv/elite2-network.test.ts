// End to end over real sockets, as the service will drive a virtual Elite II: FTP creation of the
// .UE2 in /Temp, the UTR2 token placed with REST writemem, the final Run Update write (REST
// runners:run_update, named in run-update-trigger.ts), then the lab bench: the UART shows the
// token echoed back, REST and FTP refuse connections while native, and a power cycle brings them
// back on the same ports.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UltimateError } from '../../../../../engines/ultimate/errors.js';
import { UltimateFtp } from '../../../../../engines/ultimate/ftp.js';
import { placeUtr2Token, triggerRunUpdate, uploadUpdateFile } from '../../../../../engines/ultimate/riscv-apps/run-update-trigger.js';
import { packUe2 } from '../../../../../engines/ultimate/riscv-apps/ue2.js';
import { RestClient } from '../../../../../engines/ultimate/rest.js';
import { VirtualUltimate } from '../../../../../engines/ultimate/virtual/index.js';
import type { NativeRunReport } from '../../../../../engines/ultimate/virtual/riscv/native-mode.js';
import { buildExample } from '../../../../../examples/riscv/build.js';

const PASSWORD = 'bench-pw';

async function bench(dev: VirtualUltimate, method: 'GET' | 'POST', path: string): Promise<{ status: number; body: unknown; text: string }> {
  const res = await fetch(`http://127.0.0.1:${dev.ports.bench}${path}`, { method });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text };
}

function clients(dev: VirtualUltimate): { rest: RestClient; ftp: UltimateFtp } {
  return {
    rest: new RestClient({ baseUrl: `http://127.0.0.1:${dev.ports.http}`, password: PASSWORD, timeoutMs: 5000 }),
    ftp: new UltimateFtp({ host: '127.0.0.1', port: dev.ports.ftp, password: PASSWORD, timeoutMs: 5000 }),
  };
}

let c64Touch: Uint8Array;

describe('virtual Elite II over its network interfaces', { timeout: 120_000 }, () => {
  before(async () => {
    c64Touch = (await buildExample('c64-touch')).ue2;
  });

  describe('trigger answered, then native', () => {
    let dev: VirtualUltimate;
    before(async () => {
      dev = await VirtualUltimate.start({ product: 'u64-elite2', password: PASSWORD, vicePort: null, speed: 1 });
    });
    after(async () => {
      await dev.stop();
    });

    it('upload, token, trigger: the UART echoes the token, services refuse connections, a power cycle restores them', async () => {
      const { rest, ftp } = clients(dev);
      const path = await uploadUpdateFile(ftp, 'run-0001', c64Touch);
      assert.equal(path, '/Temp/run-0001.ue2');
      assert.equal(await ftp.size(path), c64Touch.length);
      await ftp.close();
      await placeUtr2Token(rest, 'inv-0001.Zq9');
      const answer = await triggerRunUpdate(rest, path);
      assert.deepEqual(answer, {
        run_update: { file: path, entry: '0x03000000', records: (answer.run_update as { records: number }).records },
        errors: [],
      });

      const waited = await bench(dev, 'GET', '/bench/wait-stopped?timeout_ms=20000');
      assert.equal(waited.status, 200);
      const run = (waited.body as { run: NativeRunReport }).run;
      assert.equal(run.status, 'exited');
      assert.equal(run.exitCode, 0);
      const uart = await bench(dev, 'GET', '/bench/uart');
      assert.equal(uart.text, 'UTR2 inv-0001.Zq9 OK\n');

      // The firmware is gone: REST and FTP connections are refused.
      await assert.rejects(rest.version(), (e: unknown) => e instanceof UltimateError && /ECONNREFUSED|refused/i.test(e.message));
      const ftp2 = clients(dev).ftp;
      await assert.rejects(ftp2.list('/'), (e: unknown) => e instanceof UltimateError && /ECONNREFUSED|refused/i.test(e.message));
      await ftp2.close();
      const state = await bench(dev, 'GET', '/bench/state');
      assert.equal((state.body as { state: { mode: string } }).state.mode, 'native');

      const cycled = await bench(dev, 'POST', '/bench/power-cycle');
      assert.deepEqual(cycled.body, { state: { mode: 'firmware' } });
      assert.equal(await rest.version(), '0.1');
      const ftp3 = clients(dev).ftp;
      assert.ok((await ftp3.list('/')).some((e) => e.name === 'Temp'));
      await ftp3.close();
      // The bench keeps the serial log of the last run after the power cycle.
      assert.equal((await bench(dev, 'GET', '/bench/uart')).text, 'UTR2 inv-0001.Zq9 OK\n');
    });

    it('the trigger refuses a missing file, a wrong extension and a malformed update file; the device stays on its firmware', async () => {
      const { rest, ftp } = clients(dev);
      await assert.rejects(triggerRunUpdate(rest, '/Temp/none.ue2'), (e: unknown) => e instanceof UltimateError && e.status === 404);
      await ftp.upload('/Temp/prog.prg', c64Touch);
      await assert.rejects(
        triggerRunUpdate(rest, '/Temp/prog.prg'),
        (e: unknown) => e instanceof UltimateError && e.status === 415 && /expected the \.UE2 extension/.test(e.message),
      );
      const truncated = packUe2([{ address: 0x03000000, bytes: new Uint8Array(16) }], 0x03000000).subarray(0, 20);
      await uploadUpdateFile(ftp, 'broken', truncated);
      await assert.rejects(
        triggerRunUpdate(rest, '/Temp/broken.ue2'),
        (e: unknown) =>
          e instanceof UltimateError && e.status === 415 && /payload of 16 bytes runs past the end of the file/.test(e.message),
      );
      await ftp.close();
      assert.equal(await rest.version(), '0.1');
      const state = (await bench(dev, 'GET', '/bench/state')).body as { state: unknown };
      assert.deepEqual(state.state, { mode: 'firmware' });
      assert.equal((await bench(dev, 'GET', '/bench/wait-stopped?timeout_ms=100')).status, 409);
      const badWait = await bench(dev, 'GET', '/bench/wait-stopped?timeout_ms=abc');
      assert.equal(badWait.status, 400);
      assert.match((badWait.body as { error: string }).error, /timeout_ms "abc": expected an integer 1\.\.60000/);
      const unknown = await bench(dev, 'GET', '/bench/nope');
      assert.equal(unknown.status, 404);
      assert.match((unknown.body as { error: string }).error, /unknown bench route GET \/bench\/nope/);
    });
  });

  describe('trigger never answered (as hardware may)', () => {
    let dev: VirtualUltimate;
    before(async () => {
      dev = await VirtualUltimate.start({ product: 'u64-elite2', password: PASSWORD, vicePort: null, native: { runUpdateAnswer: 'none' } });
    });
    after(async () => {
      await dev.stop();
    });

    it('the trigger request fails on the network, yet the program ran: acceptance is uncertain to the caller', async () => {
      const { rest, ftp } = clients(dev);
      const path = await uploadUpdateFile(ftp, 'run-0002', c64Touch);
      await ftp.close();
      await placeUtr2Token(rest, 'inv-0002');
      await assert.rejects(triggerRunUpdate(rest, path), (e: unknown) => e instanceof UltimateError && e.kind !== 'device');
      const waited = await bench(dev, 'GET', '/bench/wait-stopped?timeout_ms=20000');
      assert.equal((waited.body as { run: NativeRunReport }).run.uart, 'UTR2 inv-0002 OK\n');
      await bench(dev, 'POST', '/bench/power-cycle');
      assert.equal(await rest.version(), '0.1');
    });
  });
});
