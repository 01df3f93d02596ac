// A flood of output is capped on disk: each call keeps at most the capture cap (engine option
// captureCap, default 16 MiB) of stdout and of stderr — in its capture file while it runs, and
// in the spill folder after — and its answer says how much was discarded. Before the cap, a
// print loop under `timeout: 2` wrote hundreds of MB to GBs into the spill folder.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { OcamlToplevel } from '../../../engines/ocaml/index.js';
import { DEFAULT_CAPTURE_CAP } from '../../../engines/ocaml/capture-limit.js';
import { connectTopup, payload, startedMarker, tempDir, testEngine, testEnv, topupVariants } from './helpers.js';

const MiB = 1024 * 1024;
const LINE = `${'x'.repeat(63)}\\n`; // 64 bytes once OCaml reads the escape: a MiB is 16384 lines

/** Every spill file and its size. */
function spilled(dir: string): number[] {
  try {
    return readdirSync(dir).map((n) => statSync(join(dir, n)).size);
  } catch {
    return [];
  }
}

for (const variant of topupVariants()) {
  describe(`output flood [${variant.bin}]`, () => {
    const cap = 1 * MiB;
    let engine: OcamlToplevel;
    let dir: string;
    let close: () => Promise<void>;
    before(() => ({ engine, dir, close } = testEngine({ driver: variant.driver, captureCap: cap })));
    after(() => close());
    const spillDir = () => join(dir, 'spill');

    test('a print loop under timeout 2 keeps at most the cap, with a note saying how much was discarded', async () => {
      const before = spilled(spillDir()).length;
      const r = await engine.eval(`while true do print_string "${LINE}" done`, { timeout: 2 });
      assert.equal(r.error_kind, 'timeout');
      assert.ok((r.stdout_discarded_bytes ?? 0) > 0, 'the loop wrote more than the cap');
      assert.match(
        r.stdout,
        /…\[\+\d+ bytes; the first 1048576 bytes of the output at .*, the last \d+ discarded: at most 1048576 bytes of each stream are kept per call\]$/,
      );
      assert.deepEqual(spilled(spillDir()).slice(before), [cap]);
      assert.equal(statSync(r.stdout_overflow!).size, cap);
    });

    test('the count of discarded bytes is exact, and the kept part is the start of the output', async () => {
      const marker = startedMarker(dir, `exact-${variant.bin}`);
      // 3 MiB, then a spin that only cancel() ends (no deadline decides what was written).
      const running = engine.eval(
        `for i = 1 to ${(3 * MiB) / 64} do print_string (if i = 1 then "${'s'.repeat(63)}\\n" else "${LINE}") done; flush stdout; ${marker.ocaml}; while true do () done`,
        { timeout: 600 },
      );
      await marker.wait();
      engine.cancel();
      const r = await running;
      assert.equal(r.error, 'evaluation timed out');
      assert.equal(r.stdout_discarded_bytes, 2 * MiB);
      assert.ok(r.stdout.startsWith(`${'s'.repeat(63)}\n${'x'.repeat(63)}\n`));
      assert.equal(statSync(r.stdout_overflow!).size, cap);
      assert.equal((await engine.eval('"still here"')).value_repr, '"still here"');
    });

    test('stderr is capped on its own, and eval_batch elements are capped too', async () => {
      const r = await engine.evalBatch([
        `for _ = 1 to ${(2 * MiB) / 64} do prerr_string "${LINE}" done`,
        `for _ = 1 to ${(3 * MiB) / 64} do print_string "${LINE}" done`,
        '"after"',
      ]);
      assert.equal(r.stopped_on_error, false);
      assert.equal(r.results[0]!.stderr_discarded_bytes, 1 * MiB);
      assert.equal(r.results[0]!.stdout_discarded_bytes, undefined);
      assert.equal(statSync(r.results[0]!.stderr_overflow!).size, cap);
      assert.equal(r.results[1]!.stdout_discarded_bytes, 2 * MiB);
      assert.equal(statSync(r.results[1]!.stdout_overflow!).size, cap);
      assert.equal(r.results[2]!.value_repr, '"after"');
    });

    test('between calls too: a forked child that floods the capture is cut back (the file goes sparse)', async () => {
      const r = await engine.eval(`let flooder = match Unix.fork () with 0 -> (while true do print_string "${LINE}" done; 0) | pid -> pid`);
      assert.equal(r.error, null);
      // This engine's capture files: <tmp>/topup-<our pid>-XXXXXX/agent-<n>/stdout.
      const roots = readdirSync(tmpdir()).filter((n) => n.startsWith(`topup-${process.pid}-`));
      const captures = roots.flatMap((root) =>
        readdirSync(join(tmpdir(), root))
          .filter((n) => n.startsWith('agent-'))
          .map((a) => join(tmpdir(), root, a, 'stdout')),
      );
      // The child writes past many caps; the file's size counts it all, its disk stays small.
      const deadline = Date.now() + 60_000;
      for (;;) {
        const cut = captures.some((path) => {
          const st = statSync(path);
          return st.size > 8 * cap && st.blocks * 512 < st.size / 2;
        });
        if (cut) break;
        assert.ok(Date.now() < deadline, 'the flooded capture was never cut back');
        await new Promise((res) => setTimeout(res, 50));
      }
      await engine.eval(`Unix.kill flooder Sys.sigkill; ignore (Unix.waitpid [] flooder)`);
    });

    test('output under the cap is spilled whole with the contract note', async () => {
      const r = await engine.eval(`for _ = 1 to 5000 do print_string "${LINE}" done`);
      assert.equal(r.stdout_discarded_bytes, undefined);
      assert.match(r.stdout, /…\[\+\d+ bytes; full at .*\]$/);
      assert.equal(statSync(r.stdout_overflow!).size, 320_000);
    });
  });

  describe(`output flood through the ${variant.bin} server (default cap)`, () => {
    let home: { path: string; remove: () => void };
    let client: Awaited<ReturnType<typeof connectTopup>>;
    before(async () => {
      home = tempDir('topup-flood-');
      client = await connectTopup(testEnv(home.path), [], variant.bin);
    });
    after(async () => {
      await client.close();
      home.remove();
    });

    test(`20 MiB printed: ${DEFAULT_CAPTURE_CAP / MiB} MiB kept in the spill folder, the rest counted as discarded`, async () => {
      const r = payload(
        await client.client.callTool({
          name: 'eval',
          arguments: { source: `for _ = 1 to ${(20 * MiB) / 64} do print_string "${LINE}" done` },
        }),
      );
      assert.equal(r.error, null);
      assert.equal(r.stdout_discarded_bytes, 20 * MiB - DEFAULT_CAPTURE_CAP);
      assert.deepEqual(spilled(join(home.path, '.topup', 'spill')), [DEFAULT_CAPTURE_CAP]);
      assert.match(r.stdout, /the last 4194304 discarded: at most 16777216 bytes of each stream are kept per call\]$/);
    });
  });
}
