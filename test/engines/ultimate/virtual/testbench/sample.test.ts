// A fixed sample of VICE's testbench (66 of the 743 programs of c64-exitcode-tests.csv, spread
// over every category) run on the virtual C64 twice — with the stand-in ROMs, and with VICE's ROMs
// (shared/tools/vice/C64) where they are present — each on a fresh machine as
// bench/ultimate-testbench does it. Every program decides for itself: it passes by writing $00 to
// the debug register $D7FF within its cycle limit. The programs of the sample that pass today are
// listed per ROM set and must keep passing, each with its full cycle limit; the others run too, for
// at most REPORT_CAP clocks (the CI machine is shared: a failing program would otherwise spend its
// whole limit), and are reported, so a program that starts passing shows up (then add it to
// the list). The whole list is the benchmark's job
// (docs/ultimate/TESTBENCH.md). Skips where ../shared/reference/vice-testbench is absent.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  defaultTestbenchDir,
  defaultViceRomDir,
  readTestbench,
  runTestbenchEntry,
  testbenchPresent,
} from '../../../../../bench/ultimate-testbench/testbench.js';
import type { C64Roms } from '../../../../../engines/ultimate/virtual/c64/machine.js';
import { loadRomDir } from '../../../../../engines/ultimate/virtual/c64/rom-dir.js';

const DIR = defaultTestbenchDir();
const REPORT_CAP = 12_000_000;
const present = testbenchPresent(DIR);
const skip = present ? false : `VICE's testbench is absent at ${DIR} (shared/reference/vice-testbench beside the repository)`;

/** The sample: the first program of each category and then evenly spaced ones, fixed here. */
export const SAMPLE: readonly string[] = [
  'general/banking00/banking00.prg',
  'general/Lorenz-2.15/src/ldxzy.prg',
  'general/Lorenz-2.15/src/phan.prg',
  'general/Lorenz-2.15/src/aslax.prg',
  'general/Lorenz-2.15/src/andax.prg',
  'general/Lorenz-2.15/src/eoriy.prg',
  'general/Lorenz-2.15/src/sbcax.prg',
  'general/Lorenz-2.15/src/brkn.prg',
  'general/Lorenz-2.15/src/asoz.prg',
  'general/Lorenz-2.15/src/lseix.prg',
  'general/Lorenz-2.15/src/insay.prg',
  'general/Lorenz-2.15/src/shxay.prg',
  'general/Lorenz-2.15/src/trap15.prg',
  'general/Lorenz-2.15/src/trap4lxa.prg',
  'general/Lorenz-2.15/src/nmi.prg',
  'general/Lorenz-2.15/src/nminew.prg',
  'CPU/64doc/dadc.prg',
  'CPU/Acid800/cpu_timing.prg',
  'CPU/asap/cpu_shx.prg',
  'CPU/cpujam/cpujamb2.prg',
  'CPU/decimalmode/adc11.prg',
  'CPU/decimalmode/arr10.prg',
  'CPU/decimalmode/isc02.prg',
  'CPU/decimalmode/rra12.prg',
  'CPU/sha/shaabsy5.prg',
  'CPU/shxy/shx-test.prg',
  'CIA/CIA-AcountsB/cia-b-counts-a.prg',
  'CIA/ciavarious/cia6.prg',
  'CIA/dd0drw/dd0drw.prg',
  'CIA/irqdelay/irqdelay-cia1-oneshot.prg',
  'CIA/shiftregister/cia-icr-test-oneshot-old.prg',
  'CIA/shiftregister/cia-sdr-icr/cia1-sdr-icr-4485-3.prg',
  'CIA/shiftregister/cia-sdr-icr/cia2-sdr-icr-39.prg',
  'CIA/shiftregister/cia-sdr-icr/cia2-sdr-icr-generic-3.prg',
  'CIA/tod/1alarm.prg',
  'CIA/tod/hammerfist1.prg',
  'VICII/colorram/test.prg',
  'VICII/phi1timing/phi1timing.prg',
  'VICII/vspbug/vsp_bug.prg',
  'VICII/spritecollisions/sprite-gfx-collision-cycle.prg',
  'VICII/spritecollisions/sprite-sprite-hi-mc.prg',
  'VICII/spritecollisions/sprite-gfx-hi-mc.prg',
  'VICII/spritesteal/spritesteal.prg',
  'VICII/spritex/demusinterruptus.prg',
  'interrupts/branchquirk/branchquirk-new.prg',
  'interrupts/cia-int/cia-int-irq-new.prg',
  'interrupts/irq-ackn-bug/cia1.prg',
  'interrupts/irqdma/nmitest6b.prg',
  'interrupts/irqdma/test2b.prg',
  'interrupts/irqdma/test4.prg',
  'interrupts/irqdma/test6.prg',
  'interrupts/irqnmi/irqnmi-old.prg',
  'C64/raminitpattern/cyberloadtest.prg',
  'C64/raminitpattern/platoontest.prg',
  'C64/autostart/basic/printpoint.prg',
  'C64/autostart/defaults/test.prg',
  'REU/64ktransfer/toc64.prg',
  'REU/floatingbus/floating.prg',
  'REU/floatingbus/floating4d.prg',
  'REU/mirrors/mirrors16m.prg',
  'REU/QuickReuTest-1.1.1/quickreu-test2.prg',
  'REU/QuickReuTest-1.1.1/quickreu-test6-timing.prg',
  'REU/ramlink/reuverify2m.prg',
  'REU/reutiming2/e4.prg',
  'REU/reutiming2/g3.prg',
  'REU/reutiming2/f2-m2.prg',
];

/** Programs of the sample that pass on the virtual C64 today with the stand-in ROMs. */
const PASSING_STAND_IN: ReadonlySet<string> = new Set([
  'general/banking00/banking00.prg',
  'general/Lorenz-2.15/src/ldxzy.prg',
  'general/Lorenz-2.15/src/phan.prg',
  'general/Lorenz-2.15/src/aslax.prg',
  'general/Lorenz-2.15/src/andax.prg',
  'general/Lorenz-2.15/src/eoriy.prg',
  'general/Lorenz-2.15/src/sbcax.prg',
  'general/Lorenz-2.15/src/brkn.prg',
  'general/Lorenz-2.15/src/asoz.prg',
  'general/Lorenz-2.15/src/lseix.prg',
  'general/Lorenz-2.15/src/insay.prg',
  'general/Lorenz-2.15/src/shxay.prg',
  'general/Lorenz-2.15/src/trap15.prg',
  'general/Lorenz-2.15/src/trap4lxa.prg',
  'general/Lorenz-2.15/src/nmi.prg',
  'general/Lorenz-2.15/src/nminew.prg',
  'CPU/Acid800/cpu_timing.prg',
  'CPU/asap/cpu_shx.prg',
  'CPU/cpujam/cpujamb2.prg',
  'CPU/decimalmode/adc11.prg',
  'CPU/decimalmode/arr10.prg',
  'CPU/decimalmode/isc02.prg',
  'CPU/decimalmode/rra12.prg',
  'CPU/sha/shaabsy5.prg',
  'CIA/CIA-AcountsB/cia-b-counts-a.prg',
  'CIA/ciavarious/cia6.prg',
  'CIA/dd0drw/dd0drw.prg',
  'CIA/irqdelay/irqdelay-cia1-oneshot.prg',
  'CIA/shiftregister/cia-icr-test-oneshot-old.prg',
  'CIA/shiftregister/cia-sdr-icr/cia1-sdr-icr-4485-3.prg',
  'CIA/shiftregister/cia-sdr-icr/cia2-sdr-icr-39.prg',
  'CIA/shiftregister/cia-sdr-icr/cia2-sdr-icr-generic-3.prg',
  'CIA/tod/hammerfist1.prg',
  'VICII/colorram/test.prg',
  'VICII/phi1timing/phi1timing.prg',
  'VICII/vspbug/vsp_bug.prg',
  'VICII/spritecollisions/sprite-sprite-hi-mc.prg',
  'VICII/spritecollisions/sprite-gfx-hi-mc.prg',
  'VICII/spritex/demusinterruptus.prg',
  'interrupts/branchquirk/branchquirk-new.prg',
  'interrupts/cia-int/cia-int-irq-new.prg',
  'interrupts/irq-ackn-bug/cia1.prg',
  'interrupts/irqnmi/irqnmi-old.prg',
  'C64/raminitpattern/cyberloadtest.prg',
  'C64/raminitpattern/platoontest.prg',
  'C64/autostart/basic/printpoint.prg',
  'REU/64ktransfer/toc64.prg',
  'REU/floatingbus/floating.prg',
  'REU/floatingbus/floating4d.prg',
  'REU/mirrors/mirrors16m.prg',
  'REU/QuickReuTest-1.1.1/quickreu-test2.prg',
  'REU/QuickReuTest-1.1.1/quickreu-test6-timing.prg',
  'REU/ramlink/reuverify2m.prg',
  'REU/reutiming2/f2-m2.prg',
]);

/**
 * Programs of the sample that fail with VICE's ROMs today (every other one must pass): what each
 * needs is in docs/ultimate/TESTBENCH.md.
 */
const FAILING_WITH_VICE_ROMS: ReadonlySet<string> = new Set([
  'C64/autostart/defaults/test.prg', // loaded by the file name "TEST" through the KERNAL's LOAD: no drive is emulated
  'REU/reutiming2/e4.prg', // the reference of a C64C (new VIC-II); its -m2 twin (breadbox) is the one this machine models
  'REU/reutiming2/g3.prg', // the same
]);

const ROM_DIR = defaultViceRomDir();
const viceRomsPresent = existsSync(join(ROM_DIR, 'kernal-901227-03.bin'));

const ROM_SETS: readonly { name: string; roms: () => C64Roms | undefined; passing: ReadonlySet<string>; skip: string | false }[] = [
  { name: 'stand-in ROMs', roms: () => undefined, passing: PASSING_STAND_IN, skip },
  {
    name: "VICE's ROMs",
    roms: () => loadRomDir(ROM_DIR),
    passing: new Set(SAMPLE.filter((p) => !FAILING_WITH_VICE_ROMS.has(p))),
    skip: skip || (viceRomsPresent ? false : `VICE's ROMs are absent at ${ROM_DIR}`),
  },
];

describe('VICE testbench sample: the list', { skip }, () => {
  const entries = present ? readTestbench(DIR) : [];
  const byPath = new Map(entries.map((e) => [e.path, e]));

  test('the sample covers every category with at least 60 programs, all in the CSV', () => {
    assert.ok(SAMPLE.length >= 60);
    for (const p of SAMPLE) assert.ok(byPath.has(p), `${p} is in c64-exitcode-tests.csv`);
    const categories = new Set(SAMPLE.map((p) => p.slice(0, p.indexOf('/'))));
    assert.deepEqual([...categories].sort(), ['C64', 'CIA', 'CPU', 'REU', 'VICII', 'general', 'interrupts']);
    for (const p of PASSING_STAND_IN) assert.ok(SAMPLE.includes(p), `${p} (PASSING_STAND_IN) is in the sample`);
    for (const p of FAILING_WITH_VICE_ROMS) assert.ok(SAMPLE.includes(p), `${p} (FAILING_WITH_VICE_ROMS) is in the sample`);
  });
});

for (const set of ROM_SETS) {
  describe(`VICE testbench sample (${set.name})`, { skip: set.skip }, () => {
    const entries = set.skip ? [] : readTestbench(DIR);
    const byPath = new Map(entries.map((e) => [e.path, e]));
    const roms = set.skip ? undefined : set.roms();

    for (const path of SAMPLE) {
      const expected = set.passing.has(path);
      test(`${path}${expected ? '' : ' (not passing yet: reported only)'}`, (t) => {
        const entry = byPath.get(path);
        assert.ok(entry, `${path} is in the CSV`);
        const r = runTestbenchEntry(DIR, entry, roms, expected ? undefined : REPORT_CAP);
        const outcome = r.error ?? (r.exitCode === undefined ? 'no $D7FF write' : `$D7FF = $${r.exitCode.toString(16).padStart(2, '0')}`);
        if (expected) assert.ok(r.passed, `${path} passes with ${set.name} (${outcome} after ${r.cycles} cycles)`);
        else
          t.diagnostic(`${r.passed ? 'PASSES NOW (update the list of this ROM set above)' : 'fails'}: ${outcome} after ${r.cycles} cycles`);
      });
    }
  });
}
