// The machine clock at speed 'max': unpaced while somebody waits on the machine, at the PAL rate
// when nobody does (an idle emulation in the service's process must not take a core). The timers
// and the wall clock are the test's own (node:test's mock timers, a number for `now`), so what is
// asserted is the clock's decision, not how fast this machine is.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { MachineClock, PAL_CLOCK_HZ } from '../../../../../engines/ultimate/virtual/c64/clock.js';
import type { MachineSeam } from '../../../../../engines/ultimate/virtual/c64/machine-seam.js';

/** A machine that records each run's clocks; `onRun` may stop the clock (unpaced bursts chain). */
function fakeMachine(onRun: (ran: number[]) => void = () => undefined): { machine: MachineSeam; ran: number[] } {
  const ran: number[] = [];
  const machine = {
    run: (clocks: number) => {
      ran.push(clocks);
      onRun(ran);
      return clocks;
    },
  } as unknown as MachineSeam;
  return { ran, machine };
}

describe("the machine clock at speed 'max'", () => {
  let now = 0;
  beforeEach(() => {
    now = 1000;
    mock.timers.enable({ apis: ['setTimeout', 'setImmediate'] });
  });
  afterEach(() => mock.timers.reset());

  it('runs bursts back to back while somebody waits on the machine', () => {
    let clock: MachineClock | undefined;
    const { machine, ran } = fakeMachine((r) => {
      if (r.length === 3) clock?.stop();
    });
    clock = new MachineClock(machine, { speed: 'max', idle: () => false, now: () => now });
    clock.start();
    mock.timers.tick(0);
    assert.deepEqual(ran, [200_000, 200_000, 200_000], 'three bursts with no wall time passing');
  });

  it('runs at the PAL rate while nobody does, and unpaced again once somebody does', () => {
    let idle = true;
    let clock: MachineClock | undefined;
    const { machine, ran } = fakeMachine((r) => {
      if (!idle && r.at(-1) === 200_000) clock?.stop();
    });
    clock = new MachineClock(machine, { speed: 'max', idle: () => idle, now: () => now, sliceMs: 5 });
    clock.start();
    mock.timers.tick(0); // idle: the first tick owes nothing yet, and waits a slice
    assert.equal(clock.executed, 0);
    now += 5;
    mock.timers.tick(5);
    assert.equal(clock.executed, Math.floor(0.005 * PAL_CLOCK_HZ), 'one 5 ms slice at 985,248 Hz');
    idle = false;
    mock.timers.tick(5);
    assert.equal(ran.at(-1), 200_000, `an unpaced burst once somebody waits: ${ran.join(',')}`);
    assert.equal(clock.executed, Math.floor(0.005 * PAL_CLOCK_HZ) + 200_000);
  });
});
