// What the VIC-II reads in the first half (phi1) of each clock. The CPU never sees these reads
// directly, but the data bus keeps the last value driven on it: a CPU read of an address nothing
// answers (the open I/O areas $DE00-$DFFF without a cartridge) returns the byte the VIC fetched in
// phi1 of that same clock — programs use it to find where the beam is.
//
// The phi1 slots of a line (C. Bauer, "The MOS 6567/6569 video controller"; cycles 1-based):
// - sprite n: pointer fetch (p-access) at cycle 58 + 2n on the PAL 6569, 59 + 2n on the NTSC
//   6567R8 and 6567R56A (wrapping into the next line for the high sprites), then the middle byte
//   of its three s-accesses in the following phi1 when its DMA is on, else an idle access;
// - refresh: five accesses at $3F00 + an 8-bit counter, cycles 11-15, the counter counting down
//   from $FF at the start of each frame;
// - graphics (g-access), cycles 16-55: in display state the character or bitmap byte of the
//   cell, in idle state $3FFF ($39FF with ECM);
// - everything else: an idle access of $3FFF.
//
// Simplifications: the display state and the video counter are worked out from the registers at
// the time of the read (as if YSCROLL and DEN had their value all frame), and a sprite's DMA from
// its Y coordinate and enable bit now, not from the sequencer's history.

/** The registers and memory the phi1 reads depend on. */
export interface Phi1Source {
  readonly regs: Uint8Array;
  /** A byte as the VIC sees memory (`addr` is 14 bits inside its bank). */
  fetch(addr: number): number;
  /** Bad lines were enabled (DEN set in line $30) in the frame containing clock `c`. */
  badLinesEnabled(c: number): boolean;
}

const FIRST_G_CYCLE = 15; // 0-based clock of the first g-access (cycle 16)
const LAST_G_CYCLE = 54; // cycle 55
const FIRST_REFRESH = 10; // cycle 11

export class VicPhi1 {
  readonly #perLine: number;
  readonly #perFrame: number;
  /** 0-based clock of sprite 0's p-access in a line. */
  readonly #sprite0: number;

  constructor(
    private readonly src: Phi1Source,
    cyclesPerLine: number,
    linesPerFrame: number,
  ) {
    this.#perLine = cyclesPerLine;
    this.#perFrame = cyclesPerLine * linesPerFrame;
    this.#sprite0 = spriteFetchStart(cyclesPerLine);
  }

  /** The byte the VIC reads in phi1 of clock `c` (0-based machine clock). */
  data(c: number): number {
    const inFrame = c % this.#perFrame;
    const line = Math.floor(inFrame / this.#perLine);
    const k = inFrame - line * this.#perLine;
    const src = this.src;
    const regs = src.regs;
    if (k >= FIRST_G_CYCLE && k <= LAST_G_CYCLE) return src.fetch(this.#gAddress(c, line, k - FIRST_G_CYCLE));
    if (k >= FIRST_REFRESH && k < FIRST_G_CYCLE) {
      return src.fetch(0x3f00 | ((0xff - 5 * line - (k - FIRST_REFRESH)) & 0xff));
    }
    // Sprite slots: p-access at sprite0 + 2n, the middle s-access one clock later.
    const slot = (k - this.#sprite0 + this.#perLine) % this.#perLine;
    if (slot < 16) {
      const n = slot >> 1;
      const matrix = (regs[0x18]! >> 4) << 10;
      const pointer = src.fetch(matrix | 0x3f8 | n);
      if ((slot & 1) === 0) return pointer;
      // The DMA line this fetch belongs to: sprites fetched early in a line belong to the previous one.
      const dmaLine = k < this.#sprite0 ? (line === 0 ? this.#perFrame / this.#perLine - 1 : line - 1) : line;
      const row = this.#spriteRow(n, dmaLine);
      if (row >= 0) return src.fetch(((pointer << 6) + row * 3 + 1) & 0x3fff);
    }
    return src.fetch(0x3fff);
  }

  /** The sprite data row sprite n fetches at the end of raster line `line`, or -1 without DMA. */
  #spriteRow(n: number, line: number): number {
    const regs = this.src.regs;
    if ((regs[0x15]! & (1 << n)) === 0) return -1;
    const d = (line - regs[1 + 2 * n]! + 256) & 0xff;
    const expanded = (regs[0x17]! & (1 << n)) !== 0;
    if (d >= (expanded ? 42 : 21)) return -1;
    return expanded ? d >> 1 : d;
  }

  /** The g-access address of cell `x` (0..39) in raster line `line`. */
  #gAddress(c: number, line: number, x: number): number {
    const regs = this.src.regs;
    const d011 = regs[0x11]!;
    const ecm = (d011 & 0x40) !== 0;
    const firstBad = 0x30 + (d011 & 7);
    const sinceFirst = line - firstBad;
    // Display state from the first bad line until RC has counted to 7 after the last one.
    const display = this.src.badLinesEnabled(c) && sinceFirst >= 0 && line <= 0xf0 + (d011 & 7) + 7;
    let addr: number;
    if (!display) addr = 0x3fff;
    else {
      const rc = sinceFirst & 7;
      const vc = Math.min(24, sinceFirst >> 3) * 40 + x;
      const d018 = regs[0x18]!;
      if ((d011 & 0x20) !== 0) addr = ((d018 & 0x08) << 10) | (vc << 3) | rc;
      else {
        const code = this.src.fetch(((d018 >> 4) << 10) | vc);
        addr = ((d018 & 0x0e) << 10) | (code << 3) | rc;
      }
    }
    return ecm ? addr & 0x39ff : addr;
  }
}

/** 0-based clock of sprite 0's pointer fetch: cycle 58 on the 63-cycle 6569, 59 on the NTSC chips. */
export function spriteFetchStart(cyclesPerLine: number): number {
  return cyclesPerLine === 63 ? 57 : 58;
}
