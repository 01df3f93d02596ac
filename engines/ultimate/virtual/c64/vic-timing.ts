// When the VIC-II (6569, PAL) takes the bus from the 6510: bad lines and sprite DMA.
//
// PAL timing: 63 cycles a line, 312 lines a frame; cycles are numbered 1..63 in a line here as in
// C. Bauer's "The MOS 6567/6569 video controller" (k = cycle - 1 below, 0-based from the line's
// first clock). The VIC pulls BA low three cycles before it needs the bus (AEC low); the 6510 stops
// at its next READ while BA is low (RDY), but finishes writes — it never makes more than three in
// a row, so the three-cycle warning is always enough.
//
// - Bad line: raster line $30..$F7 whose low three bits equal YSCROLL ($D011 bits 0-2), while DEN
//   ($D011 bit 4) was set in some cycle of line $30. BA low in cycles 12-54, VIC accesses (c-access
//   in the CPU's half) in cycles 15-54: a read-only loop loses 43 cycles a bad line.
// - Sprite DMA: in cycles 55/56 of line L, a sprite with MxE set and Y = L (low 8 bits) turns its
//   DMA on for 21 lines (42 with Y expansion). Sprite n's two s-accesses are cycles 58+2n and
//   59+2n counted from line L (sprites 3-7 spill into cycles 1-10 of line L+1); BA low from three
//   cycles before the first of a group. One sprite costs a read-only loop 5 cycles a line, all
//   eight 19.
//
// Simplifications (docs/ultimate/CPU.md): the sprite turn-on and the bad-line condition are
// evaluated when the line starts and again when $D011, $D015, $D017 or a sprite Y register is
// written during it; sprite X, priorities and the idle/display state machine are not modelled
// (they do not change BA).

import { spriteFetchStart } from './vic-phi1.js';

export const VIC_CYCLES_PER_LINE = 63;
export const VIC_LINES = 312;
export const VIC_CYCLES_PER_FRAME = VIC_CYCLES_PER_LINE * VIC_LINES;

/** First and last raster line that can be a bad line. */
const BAD_LINE_FIRST = 0x30;
const BAD_LINE_LAST = 0xf7;
/** 0-based clock in the line where BA drops for a bad line (cycle 12), AEC drops (15), both return (55). */
const BAD_BA_FROM = 11;
const BAD_AEC_FROM = 14;
const BAD_LAST = 53;
/** BA drops this many cycles before the VIC takes the bus. */
const BA_WARNING = 3;

/** The VIC registers the bus timing depends on (a view of the machine's register file). */
export interface VicTimingRegisters {
  readonly vic: Uint8Array;
}

/**
 * BA-low intervals of the clocks to come, as a queue in clock order. A clock index is the 0-based
 * count of machine clocks; line starts are multiples of 63 (the frame starts at clock 0).
 */
export class VicBusTiming {
  /** Interval starts (first BA-low clock), ends (last stolen clock, inclusive), first stolen clock. */
  readonly #from: number[] = [];
  readonly #to: number[] = [];
  readonly #stolen: number[] = [];
  /** The start clock of the line each interval was computed for (to rebuild a line after a write). */
  readonly #line: number[] = [];
  /** Clock at which the next line starts (and must be computed). */
  #nextLine = 0;
  /** Clock at which the current line started. */
  #lineStart = 0;
  #denSeen = false;
  /** Sprites whose DMA is on, and lines of DMA each still has. */
  #spriteDma = 0;
  readonly #spriteLines = new Int8Array(8);

  /** Clocks per raster line and per frame: 63 × 312 on the PAL 6569, 65 × 263 on the NTSC 6567R8. */
  readonly #perLine: number;
  readonly #perFrame: number;

  constructor(
    private readonly regs: VicTimingRegisters,
    cyclesPerLine = VIC_CYCLES_PER_LINE,
    lines = VIC_LINES,
  ) {
    this.#perLine = cyclesPerLine;
    this.#perFrame = cyclesPerLine * lines;
    // Sprite 0's accesses start at cycle 58 on the 6569 and 59 on the NTSC chips (vic-phi1.ts).
    this.#sprite0 = spriteFetchStart(cyclesPerLine);
  }
  readonly #sprite0: number;

  /** Forget all state (machine reset); the line containing `now` is computed on the next access. */
  reset(now: number): void {
    this.#from.length = 0;
    this.#to.length = 0;
    this.#stolen.length = 0;
    this.#line.length = 0;
    this.#lineStart = now - (now % this.#perLine);
    this.#nextLine = this.#lineStart;
    this.#denSeen = false;
    this.#spriteDma = 0;
    this.#spriteLines.fill(0);
  }

  /**
   * The first clock ≥ `now` at which anything may need attention: the start of a BA-low interval
   * or of the next line. Computes lines up to `now` first.
   */
  nextAttention(now: number): number {
    this.#advance(now);
    this.#drop(now);
    const next = this.#from.length > 0 ? this.#from[0]! : Number.POSITIVE_INFINITY;
    return Math.min(next, this.#nextLine);
  }

  /**
   * The BA-low interval containing clock `now`, as [first clock, last clock, first stolen clock],
   * or undefined when BA is high then. Intervals that start right after this one are separate.
   */
  intervalAt(now: number): readonly [number, number, number] | undefined {
    this.#advance(now);
    this.#drop(now);
    if (this.#from.length === 0 || this.#from[0]! > now) return undefined;
    return [this.#from[0]!, this.#to[0]!, this.#stolen[0]!];
  }

  /**
   * The last clock of the run of BA-low clocks whose interval ends at `last`: intervals computed
   * so far that start right after it extend the run. Changes nothing (no line is computed, none
   * dropped).
   */
  runEnd(last: number): number {
    for (let i = 0; i < this.#from.length; i++) if (this.#from[i] === last + 1) last = this.#to[i]!;
    return last;
  }

  /**
   * The BA-low run that starts at clock `from` is the sprites' (it starts outside the window where a
   * bad line can drop BA, cycles 12-54).
   */
  spriteRunAt(from: number): boolean {
    const k = from % this.#perLine;
    return k < BAD_BA_FROM || k > BAD_LAST;
  }

  /** DEN was set in some clock of line $30 of the frame containing clock `now` (bad lines are possible). */
  badLinesEnabled(now: number): boolean {
    this.#advance(now);
    return this.#denSeen;
  }

  /** True when `line` (0..311) is a bad line with the current registers and DEN history. */
  isBadLine(line: number): boolean {
    const d011 = this.regs.vic[0x11]!;
    return this.#denSeen && line >= BAD_LINE_FIRST && line <= BAD_LINE_LAST && (line & 7) === (d011 & 7);
  }

  /**
   * A register that decides BA was written at clock `now` ($D011, $D015, $D017, a sprite Y): the
   * rest of the current line is computed again from the next clock on.
   */
  registersChanged(now: number): void {
    this.#advance(now);
    const ls = this.#lineStart;
    const line = (ls % this.#perFrame) / this.#perLine;
    if (line === BAD_LINE_FIRST && (this.regs.vic[0x11]! & 0x10) !== 0) this.#denSeen = true;
    // Drop what was scheduled for this line and has not begun; keep an interval already under way.
    for (let i = this.#from.length - 1; i >= 0 && this.#line[i] === ls; i--) {
      if (this.#from[i]! <= now) break;
      this.#from.pop();
      this.#to.pop();
      this.#stolen.pop();
      this.#line.pop();
    }
    const last = this.#to.length > 0 ? this.#to[this.#to.length - 1]! : -1;
    this.#schedule(ls, Math.max(now + 1, last + 1));
  }

  #advance(now: number): void {
    while (now >= this.#nextLine) {
      const ls = this.#nextLine;
      this.#lineStart = ls;
      this.#nextLine = ls + this.#perLine;
      const line = (ls % this.#perFrame) / this.#perLine;
      if (line === 0) this.#denSeen = false;
      if (line === BAD_LINE_FIRST) this.#denSeen = (this.regs.vic[0x11]! & 0x10) !== 0;
      // The accesses of the previous line are done: count down each sprite's DMA lines.
      if (this.#spriteDma !== 0) {
        for (let n = 0; n < 8; n++) {
          if ((this.#spriteDma & (1 << n)) !== 0 && --this.#spriteLines[n]! <= 0) this.#spriteDma &= ~(1 << n);
        }
      }
      this.#schedule(ls, ls);
    }
  }

  /** Adds the intervals of the line starting at `ls`, none beginning before clock `notBefore`. */
  #schedule(ls: number, notBefore: number): void {
    const line = (ls % this.#perFrame) / this.#perLine;
    if (this.isBadLine(line)) {
      this.#push(ls, ls + BAD_BA_FROM, ls + BAD_LAST, ls + BAD_AEC_FROM, notBefore);
    }
    const vic = this.regs.vic;
    const enabled = vic[0x15]!;
    if (enabled !== 0) {
      for (let n = 0; n < 8; n++) {
        const bit = 1 << n;
        if ((enabled & bit) !== 0 && (this.#spriteDma & bit) === 0 && vic[1 + 2 * n] === (line & 0xff)) {
          this.#spriteDma |= bit;
          this.#spriteLines[n] = (vic[0x17]! & bit) !== 0 ? 42 : 21;
        }
      }
    }
    const dma = this.#spriteDma;
    if (dma === 0) return;
    // Group sprites whose accesses are close enough that BA never returns high in between.
    let n = 0;
    while (n < 8) {
      if ((dma & (1 << n)) === 0) {
        n++;
        continue;
      }
      const first = ls + this.#sprite0 + 2 * n;
      let lastSprite = n;
      for (let m = n + 1; m < 8; m++) {
        if ((dma & (1 << m)) === 0) continue;
        const gapFree = ls + this.#sprite0 + 2 * m - (ls + this.#sprite0 + 2 * lastSprite + 1) - 1;
        if (gapFree > BA_WARNING) break;
        lastSprite = m;
      }
      this.#push(ls, first - BA_WARNING, ls + this.#sprite0 + 2 * lastSprite + 1, first, notBefore);
      n = lastSprite + 1;
    }
  }

  #push(ls: number, from: number, to: number, stolen: number, notBefore: number): void {
    if (to < notBefore) return;
    const f = Math.max(from, notBefore);
    this.#from.push(f);
    this.#to.push(to);
    // A condition that appears late still gives the CPU three cycles of warning.
    this.#stolen.push(Math.max(stolen, f + (f > from ? BA_WARNING : 0)));
    this.#line.push(ls);
  }

  #drop(now: number): void {
    while (this.#to.length > 0 && this.#to[0]! < now) {
      this.#from.shift();
      this.#to.shift();
      this.#stolen.shift();
      this.#line.shift();
    }
  }
}
