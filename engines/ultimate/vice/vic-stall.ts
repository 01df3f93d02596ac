// How many clocks a known run of CPU cycles took on x64sc, counted back from a monitor stop whose
// raster position VICE reports. The VIC-II takes the bus on a bad line: BA falls at raster cycle
// 11 (VICE's 0-based count; cycle 12 in the usual 1-based tables) and stays low through cycle 53,
// the CPU stops at its first read while BA is low and may finish at most three writes before AEC
// falls at cycle 14. So the same instructions take 43 clocks more when a bad line falls among
// them. VICE's stop gives the clock of the stop, not of the instruction that caused it: the clock
// of that instruction is the stop's minus this count.
//
// Calibrated on x64sc 3.10 (PAL): 200 autostarts of NOP NOP BRK stopped at the KERNAL's BRK
// dispatch ($FF55) at random raster positions, 10 of them stretched by a bad line — BA low from
// cycle 11 is the only start that explains all 200 (docs/ultimate/VICE.md).

/** One CPU cycle of a known instruction sequence: a bus read or a bus write. */
export type BusCycle = 'R' | 'W';

export interface StopRaster {
  /** The raster line at the stop (0..311 on PAL). */
  line: number;
  /** The raster cycle at the stop (0..62, VICE's count). */
  cycle: number;
}

export interface VicBusState {
  /** $D011's low three bits: a line in $30..$F7 whose low bits equal it is a bad line. */
  yscroll: number;
  /** Whether any sprite is enabled ($D015): sprite DMA is not modelled, so then nothing is exact. */
  spritesEnabled: boolean;
}

const CYCLES_PER_LINE = 63;
const LINES = 312;
const FRAME = CYCLES_PER_LINE * LINES;
const FIRST_BAD_LINE = 0x30;
const LAST_BAD_LINE = 0xf7;
/** BA low on a bad line: raster cycles 11..53 (43 clocks); AEC low from 14. */
const BA_LOW_FIRST = 11;
const BA_LOW_LAST = 53;
const AEC_LOW_FIRST = 14;
const MAX_STALL = BA_LOW_LAST - BA_LOW_FIRST + 1;

/** Whether the CPU can do a `kind` cycle at frame position `pos` (line * 63 + cycle). */
function cpuMayRun(pos: number, kind: BusCycle, yscroll: number): boolean {
  const p = ((pos % FRAME) + FRAME) % FRAME;
  const line = Math.floor(p / CYCLES_PER_LINE);
  const cycle = p % CYCLES_PER_LINE;
  const badLine = line >= FIRST_BAD_LINE && line <= LAST_BAD_LINE && (line & 7) === yscroll;
  if (!badLine || cycle < BA_LOW_FIRST || cycle > BA_LOW_LAST) return true;
  return kind === 'W' && cycle < AEC_LOW_FIRST;
}

/** Where the stop falls when `pattern`'s first cycle runs at `start`: the position after its last. */
function runFrom(start: number, pattern: readonly BusCycle[], yscroll: number): number | null {
  if (!cpuMayRun(start, pattern[0]!, yscroll)) return null;
  let pos = start + 1;
  for (let i = 1; i < pattern.length; i++) {
    const kind = pattern[i]!;
    while (!cpuMayRun(pos, kind, yscroll)) pos++;
    pos++;
  }
  return pos;
}

/**
 * Clocks from the first cycle of `pattern` (the CPU cycles that ran last before the stop, oldest
 * first) to the stop: `pattern.length` when no bad line fell among them, 43 more when one did.
 * Null when it cannot be known: a sprite is enabled, or more than one start explains the stop
 * (a stall in the middle hides how many cycles ran before it).
 */
export function clocksBeforeStop(stop: StopRaster, pattern: readonly BusCycle[], vic: VicBusState): number | null {
  if (pattern.length === 0) return 0;
  if (vic.spritesEnabled) return null;
  const end = stop.line * CYCLES_PER_LINE + stop.cycle;
  let found: number | null = null;
  for (let stall = 0; stall <= MAX_STALL; stall++) {
    const clocks = pattern.length + stall;
    if (runFrom(end - clocks, pattern, vic.yscroll) !== end) continue;
    if (found !== null) return null;
    found = clocks;
  }
  return found;
}

/** A pattern from its letters: `cycles('RRWWWRR')` is BRK's or an interrupt's seven cycles. */
export function cycles(letters: string): BusCycle[] {
  return [...letters].map((c) => {
    if (c !== 'R' && c !== 'W') throw new RangeError(`a bus cycle is R or W, got ${JSON.stringify(c)}`);
    return c;
  });
}
