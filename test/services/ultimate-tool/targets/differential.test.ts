// The same programs (the foreign fixtures of issue 26, test/fixtures/c64-foreign) on the REAL VICE
// x64sc and on `ultimate-tool virtual-vice`, both driven by the vice target's connection: the
// observations must agree — outcome, verdict, every $D7FF write's value, the cycle distances between
// writes (display off, as the timed fixture does), the crash site and registers, memory and screen.
// Absolute cycles from the entry are not compared: they include the frame position at which each
// emulator's autostart happens to start the program (docs/ultimate/VICE.md).
// Needs x64sc on PATH (.ci/run puts ../shared/tools/vice there); skipped, with that reason, without.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { prgLoadRange } from '../../../../services/ultimate-tool/targets/program-start.js';
import type { DebugWait, RunProtocol } from '../../../../services/ultimate-tool/targets/connection.js';
import { ViceConnection } from '../../../../services/ultimate-tool/targets/vice-target.js';
import { repoRoot } from '../../../helpers/bin.js';
import { virtualViceCommand } from '../harness.js';

const x64sc = (process.env.PATH ?? '').split(delimiter).find((d) => d && existsSync(join(d, 'x64sc')));
const skip = x64sc ? false : 'x64sc (the real VICE) is not on PATH; .ci/run puts ../shared/tools/vice there';

const protocol = (prg: Uint8Array): RunProtocol => ({
  classify: (v) => (v === 0x00 ? 'pass' : v === 0xff ? 'fail' : null),
  crash: { jam: true, brk: 'unhandled', outsideCode: prgLoadRange(prg) ? [prgLoadRange(prg)!] : [] },
  // The $00/$FF verdict of these programs asks for exact observation, as run-protocol.ts decides.
  exactObservation: true,
});

/** What both emulators must agree on. */
function comparable(w: DebugWait, memory: Uint8Array, screen: Uint8Array | null, withDistances: boolean) {
  const distances = w.cycleSource === null || !withDistances ? null : w.writes.slice(1).map((x, i) => x.cycle - w.writes[i]!.cycle);
  return {
    outcome: w.outcome,
    verdict: w.outcome === 'ended' ? [w.verdict, w.value] : null,
    values: w.writes.map((x) => x.value),
    distances,
    crash:
      w.outcome === 'crashed'
        ? // SP too: the stand-in BASIC's SYS starts the program with SP $F6, as the real BASIC does.
          { kind: w.crash.kind, pc: w.crash.pc, a: w.crash.a, x: w.crash.x, y: w.crash.y, sp: w.crash.sp, p: w.crash.p & 0xcf }
        : null,
    memory: Buffer.from(memory).toString('hex'),
    screen: screen ? Buffer.from(screen).toString('hex') : null,
  };
}

describe('differential: real x64sc and virtual-vice observe the same', { skip, timeout: 600_000 }, () => {
  let dir = '';
  let real: ViceConnection | undefined;
  let virt: ViceConnection | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vice-diff-'));
    cpSync(join(repoRoot, 'test', 'fixtures', 'c64-foreign'), dir, { recursive: true });
    execFileSync('make', ['-s'], { cwd: dir, stdio: 'ignore' });
    real = await ViceConnection.launch({ command: ['x64sc', '-default', '+sound', '-warp'], emulation: true, startTimeoutMs: 60_000 });
    virt = await ViceConnection.launch({ command: [...virtualViceCommand(), '-warp'], emulation: true, startTimeoutMs: 60_000 });
  });
  after(async () => {
    await real?.close();
    await virt?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // Only what the program writes is compared: power-on RAM and the screen before a program clears
  // it differ by design (VICE's RAM init pattern and ROM banner; the stand-in KERNAL's).
  interface Look {
    budgetMs?: number;
    memoryBytes?: number;
    fill?: number;
    screen?: boolean;
    /** Compare the cycle distances between writes: only for a program that turned the display off
     *  and synchronised first (with the display on they depend on where the frame was at the start). */
    distances?: boolean;
  }
  async function observe(conn: ViceConnection, name: string, look: Look) {
    const prg = new Uint8Array(readFileSync(join(dir, 'build', `${name}.prg`)));
    await conn.start(prg, look.fill === undefined ? undefined : { fill: [{ address: 0xc000, length: 512, byte: look.fill }] });
    const w = await conn.waitDebugResult(performance.now() + (look.budgetMs ?? 20_000), protocol(prg));
    const memory = look.memoryBytes ? await conn.readMemory(0xc000, look.memoryBytes) : new Uint8Array();
    return comparable(w, memory, look.screen ? await conn.readMemory(0x0400, 1000) : null, look.distances === true);
  }

  async function both(name: string, look: Look = {}) {
    const r = await observe(real!, name, look);
    const v = await observe(virt!, name, look);
    assert.deepEqual(v, r, `${name}: virtual-vice differs from x64sc`);
    return r;
  }

  it('checksum-pass ends with $00 (pass), checksum-fail with $FF (fail)', async () => {
    const pass = await both('checksum-pass', { memoryBytes: 1 });
    assert.deepEqual(pass.verdict, ['pass', 0]);
    assert.equal(pass.memory, '5c');
    const fail = await both('checksum-fail', { memoryBytes: 1 });
    assert.deepEqual(fail.verdict, ['fail', 0xff]);
  });

  it('timed-loop: markers $01, $02, then $00, 1007 and 6 cycles apart', async () => {
    const r = await both('timed-loop', { distances: true });
    assert.deepEqual(r.values, [1, 2, 0]);
    assert.deepEqual(r.distances, [1007, 6]);
  });

  it('pattern: markers $01, $02, then $00 with the inverted pattern at $C000', async () => {
    const r = await both('pattern', { memoryBytes: 32, fill: 0xea });
    assert.deepEqual(r.values, [1, 2, 0]);
    assert.match(r.memory, /(ea){16}$/, 'the fill made before the start is there after the pattern');
  });

  it('greeting: no $D7FF writes, the same screen after it cleared it and printed', async () => {
    const r = await both('greeting', { budgetMs: 4000, screen: true });
    assert.equal(r.outcome, 'timeout');
    assert.deepEqual(r.values, []);
  });

  it('brk-crash: a BRK three calls deep is a crash at the same site with the same registers', async () => {
    const r = await both('brk-crash');
    assert.equal(r.outcome, 'crashed');
    assert.equal(r.crash?.kind, 'brk');
  });
});
