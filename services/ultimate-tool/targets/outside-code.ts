// Execution outside the program's code, seen in a bus trace that has no SYNC line (the Ultimate's
// debug stream marks reads and writes, not opcode fetches). What the trace does give: every 6510
// instruction reads the byte after its opcode in its second cycle (the operand, or a dummy read for
// a one-byte instruction), so an opcode fetch at A is a CPU read of A followed, as the CPU's very
// next access, by a read of A+1. Data reads do not come in such pairs outside two places, which are
// left out: the zero page and the stack page (pointer reads, pulls) and a JMP ($xxxx), whose two
// pointer reads follow its own operand — the KERNAL's JMP ($0314) in every IRQ is one.
//
// What counts as code, as on the vice target (docs/ultimate/VICE.md): the program's ranges, the
// BASIC and KERNAL ROM areas ($A000-$BFFF, $E000-$FFFF: the trace cannot tell ROM from the RAM
// under it, and ROM routines run in ordinary programs), and the zero and stack pages (CHRGET lives
// at $0073; a pointer read there looks like a fetch). A fetch at A counts only when A+1 is outside
// the code too, so a dummy read just before a code range (an RTS's, say) is not a fetch.

/** One CPU access of the trace: address, data, write?, clock. */
export type Access = readonly [number, number, boolean, number];

const JMP_INDIRECT = 0x6c;

function alwaysCode(address: number): boolean {
  return address < 0x0200 || (address >= 0xa000 && address <= 0xbfff) || address >= 0xe000;
}

export class OutsideCodeWatch {
  readonly #ranges: ReadonlyArray<{ start: number; end: number }>;

  constructor(codeRanges: ReadonlyArray<{ start: number; end: number }>) {
    this.#ranges = codeRanges;
  }

  /** Whether anything is checked (a program without declared ranges is not). */
  get active(): boolean {
    return this.#ranges.length > 0;
  }

  isCode(address: number): boolean {
    return alwaysCode(address) || this.#ranges.some((r) => address >= r.start && address <= r.end);
  }

  /**
   * The cheap part of fetchOutside, on scalars: reads of A then A+1, both outside the code. A
   * caller on a hot path asks this first and builds the access list only when it holds.
   */
  isReadPairOutside(prevAddress: number, prevRead: boolean, address: number, read: boolean): boolean {
    return prevRead && read && address === ((prevAddress + 1) & 0xffff) && !this.isCode(prevAddress) && !this.isCode(address);
  }

  /**
   * Called after each CPU read with the latest accesses (newest last, the read itself included):
   * the opcode fetch outside the code it completes, or null.
   */
  fetchOutside(recent: ReadonlyArray<Access>): Access | null {
    const n = recent.length;
    const cur = recent[n - 1];
    const prev = recent[n - 2];
    if (!cur || !prev || !this.isReadPairOutside(prev[0], !prev[2], cur[0], !cur[2])) return null;
    // JMP ($xxxx): opcode $6C, operand lo, operand hi, then the pointer's two bytes (prev, cur).
    const [op, lo, hi] = [recent[n - 5], recent[n - 4], recent[n - 3]];
    if (op && lo && hi && !op[2] && op[1] === JMP_INDIRECT && ((hi[1] << 8) | lo[1]) === prev[0]) return null;
    return prev;
  }
}
