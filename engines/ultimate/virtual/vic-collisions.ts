// The VIC-II's collision detection ($D01E sprite-sprite, $D01F sprite-background), computed a
// raster line at a time: the emulation draws no picture, so the pixels that matter for collisions
// are worked out only for lines where a sprite is shown, and only when the program could notice —
// when it reads $D01E/$D01F/$D019, before it changes a register the picture depends on, and at
// every line while a collision interrupt is enabled.
//
// What the chip does (C. Bauer, "The MOS 6567/6569 video controller", 3.8 and 3.9):
// - Two sprites collide where both have a non-transparent pixel (hi-res: a 1 bit; multicolour: a
//   bit pair other than 00), anywhere on the line — the border hides pixels, not collisions. A
//   sprite is shown from the line after its Y coordinate matches, for 21 lines (42 expanded), at
//   X coordinates 0 … (8 × clocks per line − 1); an X beyond that never matches, so the sprite
//   is not shown at all.
// - A sprite collides with the graphics where the graphics pixel is foreground: a 1 in hi-res
//   modes, a pair 10 or 11 in multicolour modes (01 counts as background). The graphics start at
//   X = 24 + XSCROLL and cover 320 pixels, in display state between the first bad line and 200
//   lines later; in idle state the sequencer shows the byte at $3FFF ($39FF with ECM).
// - The registers latch: bits only get set; a read returns them and clears them. The first
//   collision after a clear sets the interrupt flag ($D019 bit 2 sprite-sprite, bit 1
//   sprite-background).
// Simplification: a line is evaluated with the registers and memory as they are when it is
// evaluated (at the latest at the next register write), not pixel by pixel as the beam passes.

/** What the collision unit reads from the machine. */
export interface VicCollisionHost {
  readonly vic: Uint8Array;
  /** A byte as the VIC sees memory: `addr` is 14 bits inside the current bank. */
  vicFetch(addr: number): number;
  /** The VIC bank base ($0000, $4000, $8000, $C000) from CIA 2. */
  vicBank(): number;
}

export class VicCollisions {
  /** The latched registers ($D01E, $D01F). */
  spriteSprite = 0;
  spriteBackground = 0;
  /** Interrupt flags raised by new collisions since the machine last took them ($D019 bits 2, 1). */
  pendingIrq = 0;
  /** Absolute index (clock / clocks per line) of the next line to evaluate. */
  #nextLine = 0;
  readonly #width: number;
  readonly #sprites: Uint8Array;
  readonly #gfx: Uint8Array;

  constructor(
    private readonly host: VicCollisionHost,
    private readonly cyclesPerLine: number,
    private readonly linesPerFrame: number,
  ) {
    this.#width = cyclesPerLine * 8;
    this.#sprites = new Uint8Array(this.#width);
    this.#gfx = new Uint8Array(this.#width);
  }

  reset(now: number): void {
    this.spriteSprite = 0;
    this.spriteBackground = 0;
    this.pendingIrq = 0;
    this.#nextLine = Math.floor(now / this.cyclesPerLine);
  }

  /** Evaluates every line that has ended by clock `now` (at most the last frame's worth). */
  catchUp(now: number): void {
    const current = Math.floor(now / this.cyclesPerLine);
    if (current <= this.#nextLine) return;
    const enabled = this.host.vic[0x15]!;
    if (enabled === 0) {
      this.#nextLine = current;
      return;
    }
    // Collisions latch: with the registers unchanged, one frame shows all there is to see.
    let line = Math.max(this.#nextLine, current - this.linesPerFrame);
    for (; line < current; line++) this.#evaluate(line % this.linesPerFrame, enabled);
    this.#nextLine = current;
  }

  /** Reads a latch (with the CPU's clear-on-read). */
  read(reg: 0x1e | 0x1f, now: number, sideEffects: boolean): number {
    this.catchUp(now);
    const v = reg === 0x1e ? this.spriteSprite : this.spriteBackground;
    if (sideEffects) {
      if (reg === 0x1e) this.spriteSprite = 0;
      else this.spriteBackground = 0;
    }
    return v;
  }

  #evaluate(r: number, enabled: number): void {
    const vic = this.host.vic;
    const width = this.#width;
    // Which sprites show a row on raster line r, and which row.
    let shown = 0;
    const rows = [0, 0, 0, 0, 0, 0, 0, 0];
    for (let n = 0; n < 8; n++) {
      if ((enabled & (1 << n)) === 0) continue;
      const d = r - 1 - vic[1 + 2 * n]!;
      const yexp = (vic[0x17]! >> n) & 1;
      if (d < 0 || d >= (yexp ? 42 : 21)) continue;
      const x = vic[2 * n]! | (((vic[0x10]! >> n) & 1) << 8);
      if (x >= width) continue;
      shown |= 1 << n;
      rows[n] = yexp ? d >> 1 : d;
    }
    if (shown === 0) return;
    const matrix = (vic[0x18]! >> 4) << 10;
    const buf = this.#sprites;
    buf.fill(0);
    let ss = 0;
    for (let n = 0; n < 8; n++) {
      const bit = 1 << n;
      if ((shown & bit) === 0) continue;
      const pointer = this.host.vicFetch(matrix + 0x3f8 + n);
      const base = pointer * 64 + rows[n]! * 3;
      const data =
        (this.host.vicFetch(base & 0x3fff) << 16) |
        (this.host.vicFetch((base + 1) & 0x3fff) << 8) |
        this.host.vicFetch((base + 2) & 0x3fff);
      if (data === 0) continue;
      const mc = (vic[0x1c]! & bit) !== 0;
      const w = (vic[0x1d]! & bit) !== 0 ? 2 : 1;
      let p = vic[2 * n]! | (((vic[0x10]! >> n) & 1) << 8);
      for (let i = 0; i < 24; i++) {
        const opaque = mc ? ((data >> (22 - (i & ~1))) & 3) !== 0 : ((data >> (23 - i)) & 1) !== 0;
        for (let k = 0; k < w; k++) {
          if (opaque) {
            const prev = buf[p]!;
            if (prev !== 0) ss |= prev | bit;
            buf[p] = prev | bit;
          }
          if (++p === width) p = 0;
        }
      }
    }
    const sb = this.#backgroundCollisions(r, buf);
    if (ss !== 0) {
      if (this.spriteSprite === 0) this.pendingIrq |= 0x04;
      this.spriteSprite |= ss;
    }
    if (sb !== 0) {
      if (this.spriteBackground === 0) this.pendingIrq |= 0x02;
      this.spriteBackground |= sb;
    }
  }

  /** The sprites (mask) whose pixels in `buf` meet foreground graphics on line r. */
  #backgroundCollisions(r: number, buf: Uint8Array): number {
    const vic = this.host.vic;
    const d011 = vic[0x11]!;
    const d016 = vic[0x16]!;
    const ecm = (d011 & 0x40) !== 0;
    const bmm = (d011 & 0x20) !== 0;
    const mcm = (d016 & 0x10) !== 0;
    const yscroll = d011 & 7;
    const firstBad = 0x30 + yscroll;
    const display = (d011 & 0x10) !== 0 && r >= firstBad && r < firstBad + 200;
    const fetch = this.host.vicFetch.bind(this.host);
    const gfx = this.#gfx;
    const x0 = 24 + (d016 & 7);
    let any = false;
    const row = (r - firstBad) >> 3;
    const rc = (r - firstBad) & 7;
    const matrix = (vic[0x18]! >> 4) << 10;
    const chars = ((vic[0x18]! >> 1) & 7) << 11;
    const bitmap = ((vic[0x18]! >> 3) & 1) << 13;
    const idleByte = display ? 0 : fetch(ecm ? 0x39ff : 0x3fff);
    if (!display && idleByte === 0) return 0;
    gfx.fill(0);
    for (let c = 0; c < 40; c++) {
      let b: number;
      let multi: boolean;
      if (!display) {
        b = idleByte;
        multi = mcm && bmm;
      } else {
        const code = fetch(matrix + row * 40 + c);
        if (bmm) {
          b = fetch((bitmap + (row * 40 + c) * 8 + rc) & 0x3fff);
          multi = mcm;
        } else {
          b = fetch(chars + (ecm ? code & 0x3f : code) * 8 + rc);
          // Multicolour text: only characters whose colour has bit 3 set are multicolour.
          multi = mcm && !ecm && (this.colorOf(row * 40 + c) & 8) !== 0;
        }
      }
      if (b === 0) continue;
      const at = x0 + c * 8;
      for (let i = 0; i < 8; i++) {
        const fg = multi ? ((b >> (6 - (i & ~1))) & 2) !== 0 : ((b >> (7 - i)) & 1) !== 0;
        if (fg) {
          gfx[(at + i) % this.#width] = 1;
          any = true;
        }
      }
    }
    if (!any) return 0;
    let sb = 0;
    for (let p = 0; p < this.#width; p++) if (gfx[p] !== 0) sb |= buf[p]!;
    return sb;
  }

  /** Colour RAM nibble of a screen cell (set by the machine). */
  colorOf: (cell: number) => number = () => 0;
}
