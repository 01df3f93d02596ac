// The VIC-II's sprite unit clock by clock: the sequencer (DMA on/off, MC and MCBASE, the
// Y-expansion flip-flop, the display flag) and the eight pixel shift registers with the X
// comparators, as far as a program can observe them — through the collision registers ($D01E,
// $D01F) and their interrupts. No picture is drawn: each clock's eight pixels are worked out only
// for the collision masks.
//
// The chip (C. Bauer, "The MOS 6567/6569 video controller", 3.8; the order within a clock as
// VICE's x64sc models it, vicii-cycle.c / vicii-draw-cycle.c):
// - Cycles 55/56 (PAL; 56/57 NTSC): a sprite with MxE set and MxY = raster line turns its DMA on,
//   MCBASE = 0, the expansion flip-flop set. Cycle 56: with MxYE set the flip-flop toggles.
//   Cycle 58 (6569 and 6567R56A; 59 on the 6567R8): MC = MCBASE; a sprite whose DMA is on shows
//   (display flag) once its Y matches, a sprite without DMA stops showing. Cycle 16: where the
//   flip-flop is set MCBASE = MC, and MCBASE = 63 ends the DMA.
// - The s-accesses (cycles 58+2n/59+2n on the 6569) read three bytes at MC, MC+1, MC+2 (MC
//   counts on) into the sprite's shift register; while its pointer is fetched a sprite stops
//   shifting (halt), and its shifting ends when the new data is loaded.
// - Each pixel X of a line: a showing sprite that is not already shifting starts where X equals
//   its X register (as latched one clock earlier: a write takes effect for the next clock's
//   pixels). It shifts out 24 pixels (48 with MxXE), a multicolour sprite in pairs; it stops once
//   the shift register and the pixel latch are empty. Two sprites with an opaque pixel at the
//   same X collide; a sprite pixel over foreground graphics collides with the background.
// - The collision registers latch (bits only set); a CPU read returns them and clears them after
//   the clock's pixels and the first half of the next clock's. The first collision after a clear
//   raises the interrupt flag.
//
// Timing convention: step(t) is what the chip does right after the CPU's access in clock t: it
// draws the pixels of clock t and then runs the sequencer logic of clock t + 1. A CPU write in
// clock t therefore reaches the sequencer in clock t + 1 and the X comparators from clock t + 1's
// pixels on; a read in clock t sees the pixels up to clock t - 1.
// Memory: each graphics column is read as its g-access reads it, in its own clock — a RAM write the
// line's graphics may read (the CPU's, the REU's) first works the unit out to its clock
// (beforeMemoryWrite). Simplifications: sprite data and pointers are read when the clock is worked
// out, which is at the latest the next VIC-II register access or such a write; the graphics of a
// line use the registers (mode, addresses) as they are when the line is started.

/** What the sprite unit reads from the machine. */
export interface VicSpriteHost {
  readonly vic: Uint8Array;
  /** A byte as the VIC sees memory: `addr` is 14 bits inside the current bank. */
  vicFetch(addr: number): number;
  /** Colour RAM nibble of a screen cell (multicolour text decides per cell). */
  colorOf(cell: number): number;
  /** Bad lines are possible in the frame of clock c (DEN was set in line $30). */
  badLinesEnabled(c: number): boolean;
}

const MASK24 = 0xffffff;

/** Sequencer events of a clock (what the logic of the following clock does), per 0-based clock in the line. */
const EV_MCBASE = 1;
const EV_DMA = 2;
const EV_EXP = 4;
const EV_DISP = 8;

export class VicSprites {
  /** The latched collision registers ($D01E, $D01F). */
  spriteSprite = 0;
  spriteBackground = 0;
  /** Interrupt flags raised by new collisions ($D019 bits 2, 1) and the clock they rose at. */
  pendingIrq = 0;
  pendingIrqAt = 0;
  /** The next clock to work out (every clock before it is done). */
  #pos = 0;

  // Sequencer state.
  #dma = 0;
  #display = 0;
  #expFlop = 0xff;
  readonly #mc = new Uint8Array(8);
  readonly #mcbase = new Uint8Array(8);
  // Pixel state.
  #pending = 0;
  #active = 0;
  #halt = 0;
  #expxFlop = 0;
  #mcFlop = 0;
  #mcBits = 0;
  readonly #data = new Int32Array(8);
  readonly #pixel = new Uint8Array(8);
  /** The X registers as the comparators see them (one clock behind the register file). */
  readonly #xPipe = new Int16Array(8);
  #xStale = false;
  /** The clock after a collision register read, and which register it cleared. */
  #clearAt = -1;
  #clearReg = 0;

  // Geometry, per 0-based clock k of a line.
  readonly #perLine: number;
  readonly #perFrame: number;
  readonly #xpos: Int16Array;
  /** Sprite whose pointer (and first s-access) / whose other two s-accesses fall in clock k (-1: none). */
  readonly #dma0: Int8Array;
  readonly #dma2: Int8Array;
  /** Clock k is the one where the display flags become the pending flags (the display check's cycle). */
  readonly #sprEnK: number;
  /** Sequencer events run after clock k's pixels (they belong to clock k + 1). */
  readonly #events: Uint8Array;
  /** The 0-based clocks whose following-clock logic checks for DMA turn-on. */
  readonly #dmaCheckKs: number[];
  /** The step (0-based clock of a line) that runs the cycle-16 MCBASE logic, and each sprite's last s-access. */
  readonly #mcbaseK: number;
  readonly #dma2K = new Int8Array(8);
  /** The clock (0-based) of the line in which $D017 writes crunch MC. */
  readonly #crunchK = 14;

  // Graphics foreground of one line, by X.
  readonly #gfx = new Uint8Array(0x200);
  #gfxLine = -1;
  #gfxAny = false;
  /** How many of the line's 40 columns have been fetched (in order, each at or after its g-access). */
  #gfxCols = 0;
  // The line's mode and addresses, from the registers as they were when the line was started.
  #gDisplay = false;
  #gEcm = false;
  #gBmm = false;
  #gMcm = false;
  #gX0 = 24;
  #gRow = 0;
  #gRc = 0;
  #gMatrix = 0;
  #gChars = 0;
  #gBitmap = 0;
  /** A "DMA delay" g-access (see beforeWrite): its line (absolute index), column and byte. */
  #delayLine = -1;
  #delayColumn = 0;
  #delayByte = 0;

  constructor(
    private readonly host: VicSpriteHost,
    cyclesPerLine: number,
    linesPerFrame: number,
    /** The 8565/8562 (VicRevision 'new'): no colour latency in the sprite pipeline. */
    private readonly newChip = false,
  ) {
    const L = cyclesPerLine;
    this.#perLine = L;
    this.#perFrame = L * linesPerFrame;
    this.#xpos = new Int16Array(L);
    this.#dma0 = new Int8Array(L).fill(-1);
    this.#dma2 = new Int8Array(L).fill(-1);
    this.#events = new Uint8Array(L);
    // VICE-numbered cycles (1-based) of the chip's slots.
    const ntsc = L !== 63;
    const ptr0 = ntsc ? 59 : 58;
    const disp = L === 65 ? 59 : 58;
    const dmaChecks = ntsc ? [56, 57] : [55, 56];
    for (let k = 0; k < L; k++) {
      // The X of the first of the clock's eight pixels.
      let x: number;
      if (L === 63) x = (0x190 + 8 * k) % 0x1f8;
      else x = (0x198 + 8 * k - (L === 65 && k >= 62 ? 8 : 0)) & 0x1ff;
      this.#xpos[k] = x;
    }
    const kOf = (cycle: number) => (cycle - 1 + L) % L;
    for (let n = 0; n < 8; n++) {
      this.#dma0[kOf(ptr0 + 2 * n)] = n;
      this.#dma2[kOf(ptr0 + 2 * n + 1)] = n;
      this.#dma2K[n] = kOf(ptr0 + 2 * n + 1);
    }
    this.#sprEnK = kOf(disp);
    // The logic of cycle c runs in the step of the clock before it.
    const before = (cycle: number) => (kOf(cycle) - 1 + L) % L;
    this.#mcbaseK = before(16);
    this.#events[before(16)]! |= EV_MCBASE;
    for (const c of dmaChecks) this.#events[before(c)]! |= EV_DMA;
    this.#events[before(56)]! |= EV_EXP;
    this.#events[before(disp)]! |= EV_DISP;
    this.#dmaCheckKs = dmaChecks.map(before);
  }

  reset(now: number): void {
    this.spriteSprite = 0;
    this.spriteBackground = 0;
    this.pendingIrq = 0;
    this.#pos = now;
    this.#dma = 0;
    this.#display = 0;
    this.#expFlop = 0xff;
    this.#mc.fill(0);
    this.#mcbase.fill(0);
    this.#pending = 0;
    this.#active = 0;
    this.#halt = 0;
    this.#expxFlop = 0;
    this.#mcFlop = 0;
    this.#mcBits = 0;
    this.#data.fill(0);
    this.#pixel.fill(0);
    this.#xPipe.fill(0);
    this.#xStale = true;
    this.#clearAt = -1;
    this.#gfxLine = -1;
    this.#delayLine = -1;
  }

  /** Nothing is shown or fetched, and nothing will be until a sprite is enabled. */
  get idle(): boolean {
    return (this.#dma | this.#display | this.#active | this.#pending) === 0;
  }

  /** Sprites are being fetched or shown (the collision watch looks clock by clock then). */
  get busy(): boolean {
    return (this.#display | this.#active | this.#pending) !== 0;
  }

  /**
   * When a collision watch should next work the sprites out, after clock `now`: every clock while
   * sprites are shown, else in the clock after the next display check (nothing can collide before
   * a sprite shows), never while nothing is enabled or shown.
   */
  nextWatch(now: number): number {
    if (this.busy) return now + 1;
    if (this.idle && this.host.vic[0x15] === 0) return Number.POSITIVE_INFINITY;
    const L = this.#perLine;
    const at = now - (now % L) + this.#sprEnK;
    return at > now ? at : at + L;
  }

  /** Works out every clock before `t`. */
  catchUp(t: number): void {
    let pos = this.#pos;
    if (t <= pos) return;
    const vic = this.host.vic;
    const L = this.#perLine;
    // With nothing changing, a frame and a half shows everything there is to see.
    if (t - pos > 2 * this.#perFrame) pos += Math.floor((t - pos) / this.#perFrame - 1) * this.#perFrame;
    while (pos < t) {
      if ((this.#dma | this.#display | this.#active | this.#pending) === 0) {
        if (vic[0x15] === 0) {
          pos = t;
          break;
        }
        // Only the DMA checks can start anything: go to the next one.
        const k = pos % L;
        let next = Number.POSITIVE_INFINITY;
        for (const ck of this.#dmaCheckKs) {
          const at = pos + ((ck - k + L) % L);
          if (at < next) next = at;
        }
        if (next >= t) {
          pos = t;
          break;
        }
        pos = next;
      }
      this.#step(pos);
      pos++;
    }
    this.#pos = pos;
  }

  /**
   * The sprites whose s-accesses at the end of the line starting at clock `lineStart` read memory:
   * the DMA flags after that line's two turn-on checks (cycles 55/56 on the 6569), for the bus
   * timing (vic-timing.ts), which steals the CPU's clocks for exactly these fetches. Works out the
   * clocks before `now` (no further than the second check); a check the machine has not reached
   * yet is taken as the registers say now — a register write before it asks again.
   */
  dmaForFetches(lineStart: number, now: number): number {
    const second = lineStart + this.#dmaCheckKs[1]!;
    this.catchUp(Math.min(now, second + 1));
    if (this.#pos > second) return this.#dma;
    let dma = this.#dma;
    // Asked early in the line (the REC looks ahead from a bad line): the cycle-16 check is still to
    // come — a sprite whose MCBASE then reaches 63 stops, its MC counting on through the fetches
    // of the previous line's last sprites before that.
    const mcbaseStep = lineStart + this.#mcbaseK;
    if (this.#pos <= mcbaseStep && dma !== 0) {
      for (let n = 0; n < 8; n++) {
        const b = 1 << n;
        if ((dma & this.#expFlop & b) === 0) continue;
        const load = lineStart + this.#dma2K[n]!;
        const mc = load >= this.#pos && load < mcbaseStep ? (this.#mc[n]! + 3) & 0x3f : this.#mc[n]!;
        if (mc === 63) dma &= ~b;
      }
    }
    const vic = this.host.vic;
    const enable = vic[0x15]!;
    const line = Math.floor((lineStart % this.#perFrame) / this.#perLine) & 0xff;
    for (let n = 0; n < 8; n++) if ((enable & (1 << n)) !== 0 && vic[1 + 2 * n] === line) dma |= 1 << n;
    return dma;
  }

  /**
   * A CPU read of $D01E/$D01F in clock t: the latch as it is, cleared after the clock's pixels —
   * and the clear holds through the first four pixels of clock t + 1 (a collision there is lost).
   * The second half is the real 6569's (VICE-testprogs spritevssprite, whose reference comes from
   * the hardware: 20 X positions between two reads four clocks apart see a collision, not 24);
   * x64sc clears after clock t's pixels only and fails that program.
   */
  read(reg: 0x1e | 0x1f, t: number): number {
    this.catchUp(t);
    const v = reg === 0x1e ? this.spriteSprite : this.spriteBackground;
    this.catchUp(t + 1);
    if (reg === 0x1e) this.spriteSprite = 0;
    else this.spriteBackground = 0;
    this.#clearAt = t + 1;
    this.#clearReg = reg;
    return v;
  }

  /** The collision latches without side effects (a monitor's peek), worked out up to clock t. */
  peek(reg: 0x1e | 0x1f, t: number): number {
    this.catchUp(t);
    return reg === 0x1e ? this.spriteSprite : this.spriteBackground;
  }

  /**
   * A CPU write of register `reg` in clock t, before the register file changes: the clocks before
   * it are worked out with the old value; the X comparators take a new X one clock later; clearing
   * a MxYE bit while the flip-flop is reset sets it (and in cycle 15 mixes MC with MCBASE: the
   * "sprite crunch").
   */
  beforeWrite(reg: number, value: number, t: number): void {
    this.catchUp(t);
    if (reg <= 0x10 && (reg & 1) === 0) this.#xStale = true;
    else if (reg === 0x11) this.#dmaDelay(value, t);
    else if (reg === 0x17) {
      const k = t % this.#perLine;
      for (let n = 0; n < 8; n++) {
        const b = 1 << n;
        if ((value & b) === 0 && (this.#expFlop & b) === 0) {
          if (k === this.#crunchK) {
            const mc = this.#mc[n]!;
            const base = this.#mcbase[n]!;
            this.#mc[n] = (0x2a & (base & mc)) | (0x15 & (base | mc));
          }
          this.#expFlop |= b;
        }
      }
    }
  }

  /**
   * A $D011 write in clock t that makes the line a bad line in idle state, inside the g-access
   * window ("DMA delay", the VSP trick): the g-access of the next clock, where the chip first sees
   * the condition, reads neither the idle byte $3FFF nor display data but $38FF on the 6569 and
   * 6567, $3807 on the 8565/8562 (VICE-testprogs vsp-tester, measured on several machines; some
   * 8565s read $38FF/$38C7/$38D7). Simplification: idle state is taken as the lines before the
   * first bad line of the old YSCROLL and after the display window (no display state machine).
   */
  #dmaDelay(value: number, t: number): void {
    const L = this.#perLine;
    const column = (t % L) + 1 - 15;
    if (column < 0 || column > 39 || !this.host.badLinesEnabled(t)) return;
    const r = Math.floor((t % this.#perFrame) / L);
    if (r < 0x30 || r > 0xf7) return;
    const old = this.host.vic[0x11]!;
    if ((r & 7) === (old & 7) || (r & 7) !== (value & 7)) return;
    if (r >= 0x30 + (old & 7)) return; // display state (simplified): past the first bad line
    this.#delayLine = Math.floor(t / L);
    this.#delayColumn = column;
    this.#delayByte = this.host.vicFetch(this.newChip ? 0x3807 : 0x38ff);
    // Its column is normally fetched later (#fetchColumns takes the byte then); one already fetched
    // is overwritten here.
    if (this.#gfxLine === this.#delayLine && this.#delayColumn < this.#gfxCols) this.#applyDelay();
  }

  /** The DMA-delay g-access's byte in its column of the line's graphics (hi-res pixels). */
  #applyDelay(): void {
    const at = this.#gX0 + 8 * this.#delayColumn;
    const b = this.#delayByte;
    for (let i = 0; i < 8; i++) this.#gfx[(at + i) & 0x1ff] = (b >> (7 - i)) & 1;
    this.#gfxAny = this.#gfxAny || b !== 0;
  }

  /**
   * The graphics' g-accesses may read VIC address `a` (14 bits) with the registers as they are:
   * the video matrix, the character set (text) or the bitmap, or the idle byte ($3FFF, $39FF with
   * ECM; a little more is let through, which only costs a catch-up).
   */
  graphicsMayRead(a: number): boolean {
    if ((a | 0x0600) === 0x3fff) return true;
    const vic = this.host.vic;
    const d018 = vic[0x18]!;
    if (a >> 10 === d018 >> 4) return true;
    if ((vic[0x11]! & 0x20) !== 0) return a >> 13 === ((d018 >> 3) & 1);
    return a >> 11 === ((d018 >> 1) & 7);
  }

  /**
   * A memory write (CPU or REU DMA) in clock t that the VIC can see, before it lands: the clocks
   * before it are worked out with memory as it was, and the current line's g-accesses up to and
   * including clock t (the VIC reads in the first half of the clock, the write comes in the second)
   * take their bytes now. Only needed while sprites are shown (`busy`): nothing else reads the
   * graphics.
   */
  beforeMemoryWrite(t: number): void {
    this.catchUp(t);
    if (this.busy) this.#graphics(t);
  }

  #refreshX(): void {
    const vic = this.host.vic;
    const hi = vic[0x10]!;
    for (let n = 0; n < 8; n++) this.#xPipe[n] = vic[2 * n]! | (((hi >> n) & 1) << 8);
    this.#xStale = false;
  }

  /** Clock t: its eight pixels, then the sequencer logic of clock t + 1. */
  #step(t: number): void {
    const L = this.#perLine;
    const k = t % L;
    const d0 = this.#dma0[k]!;
    const d2 = this.#dma2[k]!;
    const sprEn = k === this.#sprEnK;
    const xpos = this.#xpos[k]!;
    // Which sprites could start in these eight pixels.
    let candidates = 0;
    if (this.#pending !== 0) {
      const block = xpos >> 3;
      for (let n = 0; n < 8; n++) if (this.#xPipe[n]! >> 3 === block) candidates |= 1 << n;
      candidates &= this.#pending;
    }
    if (this.#active !== 0 || candidates !== 0) this.#pixels(t, xpos, candidates, d0, d2, sprEn);
    else {
      // No pixel to draw: only the slot events of the clock.
      if (d0 >= 0) this.#halt |= 1 << d0;
      if (sprEn) this.#pending = this.#display;
      if (d2 >= 0) {
        this.#active &= ~(1 << d2);
        this.#load(d2);
        this.#halt &= ~(1 << d2);
      }
      this.#mcBits = this.host.vic[0x1c]!;
    }
    if (this.#xStale) this.#refreshX();
    const ev = this.#events[k]!;
    if (ev !== 0) this.#sequencer(ev, t + 1);
  }

  /** The s-accesses of sprite n: three bytes at MC into its shift register (nothing without DMA). */
  #load(n: number): void {
    const b = 1 << n;
    if ((this.#dma & b) === 0) {
      this.#data[n] = 0;
      return;
    }
    const host = this.host;
    const pointer = host.vicFetch(((host.vic[0x18]! >> 4) << 10) | 0x3f8 | n);
    const base = pointer << 6;
    let mc = this.#mc[n]!;
    const b0 = host.vicFetch((base | mc) & 0x3fff);
    mc = (mc + 1) & 0x3f;
    const b1 = host.vicFetch((base | mc) & 0x3fff);
    mc = (mc + 1) & 0x3f;
    const b2 = host.vicFetch((base | mc) & 0x3fff);
    this.#mc[n] = (mc + 1) & 0x3f;
    this.#data[n] = (b0 << 16) | (b1 << 8) | b2;
  }

  #sequencer(ev: number, c: number): void {
    const vic = this.host.vic;
    const line = Math.floor((c % this.#perFrame) / this.#perLine) & 0xff;
    if ((ev & EV_MCBASE) !== 0) {
      for (let n = 0; n < 8; n++) {
        if ((this.#expFlop & (1 << n)) !== 0) {
          this.#mcbase[n] = this.#mc[n]!;
          if (this.#mcbase[n] === 63) this.#dma &= ~(1 << n);
        }
      }
    }
    if ((ev & EV_DMA) !== 0) {
      const enable = vic[0x15]!;
      for (let n = 0; n < 8; n++) {
        const b = 1 << n;
        if ((enable & b) !== 0 && (this.#dma & b) === 0 && vic[1 + 2 * n] === line) {
          this.#dma |= b;
          this.#mcbase[n] = 0;
          this.#expFlop |= b;
        }
      }
    }
    if ((ev & EV_EXP) !== 0) this.#expFlop ^= this.#dma & vic[0x17]!;
    if ((ev & EV_DISP) !== 0) {
      const enable = vic[0x15]!;
      for (let n = 0; n < 8; n++) {
        const b = 1 << n;
        this.#mc[n] = this.#mcbase[n]!;
        if ((this.#dma & b) !== 0) {
          if ((enable & b) !== 0 && vic[1 + 2 * n] === line) this.#display |= b;
        } else this.#display &= ~b;
      }
    }
  }

  /** The eight pixels of clock t, starting at X `xpos`. */
  #pixels(t: number, xpos: number, candidates: number, d0: number, d2: number, sprEn: boolean): void {
    const vic = this.host.vic;
    const data = this.#data;
    const pixel = this.#pixel;
    const xPipe = this.#xPipe;
    let ss = 0;
    let sb = 0;
    let gfxReady = false;
    for (let i = 0; i < 8; i++) {
      const x = xpos + i;
      if (i === 2 && d2 >= 0) this.#active &= ~(1 << d2);
      else if (i === 3 && d0 >= 0) this.#halt |= 1 << d0;
      else if (i === 4) {
        if (sprEn) this.#pending = this.#display;
        if (d2 >= 0) this.#load(d2);
      } else if (i === 6 && this.newChip) {
        // The 8565's multicolour bits arrive a pixel earlier and (as x64sc models the chip) flip
        // the pair phase of a sprite caught between the halves of an X-expanded pixel.
        const next = vic[0x1c]!;
        const toggled = (next ^ this.#mcBits) & ~this.#expxFlop;
        this.#mcFlop = (this.#mcFlop ^ toggled) | (toggled & ~next);
        this.#mcBits = next;
      } else if (i === 7) {
        if (!this.newChip) {
          // The 6569's multicolour bits reach the sprite pipeline at the last pixel of the clock.
          const next = vic[0x1c]!;
          this.#mcFlop &= ~(next ^ this.#mcBits);
          this.#mcBits = next;
        }
        if (d2 >= 0) this.#halt &= ~(1 << d2);
      }
      // Start where X matches.
      if (candidates !== 0) {
        const ready = candidates & this.#pending & ~this.#active & ~this.#halt;
        if (ready !== 0) {
          for (let n = 0; n < 8; n++) {
            const b = 1 << n;
            if ((ready & b) !== 0 && xPipe[n] === x) {
              this.#expxFlop |= b;
              this.#mcFlop |= b;
              this.#active |= b;
            }
          }
        }
      }
      const active = this.#active;
      if (active === 0) continue;
      let mask = 0;
      const expx = vic[0x1d]!;
      for (let n = 0; n < 8; n++) {
        const b = 1 << n;
        if ((active & b) === 0) continue;
        if (data[n] === 0 && pixel[n] === 0) {
          this.#active &= ~b;
          continue;
        }
        if ((this.#halt & b) === 0) {
          if ((this.#expxFlop & b) !== 0) {
            if ((this.#mcBits & b) !== 0) {
              if ((this.#mcFlop & b) !== 0) pixel[n] = (data[n]! >> 22) & 3;
              this.#mcFlop ^= b;
            } else if ((this.#mcFlop & b) !== 0 || !this.newChip) pixel[n] = ((data[n]! >> 23) & 1) << 1;
            // 8565: the first hi-res pixel after a switch from multicolour repeats the pair's.
            else this.#mcFlop |= b;
            data[n] = (data[n]! << 1) & MASK24;
          }
          if ((expx & b) !== 0) this.#expxFlop ^= b;
          else this.#expxFlop |= b;
        }
        if (pixel[n] !== 0) mask |= b;
      }
      if (mask === 0) continue;
      // A read's clear still holds through the first half of the next clock (its first 4 pixels).
      const clearing = i < 4 && t === this.#clearAt ? this.#clearReg : 0;
      if ((mask & (mask - 1)) !== 0 && clearing !== 0x1e) ss |= mask;
      if (clearing === 0x1f) continue;
      if (!gfxReady) {
        this.#graphics(t);
        gfxReady = true;
      }
      if (this.#gfxAny && this.#gfx[x] !== 0) sb |= mask;
    }
    if (ss !== 0) {
      if (this.spriteSprite === 0) this.#raise(0x04, t + 1);
      this.spriteSprite |= ss;
    }
    if (sb !== 0) {
      if (this.spriteBackground === 0) this.#raise(0x02, t + 1);
      this.spriteBackground |= sb;
    }
  }

  #raise(flag: number, at: number): void {
    if (this.pendingIrq === 0) this.pendingIrqAt = at;
    this.pendingIrq |= flag;
  }

  /**
   * The foreground pixels of the graphics on the raster line of clock t, by X, as far as the
   * g-accesses up to clock t have fetched them. Each column's byte is read once, in order, and
   * never before its own g-access (column c in 0-based clock 15 + c): `beforeMemoryWrite` fetches
   * the columns due by a write's clock before the write lands, so a byte the CPU or the REC writes
   * in the middle of a line is seen by the columns fetched after it and by none before — as on
   * the chip, where each g-access reads memory in the first half of its own clock.
   */
  #graphics(t: number): void {
    const L = this.#perLine;
    const lineIndex = Math.floor(t / L);
    if (lineIndex !== this.#gfxLine) this.#startLine(lineIndex);
    const due = Math.min(40, (t % L) - 14);
    if (due > this.#gfxCols) this.#fetchColumns(due);
  }

  /** A new line's graphics: the mode and addresses as the registers are now, no column fetched yet. */
  #startLine(lineIndex: number): void {
    this.#gfxLine = lineIndex;
    this.#gfxCols = 0;
    this.#gfx.fill(0);
    this.#gfxAny = false;
    const r = lineIndex % (this.#perFrame / this.#perLine);
    const vic = this.host.vic;
    const d011 = vic[0x11]!;
    const d016 = vic[0x16]!;
    const d018 = vic[0x18]!;
    const firstBad = 0x30 + (d011 & 7);
    this.#gEcm = (d011 & 0x40) !== 0;
    this.#gBmm = (d011 & 0x20) !== 0;
    this.#gMcm = (d016 & 0x10) !== 0;
    this.#gDisplay = (d011 & 0x10) !== 0 && r >= firstBad && r < firstBad + 200;
    this.#gX0 = 24 + (d016 & 7);
    this.#gRow = (r - firstBad) >> 3;
    this.#gRc = (r - firstBad) & 7;
    this.#gMatrix = (d018 >> 4) << 10;
    this.#gChars = ((d018 >> 1) & 7) << 11;
    this.#gBitmap = ((d018 >> 3) & 1) << 13;
  }

  /** The g-accesses of the current line's columns up to (not including) `due`. */
  #fetchColumns(due: number): void {
    const host = this.host;
    const gfx = this.#gfx;
    const display = this.#gDisplay;
    const ecm = this.#gEcm;
    const bmm = this.#gBmm;
    const mcm = this.#gMcm;
    const row = this.#gRow;
    const delayColumn = this.#gfxLine === this.#delayLine ? this.#delayColumn : -1;
    let any = this.#gfxAny;
    for (let c = this.#gfxCols; c < due; c++) {
      let b: number;
      let multi: boolean;
      if (c === delayColumn) {
        b = this.#delayByte;
        multi = false;
      } else if (!display) {
        b = host.vicFetch(ecm ? 0x39ff : 0x3fff);
        multi = mcm && bmm;
      } else {
        const code = host.vicFetch(this.#gMatrix + row * 40 + c);
        if (bmm) {
          b = host.vicFetch((this.#gBitmap + (row * 40 + c) * 8 + this.#gRc) & 0x3fff);
          multi = mcm;
        } else {
          b = host.vicFetch(this.#gChars + (ecm ? code & 0x3f : code) * 8 + this.#gRc);
          // Multicolour text: only characters whose colour has bit 3 set are multicolour.
          multi = mcm && !ecm && (host.colorOf(row * 40 + c) & 8) !== 0;
        }
      }
      if (b === 0) continue;
      const at = this.#gX0 + c * 8;
      for (let i = 0; i < 8; i++) {
        const fg = multi ? ((b >> (6 - (i & ~1))) & 2) !== 0 : ((b >> (7 - i)) & 1) !== 0;
        if (fg) {
          gfx[(at + i) & 0x1ff] = 1;
          any = true;
        }
      }
    }
    this.#gfxCols = due;
    this.#gfxAny = any;
  }
}
