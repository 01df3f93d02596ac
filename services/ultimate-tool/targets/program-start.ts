// Recognising, in a bus trace, the opcode fetch of the program's first instruction: the first
// opcode fetch inside the PRG's load range after the reset. Shared by the judge
// (bus-trace-observer.ts: cycles count from this fetch) and the timeline
// (timeline/program-start-scan.ts: rows before it belong to whatever ran before the reset, and its
// cycles count from it too), so both count from one origin (issue 35.4).

/**
 * The judge's program start (issue 31): the first opcode fetch inside the PRG's load range after
 * the machine's reset — whatever BASIC or SYS expression got there (`10 SYS PEEK(43)+256*PEEK(44)+26`
 * too). The bus trace has no SYNC line: an opcode fetch at A is a read of A followed, as the CPU's
 * very next access, by a read of A+1 (outside-code.ts says why nothing else makes such a pair
 * outside the zero and stack pages). Armed by the reset's vector fetch ($FFFC then $FFFD): before
 * it, the previous run's program may still be running in the same range. The vice target finds
 * the same instruction with an exec checkpoint on the range (vice-target.ts).
 */
export class LoadRangeStartDetector {
  started = false;
  #armed: boolean;
  // The previous access, as scalars: this runs for every CPU access of the boot (millions), where an
  // object per access was a tenth of a testbench run's time in allocation and GC.
  #prevAddress = -1;
  #prevClock = 0;
  #prevRead = false;

  /** `armed`: count from the first fetch at once (the trace begins after the reset). */
  constructor(
    readonly range: { start: number; end: number },
    armed = false,
  ) {
    this.#armed = armed;
  }

  write(address: number, clock: number): void {
    this.#prevAddress = address;
    this.#prevClock = clock;
    this.#prevRead = false;
  }

  /** A CPU read (BA high); the clock of the program's first opcode fetch when this read completes it. */
  read(address: number, clock: number): number | null {
    const prevAddress = this.#prevAddress;
    const prevClock = this.#prevClock;
    const prevRead = this.#prevRead;
    this.#prevAddress = address;
    this.#prevClock = clock;
    this.#prevRead = true;
    if (this.started || !prevRead) return null;
    if (!this.#armed) {
      if (prevAddress === 0xfffc && address === 0xfffd) this.#armed = true;
      return null;
    }
    if (address !== ((prevAddress + 1) & 0xffff) || prevAddress < this.range.start || prevAddress > this.range.end) return null;
    this.started = true;
    return prevClock;
  }
}

/** The inclusive range a PRG's bytes occupy once loaded; null for a PRG without data. */
export function prgLoadRange(prg: Uint8Array): { start: number; end: number } | null {
  if (prg.length < 3) return null;
  const start = (prg[0] ?? 0) | ((prg[1] ?? 0) << 8);
  return { start, end: Math.min(0xffff, start + prg.length - 3) };
}
