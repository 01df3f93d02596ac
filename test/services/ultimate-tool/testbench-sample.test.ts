// A fixed sample of VICE's testbench judged THROUGH THE TOOL on both targets (issue 31): the
// programs become a project (bench/ultimate-testbench/make-project.ts: build null, prebuilt PRGs,
// machine options and cycle budgets from the CSV), the real service runs them — the vice target on
// the real x64sc, the virtual Ultimate with VICE's ROMs (`serve --rom-dir`) — and the official MCP
// SDK client on the real adapter starts one suite job per target. Every program of the sample
// passes on x64sc run directly and on the virtual C64 run directly, so each must be `passed` on
// each target: a failure here is a misjudgement the tool added. The whole list is the benchmark's
// job (bench/ultimate-testbench/suite.ts, docs/ultimate/TESTBENCH.md).
// Needs x64sc on PATH (.ci/run puts ../shared/tools/vice there), the testbench and VICE's ROMs beside
// the repository; skipped, with the reason, without them. Uses the built bins (npm run build).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { testNames, writeTestbenchProject } from '../../../bench/ultimate-testbench/make-project.js';
import { runSuiteOn, testbenchVerdict } from '../../../bench/ultimate-testbench/suite.js';
import { defaultTestbenchDir, defaultViceRomDir, readTestbench, testbenchPresent } from '../../../bench/ultimate-testbench/testbench.js';
import { startUltimateStack, type UltimateStack } from '../../helpers/ultimate-stack.js';

/** The sample, each chosen for what it makes the tool do (all short: ≤ 15 M clocks). */
export const TOOL_SAMPLE: readonly string[] = [
  'CPU/cpuport/test1.prg', // CPU: the processor port
  'CPU/64doc/sbx-c100.prg', // a SYS-expression stub (SYS PEEK(43)+256*PEEK(44)+26), code run at $C100
  'CIA/irqdelay/irqdelay-new.prg', // CIA with machine.cia_model 6526A (cia-new)
  'CIA/ciavarious/cia3.prg', // CIA with machine.cia_model 6526 (cia-old)
  'CIA/dd0drw/dd0drw.prg', // CIA 2 port reads and writes
  'VICII/phi1timing/phi1timing.prg', // VIC-II, machine.video pal
  'interrupts/irq-ackn-bug/cia1.prg', // an IRQ acknowledged late
  'interrupts/irqnoack/ackcia2.prg', // an IRQ never acknowledged: SP wraps (the VICE stack read)
  'general/Lorenz-2.15/src/brkn.prg', // the program's own BRK handler
  'REU/ramlink/reuverify128k.prg', // loads at $0800 (not $0801), machine.reu_kb 128
];

const DIR = defaultTestbenchDir();
const ROM_DIR = defaultViceRomDir();
const x64sc = (process.env.PATH ?? '').split(delimiter).find((d) => d && existsSync(join(d, 'x64sc')));
const skip = !testbenchPresent(DIR)
  ? `VICE's testbench is absent at ${DIR} (shared/reference/vice-testbench beside the repository)`
  : !x64sc
    ? 'x64sc (the real VICE) is not on PATH; .ci/run puts ../shared/tools/vice there'
    : !existsSync(join(ROM_DIR, 'kernal-901227-03.bin'))
      ? `VICE's ROMs are absent at ${ROM_DIR}`
      : false;

describe("VICE's testbench sample through the tool (MCP, start_suite_job), both targets", { skip, timeout: 300_000 }, () => {
  const entries = skip ? [] : readTestbench(DIR).filter((e) => TOOL_SAMPLE.includes(e.path));
  let work: string;
  let stack: UltimateStack | undefined;

  before(async () => {
    assert.equal(entries.length, TOOL_SAMPLE.length, 'every sample program is in c64-exitcode-tests.csv');
    work = mkdtempSync(join(tmpdir(), 'tool-sample-'));
    const project = writeTestbenchProject(join(work, 'project'), DIR, entries);
    // The later --vice-command wins over the stack's virtual-vice: the vice target runs x64sc.
    stack = await startUltimateStack('tool-sample', ['--vice-command', 'x64sc -default +sound', '--rom-dir', ROM_DIR], project);
  });

  after(async () => {
    await stack?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  for (const target of ['vice', 'ultimate'] as const) {
    test(`${target}: every program of the sample is passed`, async () => {
      const runs = await runSuiteOn(stack!.client, target, entries.length);
      const names = testNames(entries);
      const wrong: string[] = [];
      for (const e of entries) {
        const run = runs.get(names.get(e)!);
        assert.ok(run, `${e.path} has a run on ${target}`);
        const v = testbenchVerdict(e, run);
        if (!v.passed) wrong.push(`${e.path}: ${v.status} — ${v.reason}`);
      }
      assert.deepEqual(wrong, [], `misjudged on ${target}`);
      // The machine options reached the run: the record names the CIA the CSV row asks for.
      const cia = runs.get(names.get(entries.find((e) => e.path === 'CIA/irqdelay/irqdelay-new.prg')!)!)!;
      assert.equal(cia.machine?.cia_model, '6526A', JSON.stringify(cia.machine));
    });
  }
});
