// The VIC-II as the CPU sees it through $D000-$D3FF: the register file, the raster counter and
// its compare interrupt, the collision latches (vic-collisions.ts) and, through vic-timing.ts, the
// clocks it takes from the CPU. The machine (machine.ts) owns the bus; this file owns what the
// chip does. The chip draws no picture: what a program can observe (registers, interrupts, BA,
// what it fetches in each half-cycle) is worked out when it is observed.

import { VicBusTiming } from './vic-timing.js';
import { VicCollisions } from './vic-collisions.js';
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

export class VicII {
  /** The register file as written ($D000-$D03F), read by the bus timing and the collision unit. */
  readonly regs = new Uint8Array(0x40);
  /** When the VIC takes the bus (bad lines, sprite DMA). */
  readonly timing: VicBusTiming;
  /** Sprite-sprite and sprite-background collisions ($D01E/$D01F). */
  readonly collisions: VicCollisions;
  /** What the VIC reads in the first half of each clock (the floating bus). */
  readonly phi1: VicPhi1;
  /** The earliest clock at which the raster compare or the collision watch needs attention. */
  nextEvent = 0;
  private rasterCompare = 0;
  /** The clock at which the raster next reaches the compare line. */
  private nextRasterMatch = 0;
  /** While a collision interrupt is enabled: the clock of the next line start to evaluate. */
  private collisionWatchAt = Number.POSITIVE_INFINITY;
  readonly cyclesPerLine: number;
  readonly linesPerFrame: number;
  readonly cyclesPerFrame: number;

  constructor(
    private readonly host: VicHost,
    cyclesPerLine: number,
    linesPerFrame: number,
  ) {
    this.cyclesPerLine = cyclesPerLine;
    this.linesPerFrame = linesPerFrame;
    this.cyclesPerFrame = cyclesPerLine * linesPerFrame;
    this.timing = new VicBusTiming({ vic: this.regs }, cyclesPerLine, linesPerFrame);
    this.collisions = new VicCollisions(
      { vic: this.regs, vicFetch: (a) => this.fetch(a), vicBank: () => host.vicBank() },
      cyclesPerLine,
      linesPerFrame,
    );
    this.collisions.colorOf = (cell) => host.colorRam[cell & 0x3ff]!;
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
    this.collisions.reset(now);
    this.collisionWatchAt = Number.POSITIVE_INFINITY;
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

  // --- registers ---------------------------------------------------------------------------------

  /** A CPU read of register `reg` (0..$3F) at clock `now` (the CPU's count after this access). */
  read(reg: number, now: number): number {
    const vic = this.regs;
    switch (reg) {
      // The read happens in clock now - 1: the raster counter as it is in that clock.
      case 0x11:
        return (vic[0x11]! & 0x7f) | ((this.rasterLine(now - 1) & 0x100) >> 1);
      case 0x12:
        return this.rasterLine(now - 1) & 0xff;
      case 0x19:
        if (vic[0x15] !== 0) {
          this.collisions.catchUp(now);
          this.takeCollisionIrq(now);
        }
        return vic[0x19]! | 0x70 | ((vic[0x19]! & vic[0x1a]! & 0x0f) !== 0 ? 0x80 : 0);
      case 0x1a:
        return vic[0x1a]! | 0xf0;
      case 0x16:
        return vic[0x16]! | 0xc0; // unused bits read as 1
      case 0x18:
        return vic[0x18]! | 0x01;
      case 0x1e:
      case 0x1f:
        if (vic[0x15] !== 0 || this.collisions.spriteSprite | this.collisions.spriteBackground) {
          const v = this.collisions.read(reg, now, true);
          this.takeCollisionIrq(now);
          return v;
        }
        return 0;
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
    // Lines that have passed were drawn with the registers as they were: evaluate them first.
    if (vic[0x15] !== 0 && reg < 0x20) {
      this.collisions.catchUp(now);
      this.takeCollisionIrq(now);
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
      case 0x19: // writing 1s acknowledges
        vic[0x19]! &= ~value & 0x0f;
        this.updateIrq(now - 1);
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
      case 0x1e:
      case 0x1f:
        return false; // read-only latches
      default:
        vic[reg] = value;
        return false;
    }
  }

  // --- events: the raster compare and the collision watch ----------------------------------------

  /** Raster compare and collision lines due by clock `now` (called between instructions). */
  handleEvents(now: number): void {
    if (now >= this.nextRasterMatch) this.rasterMatched();
    if (now >= this.collisionWatchAt) {
      this.collisions.catchUp(now);
      this.takeCollisionIrq(now);
      this.collisionWatchAt = now - (now % this.cyclesPerLine) + this.cyclesPerLine;
    }
    this.updateNextEvent();
  }

  private updateNextEvent(): void {
    this.nextEvent = Math.min(this.nextRasterMatch, this.collisionWatchAt);
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
      let at = frameStart + this.rasterCompare * this.cyclesPerLine;
      if (at <= now) at += this.cyclesPerFrame;
      this.nextRasterMatch = at;
    }
    this.updateNextEvent();
  }

  private rasterMatched(): void {
    this.regs[0x19]! |= 0x01;
    this.updateIrq(this.nextRasterMatch);
    this.nextRasterMatch += this.cyclesPerFrame;
  }

  /** New collisions raise their interrupt flags in $D019. */
  private takeCollisionIrq(now: number): void {
    const irq = this.collisions.pendingIrq;
    if (irq === 0) return;
    this.collisions.pendingIrq = 0;
    this.regs[0x19]! |= irq;
    this.updateIrq(now);
  }

  /** With a collision interrupt enabled and sprites on, lines are evaluated as they end. */
  private watchCollisions(now: number): void {
    const watch = (this.regs[0x1a]! & 0x06) !== 0 && this.regs[0x15] !== 0;
    this.collisionWatchAt = watch ? now - (now % this.cyclesPerLine) + this.cyclesPerLine : Number.POSITIVE_INFINITY;
    this.updateNextEvent();
  }

  // --- what the VIC puts on the bus ----------------------------------------------------------------

  /**
   * Where the VIC reads in clock `c` — approximate: the video matrix cell (c-access) in its stolen
   * halves, the sprite pointers in the sprite slots, otherwise the idle address $3FFF of its bank.
   */
  busAddress(c: number, stolenHalf: boolean): number {
    const bank = this.host.vicBank();
    const matrix = bank | ((this.regs[0x18]! >> 4) << 10);
    const k = c % this.cyclesPerLine;
    if (stolenHalf && k >= 14 && k <= 53) {
      const line = Math.floor((c % this.cyclesPerFrame) / this.cyclesPerLine);
      const row = Math.max(0, Math.min(24, (line - 0x30) >> 3));
      return matrix + row * 40 + (k - 14);
    }
    const s0 = this.cyclesPerLine - 6; // sprite 0's pointer fetch (cycle 58 of 63)
    if (k >= s0 || k <= 9) return matrix + 0x3f8 + (((k + this.cyclesPerLine - s0) % this.cyclesPerLine) >> 1);
    return bank | 0x3fff;
  }
}
