// The VIC-II as the CPU sees it through $D000-$D3FF: the register file, the raster counter and
// its compare interrupt, the sprite unit with its collision latches (vic-sprites.ts) and, through vic-timing.ts, the
// clocks it takes from the CPU. The machine (machine.ts) owns the bus; this file owns what the
// chip does. The chip draws no picture: what a program can observe (registers, interrupts, BA,
// what it fetches in each half-cycle) is worked out when it is observed.

import { VicBusTiming } from './vic-timing.js';
import { VicSprites } from './vic-sprites.js';
import { VicPhi1 } from './vic-phi1.js';

/** What the VIC-II needs from the rest of the machine. */
export interface VicHost {
  /** The 64 KiB of RAM (the VIC reads it directly, never through the CPU's banking). */
  readonly ram: Uint8Array;
  /** The character generator ROM the VIC sees at $1000-$1FFF of banks 0 and 2. */
  readonly chargen: Uint8Array;
  readonly colorRam: Uint8Array;
  /** The VIC bank base ($0000, $4000, $8000, $C000) as CIA 2's port A selects it. */
  vicBank(): number;
  /** The VIC's interrupt output changed at clock `at`. */
  setIrq(active: boolean, at: number): void;
}

/**
 * The VIC-II's revision: 'old' = the NMOS 6569 (PAL) / 6567 (NTSC) of the first C64s, 'new' =
 * the HMOS 8565 / 8562 of the C64C (VICE's testbench calls them vicii-old / vicii-new). They
 * differ, as far as a program can tell here, in the light pen's X (one pixel earlier on the new
 * chips, which lack the old ones' colour latency) and in when a multicolour switch reaches a
 * sprite being shifted out.
 */
export type VicRevision = 'old' | 'new';

/** Clocks into line 0 at which the light pen's once-a-frame latch is released. */
const LIGHT_PEN_FRAME_DELAY = 2;

export class VicII {
  /** The register file as written ($D000-$D03F), read by the bus timing and the collision unit. */
  readonly regs = new Uint8Array(0x40);
  /** When the VIC takes the bus (bad lines, sprite DMA). */
  readonly timing: VicBusTiming;
  /** The sprite sequencer and pixels: sprite-sprite and sprite-background collisions ($D01E/$D01F). */
  readonly sprites: VicSprites;
  /** What the VIC reads in the first half of each clock (the floating bus). */
  readonly phi1: VicPhi1;
  /** The earliest clock at which the raster compare or the collision watch needs attention. */
  nextEvent = 0;
  private rasterCompare = 0;
  /** The clock at which the raster next reaches the compare line. */
  private nextRasterMatch = 0;
  /** While a collision interrupt is enabled: the next clock at which to work the sprites out. */
  private collisionWatchAt = Number.POSITIVE_INFINITY;
  readonly cyclesPerLine: number;
  readonly linesPerFrame: number;
  readonly cyclesPerFrame: number;
  /** The light pen input (CIA 1's PB4, control port 1's fire) is held low. */
  private lightPenLow = false;
  /** The frame (clock / clocks per frame) in which the light pen last latched: once a frame. */
  private lightPenFrame = -1;
  /** While the light pen is held low: the next frame start, where it latches again. */
  private lightPenRetriggerAt = Number.POSITIVE_INFINITY;

  constructor(
    private readonly host: VicHost,
    cyclesPerLine: number,
    linesPerFrame: number,
    readonly revision: VicRevision = 'old',
  ) {
    this.cyclesPerLine = cyclesPerLine;
    this.linesPerFrame = linesPerFrame;
    this.cyclesPerFrame = cyclesPerLine * linesPerFrame;
    // One model of sprite DMA: the bus timing steals clocks for the fetches the sequencer makes.
    this.timing = new VicBusTiming({ vic: this.regs }, cyclesPerLine, linesPerFrame, (ls, now) => this.sprites.dmaForFetches(ls, now));
    this.sprites = new VicSprites(
      {
        vic: this.regs,
        vicFetch: (a) => this.fetch(a),
        colorOf: (cell) => host.colorRam[cell & 0x3ff]!,
        badLinesEnabled: (c) => this.timing.badLinesEnabled(c),
      },
      cyclesPerLine,
      linesPerFrame,
      revision === 'new',
    );
    this.phi1 = new VicPhi1(
      { regs: this.regs, fetch: (a) => this.fetch(a), badLinesEnabled: (c) => this.timing.badLinesEnabled(c) },
      cyclesPerLine,
      linesPerFrame,
    );
  }

  /** Power-on state at clock `now`. */
  reset(now: number): void {
    this.regs.fill(0);
    this.timing.reset(now);
    this.sprites.reset(now);
    this.collisionWatchAt = Number.POSITIVE_INFINITY;
    this.lightPenLow = false;
    this.lightPenFrame = -1;
    this.lightPenRetriggerAt = Number.POSITIVE_INFINITY;
    this.rasterCompare = 0;
    this.scheduleRasterMatch(now);
  }

  /** A byte as the VIC-II sees memory: its 16 KiB bank, with the character ROM in banks 0 and 2. */
  fetch(addr: number): number {
    const bank = this.host.vicBank();
    if ((bank & 0x4000) === 0 && (addr & 0x3000) === 0x1000) return this.host.chargen[addr & 0x0fff]!;
    return this.host.ram[bank | (addr & 0x3fff)]!;
  }

  /** The raster line the beam is on at clock `now`. */
  rasterLine(now: number): number {
    return Math.floor((now % this.cyclesPerFrame) / this.cyclesPerLine);
  }

  /**
   * The raster counter as $D011/$D012 show it in clock `c`: the line, except in the first clock
   * of line 0, where the counter still holds the last line (it wraps one clock late).
   */
  private rasterCounter(c: number): number {
    const inFrame = c % this.cyclesPerFrame;
    return inFrame === 0 ? this.linesPerFrame - 1 : Math.floor(inFrame / this.cyclesPerLine);
  }

  // --- registers ---------------------------------------------------------------------------------

  /**
   * A CPU read of register `reg` (0..$3F) at clock `now` (the CPU's count after this access);
   * without side effects (a debugger's peek) the collision latches are not cleared.
   */
  read(reg: number, now: number, sideEffects = true): number {
    const vic = this.regs;
    switch (reg) {
      // The read happens in clock now - 1: the raster counter as it is in that clock.
      case 0x11:
        return (vic[0x11]! & 0x7f) | ((this.rasterCounter(now - 1) & 0x100) >> 1);
      case 0x12:
        return this.rasterCounter(now - 1) & 0xff;
      case 0x19:
        this.rasterMatchesUpTo(now - 1);
        this.sprites.catchUp(now - 1);
        this.takeCollisionIrq();
        return vic[0x19]! | 0x70 | ((vic[0x19]! & vic[0x1a]! & 0x0f) !== 0 ? 0x80 : 0);
      case 0x1a:
        return vic[0x1a]! | 0xf0;
      case 0x16:
        return vic[0x16]! | 0xc0; // unused bits read as 1
      case 0x18:
        return vic[0x18]! | 0x01;
      case 0x1e:
      case 0x1f: {
        const v = sideEffects ? this.sprites.read(reg, now - 1) : this.sprites.peek(reg, now - 1);
        this.takeCollisionIrq();
        return v;
      }
      default:
        return reg >= 0x2f ? 0xff : reg >= 0x20 ? vic[reg]! | 0xf0 : vic[reg]!;
    }
  }

  /**
   * A CPU write of register `reg` at clock `now` (the CPU's count after this access). Returns
   * true when the write may change when the VIC takes the bus (the machine then asks `timing`
   * again).
   */
  write(reg: number, value: number, now: number): boolean {
    const vic = this.regs;
    // The clocks that have passed were drawn with the registers as they were: work them out first.
    if (reg < 0x20) {
      this.sprites.beforeWrite(reg, value, now - 1);
      this.takeCollisionIrq();
    }
    switch (reg) {
      case 0x11:
        vic[0x11] = value;
        this.setRasterCompare((this.rasterCompare & 0xff) | ((value & 0x80) << 1), now);
        this.timing.registersChanged(now - 1);
        return true;
      case 0x17:
      case 0x01:
      case 0x03:
      case 0x05:
      case 0x07:
      case 0x09:
      case 0x0b:
      case 0x0d:
      case 0x0f:
        vic[reg] = value;
        this.timing.registersChanged(now - 1);
        return true;
      case 0x12:
        this.setRasterCompare((this.rasterCompare & 0x100) | value, now);
        return false;
      case 0x19: // writing 1s acknowledges — also a match in this very clock, which is lost
        this.rasterMatchesUpTo(now - 1);
        vic[0x19]! &= ~value & 0x0f;
        // The IRQ output goes high one clock after the write: an INC/ASL $D019 whose dummy write
        // acknowledges still has the line low when the CPU polls in that clock (irq-ack-vicii).
        this.updateIrq(now);
        return false;
      case 0x1a:
        vic[0x1a] = value & 0x0f;
        this.updateIrq(now - 1);
        this.watchCollisions(now);
        return false;
      case 0x15:
        vic[0x15] = value;
        this.timing.registersChanged(now - 1);
        this.watchCollisions(now);
        return true;
      case 0x13:
      case 0x14:
      case 0x1e:
      case 0x1f:
        return false; // read-only latches
      default:
        vic[reg] = value;
        return false;
    }
  }

  /**
   * RAM at CPU address `addr` is written (by the CPU or REU DMA) in clock `t`, before the byte
   * changes. When the byte is one the line's g-accesses may read (in the VIC's bank, in the video
   * matrix, the character set or bitmap, or the idle byte) and sprites may be shown, the sprite
   * unit works out the clocks before it, and the line's g-accesses due by then, with memory as it
   * was: the collisions then see each graphics byte as its own g-access fetched it. Other writes
   * (no sprite on, the same byte written over itself, the stack, code) cost a few comparisons.
   */
  beforeRamWrite(addr: number, value: number, t: number): void {
    const sprites = this.sprites;
    if ((this.regs[0x15] === 0 && sprites.idle) || this.host.ram[addr] === value) return;
    if (!sprites.graphicsMayRead(addr & 0x3fff) || (addr & 0xc000) !== this.host.vicBank()) return;
    sprites.beforeMemoryWrite(t);
    this.takeCollisionIrq();
  }

  // --- events: the raster compare and the collision watch ----------------------------------------

  /** Raster compare and collision lines due by clock `now` (called between instructions). */
  handleEvents(now: number): void {
    if (now >= this.nextRasterMatch) this.rasterMatched();
    if (now >= this.lightPenRetriggerAt) this.lightPenRetrigger();
    if (now >= this.collisionWatchAt) {
      this.sprites.catchUp(now);
      this.takeCollisionIrq();
      this.collisionWatchAt = this.sprites.nextWatch(now);
    }
    this.updateNextEvent();
  }

  private updateNextEvent(): void {
    this.nextEvent = Math.min(this.nextRasterMatch, this.collisionWatchAt, this.lightPenRetriggerAt);
  }

  /** The VIC's IRQ output follows its latch and enable bits; `at` is the clock of the change. */
  private updateIrq(at: number): void {
    this.host.setIrq((this.regs[0x19]! & this.regs[0x1a]! & 0x0f) !== 0, at);
  }

  private setRasterCompare(line: number, now: number): void {
    this.rasterCompare = line;
    this.scheduleRasterMatch(now);
  }

  private scheduleRasterMatch(now: number): void {
    if (this.rasterCompare >= this.linesPerFrame) {
      this.nextRasterMatch = Number.POSITIVE_INFINITY;
    } else {
      const frameStart = now - (now % this.cyclesPerFrame);
      // Line 0 matches one clock late, when the counter has wrapped (rasterCounter).
      let at = frameStart + (this.rasterCompare === 0 ? 1 : this.rasterCompare * this.cyclesPerLine);
      if (at <= now) at += this.cyclesPerFrame;
      this.nextRasterMatch = at;
    }
    this.updateNextEvent();
  }

  /** Raster matches due by clock `c` take effect now (events are otherwise taken between instructions). */
  private rasterMatchesUpTo(c: number): void {
    if (this.nextRasterMatch <= c) {
      this.rasterMatched();
      this.updateNextEvent();
    }
  }

  private rasterMatched(): void {
    this.regs[0x19]! |= 0x01;
    this.updateIrq(this.nextRasterMatch);
    this.nextRasterMatch += this.cyclesPerFrame;
  }

  /** New collisions raise their interrupt flags in $D019 at the clock they happened. */
  private takeCollisionIrq(): void {
    const irq = this.sprites.pendingIrq;
    if (irq === 0) return;
    this.sprites.pendingIrq = 0;
    this.regs[0x19]! |= irq;
    this.updateIrq(this.sprites.pendingIrqAt);
  }

  /**
   * With a collision interrupt enabled and sprites on, the sprites are worked out at every
   * instruction boundary while they are shown (the interrupt then reaches the CPU's poll as on the
   * chip), else once a line after the display check.
   */
  private watchCollisions(now: number): void {
    const watch = (this.regs[0x1a]! & 0x06) !== 0;
    this.collisionWatchAt = watch ? this.sprites.nextWatch(now) : Number.POSITIVE_INFINITY;
    this.updateNextEvent();
  }

  // --- the light pen -------------------------------------------------------------------------------

  /**
   * The light pen line changed at clock `at` (a CIA 1 port B write). A falling edge latches the
   * beam position into $D013 (X / 2) and $D014 (raster line) and sets $D019 bit 3 — once a
   * frame, one clock after the edge, the X as the 6569 reports it (two more than the beam's
   * X / 2: its colour latency; one more on the 8565). Held low, the pen latches again at each
   * frame start.
   */
  lightPenInput(low: boolean, at: number): void {
    if (low === this.lightPenLow) return;
    this.lightPenLow = low;
    // A frame start that passed while the line was low (or at this very clock) latched first.
    while (this.lightPenRetriggerAt <= at + 1) this.lightPenRetrigger();
    if (low) {
      this.lightPenLatch(at + 1, false);
      const f = this.lightPenFrameOf(at + 1);
      this.lightPenRetriggerAt = (f + 1) * this.cyclesPerFrame + LIGHT_PEN_FRAME_DELAY;
    } else this.lightPenRetriggerAt = Number.POSITIVE_INFINITY;
    this.updateNextEvent();
  }

  private lightPenRetrigger(): void {
    const at = this.lightPenRetriggerAt;
    this.lightPenLatch(at, true);
    this.lightPenRetriggerAt = at + this.cyclesPerFrame;
  }

  /** The light pen's frame of clock t: its once-a-frame latch is released two clocks into line 0. */
  private lightPenFrameOf(t: number): number {
    return Math.floor((t - LIGHT_PEN_FRAME_DELAY) / this.cyclesPerFrame);
  }

  private lightPenLatch(t: number, frameStart: boolean): void {
    const frame = this.lightPenFrameOf(t);
    if (frame === this.lightPenFrame) return;
    this.lightPenFrame = frame;
    const line = this.rasterLine(t);
    const k = t % this.cyclesPerLine;
    // Not on the last line (nor before the release in line 0), except in the last line's first clock.
    if (!frameStart && ((line === this.linesPerFrame - 1 && k > 0) || (line === 0 && k < LIGHT_PEN_FRAME_DELAY))) return;
    let x = ((beamX(k, this.cyclesPerLine) - 4) >> 1) + (this.revision === 'old' ? 2 : 1);
    // Held low across the frame start: the X of the line's start as the chip latches it there.
    if (frameStart) x = this.cyclesPerLine === 65 ? 0xd5 : 0xd1;
    this.regs[0x13] = x & 0xff;
    this.regs[0x14] = line & 0xff;
    this.regs[0x19]! |= 0x08;
    this.updateIrq(t);
  }

  // --- what the VIC puts on the bus ----------------------------------------------------------------

  /**
   * busAddress's last clock and its place: the clock in its line and the line in its frame. The
   * debug stream asks clock after clock, and `%` of a clock count past 2^31 (a double) is slow.
   */
  #placeClock = Number.NaN;
  #placeK = 0;
  #placeLine = 0;

  #place(c: number): void {
    if (c === this.#placeClock) return;
    if (c === this.#placeClock + 1) {
      if (++this.#placeK === this.cyclesPerLine) {
        this.#placeK = 0;
        if (++this.#placeLine === this.linesPerFrame) this.#placeLine = 0;
      }
    } else {
      this.#placeK = c % this.cyclesPerLine;
      this.#placeLine = Math.floor((c % this.cyclesPerFrame) / this.cyclesPerLine);
    }
    this.#placeClock = c;
  }

  /**
   * Where the VIC reads in clock `c` — approximate: the video matrix cell (c-access) in its stolen
   * halves, the sprite pointers in the sprite slots, otherwise the idle address $3FFF of its bank.
   */
  busAddress(c: number, stolenHalf: boolean): number {
    const bank = this.host.vicBank();
    const matrix = bank | ((this.regs[0x18]! >> 4) << 10);
    this.#place(c);
    const k = this.#placeK;
    if (stolenHalf && k >= 14 && k <= 53) {
      const line = this.#placeLine;
      const row = Math.max(0, Math.min(24, (line - 0x30) >> 3));
      return matrix + row * 40 + (k - 14);
    }
    const s0 = this.cyclesPerLine - 6; // sprite 0's pointer fetch (cycle 58 of 63)
    if (k >= s0 || k <= 9) return matrix + 0x3f8 + (((k + this.cyclesPerLine - s0) % this.cyclesPerLine) >> 1);
    return bank | 0x3fff;
  }
}

/**
 * The beam's X coordinate (sprite coordinates) in phi1 of 0-based clock `k` of a line: 8 pixels a
 * clock, X = 0 in the second half of cycle 13; the NTSC 6567R8 repeats X $184 in its cycles 62-63.
 */
export function beamX(k: number, cyclesPerLine: number): number {
  if (cyclesPerLine === 63) {
    const x = 0x194 + 8 * k;
    return x >= 0x1f8 ? x - 0x1f8 : x;
  }
  const x = (0x19c + 8 * k) & 0x1ff;
  return cyclesPerLine === 65 && k >= 62 ? x - 8 : x;
}
