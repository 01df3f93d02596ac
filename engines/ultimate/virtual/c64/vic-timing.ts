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
// - Sprite DMA: which sprites fetch at the end of a line is the sprite sequencer's own DMA state
//   (vic-sprites.ts: turned on in cycles 55/56 when MxE is set and MxY matches the line, turned off
//   in cycle 16 when MCBASE reaches 63 — so Y expansion and the $D017 "crunch" change how long a
//   sprite steals the bus exactly as they change what it shows). Sprite n's two s-accesses are
//   cycles 58+2n and 59+2n counted from line L (sprites 3-7 spill into cycles 1-10 of line L+1); BA
//   low from three cycles before the first of a group. One sprite costs a read-only loop 5 cycles a
//   line, all eight 19. The sprite part of a line is decided when the CPU reaches the clock where
//   sprite 0's BA would drop (cycle 55), after the sequencer's first turn-on check; the second
//   check, one clock later, is read from the registers as they are then (a write in that clock
//   asks again).
//
// Simplifications (docs/ultimate/CPU.md): the bad-line condition is evaluated when the line starts
// and again when $D011 is written during it; the idle/display state machine is not modelled (it
// does not change BA).

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
 * The sprite sequencer's DMA, as the bus timing reads it (VicSprites.dmaForFetches): the sprites
 * whose s-accesses at the end of the line starting at clock `lineStart` read memory, with the
 * machine at clock `now` (the sequencer is worked out no further than `now`).
 */
export type SpriteDmaSource = (lineStart: number, now: number) => number;

/** No sprite ever fetches (a bus timing without a sprite unit: bad lines only). */
const NO_SPRITES: SpriteDmaSource = () => 0;

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
  /**
   * The clock at which the sprite part of the current line is decided (sprite 0's BA clock), or
   * +Infinity once it has been; and the sprites that fetch in the current line (once decided).
   */
  #spriteDecideAt = Number.POSITIVE_INFINITY;
  #spriteMask = 0;

  /** Clocks per raster line and per frame: 63 × 312 on the PAL 6569, 65 × 263 on the NTSC 6567R8. */
  readonly #perLine: number;
  readonly #perFrame: number;

  constructor(
    private readonly regs: VicTimingRegisters,
    cyclesPerLine = VIC_CYCLES_PER_LINE,
    lines = VIC_LINES,
    private readonly spriteDma: SpriteDmaSource = NO_SPRITES,
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
    this.#spriteDecideAt = Number.POSITIVE_INFINITY;
    this.#spriteMask = 0;
  }

  /**
   * The first clock ≥ `now` at which anything may need attention: the start of a BA-low interval
   * or of the next line. Computes lines up to `now` first.
   */
  nextAttention(now: number): number {
    this.#advance(now);
    this.#drop(now);
    const next = this.#from.length > 0 ? this.#from[0]! : Number.POSITIVE_INFINITY;
    return Math.min(next, this.#nextLine, this.#spriteDecideAt);
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
   * so far that start right after it extend the run, and the line's sprite fetches when the run
   * reaches the clock they are decided at (as the sequencer sees them at clock `now`). No line is
   * computed, none dropped.
   */
  runEnd(last: number, now: number): number {
    // A run reaching the clock where this line's sprite fetches are decided: decide them now
    // (the sequencer looks ahead from its state; nothing the CPU could write comes in between).
    if (last + 1 === this.#spriteDecideAt && last + 1 < this.#nextLine) {
      const ls = this.#lineStart;
      this.#spriteDecideAt = Number.POSITIVE_INFINITY;
      this.#spriteMask = this.spriteDma(ls, now);
      this.#scheduleSprites(ls, ls);
    }
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
   * rest of the current line is computed again from the next clock on (its sprite part asked of
   * the sequencer again, when it was already decided).
   */
  registersChanged(now: number): void {
    this.#advance(now);
    const ls = this.#lineStart;
    if (this.#spriteDecideAt === Number.POSITIVE_INFINITY) this.#spriteMask = this.spriteDma(ls, now);
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
    for (;;) {
      if (now >= this.#spriteDecideAt && this.#spriteDecideAt < this.#nextLine) {
        // Sprite 0's BA clock of the current line: the sequencer says which sprites fetch.
        const ls = this.#lineStart;
        this.#spriteDecideAt = Number.POSITIVE_INFINITY;
        this.#spriteMask = this.spriteDma(ls, Math.min(now, this.#nextLine - 1));
        this.#scheduleSprites(ls, ls);
        continue;
      }
      if (now < this.#nextLine) return;
      const ls = this.#nextLine;
      this.#lineStart = ls;
      this.#nextLine = ls + this.#perLine;
      const line = (ls % this.#perFrame) / this.#perLine;
      if (line === 0) this.#denSeen = false;
      if (line === BAD_LINE_FIRST) this.#denSeen = (this.regs.vic[0x11]! & 0x10) !== 0;
      this.#spriteMask = 0;
      this.#spriteDecideAt = ls + this.#sprite0 - BA_WARNING;
      this.#schedule(ls, ls);
    }
  }

  /**
   * Adds the intervals of the line starting at `ls`, none beginning before clock `notBefore`: its
   * bad line, and its sprite fetches once they are decided.
   */
  #schedule(ls: number, notBefore: number): void {
    const line = (ls % this.#perFrame) / this.#perLine;
    if (this.isBadLine(line)) {
      this.#push(ls, ls + BAD_BA_FROM, ls + BAD_LAST, ls + BAD_AEC_FROM, notBefore);
    }
    if (this.#spriteDecideAt === Number.POSITIVE_INFINITY) this.#scheduleSprites(ls, notBefore);
  }

  /** Adds the BA-low intervals of the sprites in `#spriteMask` fetching at the end of line `ls`. */
  #scheduleSprites(ls: number, notBefore: number): void {
    const dma = this.#spriteMask;
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
