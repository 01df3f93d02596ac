// A program run on the virtual C64 the way the virtual Ultimate's run_prg starts it (reset, load,
// RUN), its "6510 & VIC" bus trace fed to the judge's BusTraceObserver as the ultimate target's
// receiver does — in batches of 20 000 clocks until the observer ends the run or `frames` batches.
import { C64Machine } from '../../engines/ultimate/virtual/c64/machine.js';
import type { BusTraceObserver } from '../../services/ultimate-tool/targets/bus-trace-observer.js';

export function feedVirtualC64(
  observer: BusTraceObserver,
  program: Uint8Array,
  opts: { frames?: number; afterLoad?: (machine: C64Machine) => void } = {},
): C64Machine {
  const batch: number[] = [];
  const machine = new C64Machine({ onBusCycle: (e) => batch.push(e) });
  machine.debugStreamMode = '6510 & VIC';
  machine.bootLoad(program, 'run');
  opts.afterLoad?.(machine);
  const frames = opts.frames ?? 400;
  for (let frame = 0; frame < frames && !observer.end; frame++) {
    machine.run(20_000);
    observer.feed(Uint32Array.from(batch));
    batch.length = 0;
  }
  return machine;
}
