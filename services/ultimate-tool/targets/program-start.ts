// Recognising, in a bus trace, the program's start: the first opcode fetch inside the PRG's load
// range after the reset, or, for a program BASIC runs without machine code, where BASIC began its
// first line. Shared by the judge
// (bus-trace-observer.ts: cycles count from this fetch) and the timeline
// (timeline/program-start-scan.ts: rows before it belong to whatever ran before the reset, and its
// cycles count from it too), so both count from one origin (issue 35.4).
import { CHRGOT_OPERAND_HIGH, firstStatementAddress } from '../../../engines/ultimate/index.js';

/**
 * The judge's program start (issue 31): the first opcode fetch inside the PRG's load range after
 * the machine's reset — whatever BASIC or SYS expression got there (`10 SYS PEEK(43)+256*PEEK(44)+26`
 * too). The bus trace has no SYNC line: an opcode fetch at A is a read of A followed, as the CPU's
 * very next access, by a read of A+1 (outside-code.ts says why nothing else makes such a pair
 * outside the zero and stack pages). Armed by the reset's vector fetch ($FFFC then $FFFD): before
 * it, the previous run's program may still be running in the same range. The vice target finds
 * the same instruction with an exec checkpoint on the range (vice-target.ts).
 *
 * A program BASIC runs without machine code never makes such a fetch. Its start is where BASIC
 * began its first line (engines/ultimate/basic-start.ts): CHRGOT's read of the first statement
 * byte, seen here as a read of that byte right after a read of $007B. That start is a candidate
 * (`basicStart`): a program with a SYS stub passes it too, on the way to its machine code. The
 * owner settles on it (`settleOnBasic`) when the program shows it is running without reaching its
 * machine code — it writes the watched register, runs out its cycle budget, or the run ends —
 * exactly as the vice target does (run-observer.ts).
 */
export class ProgramStartDetector {
  /** How the start was found; null until it is known. */
  kind: 'load-range-fetch' | 'basic' | null = null;
  /** The start is known: the machine-code fetch, or BASIC's start settled on. */
  get started(): boolean {
    return this.kind !== null;
  }
  /** The clock of CHRGOT's read of the first statement byte, once seen (a candidate until settled). */
  basicStart: number | null = null;
  #armed: boolean;
  readonly #firstStatement: number;
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
    this.#firstStatement = firstStatementAddress(range) ?? -1;
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
    if (address === this.#firstStatement && prevAddress === CHRGOT_OPERAND_HIGH && this.basicStart === null) {
      this.basicStart = clock;
      return null;
    }
    if (address !== ((prevAddress + 1) & 0xffff) || prevAddress < this.range.start || prevAddress > this.range.end) return null;
    this.kind = 'load-range-fetch';
    return prevClock;
  }

  /** Settles on BASIC's start, when one was seen and no start is known yet; its clock, else null. */
  settleOnBasic(): number | null {
    if (this.started || this.basicStart === null) return null;
    this.kind = 'basic';
    return this.basicStart;
  }
}

/** The inclusive range a PRG's bytes occupy once loaded; null for a PRG without data. */
export function prgLoadRange(prg: Uint8Array): { start: number; end: number } | null {
  if (prg.length < 3) return null;
  const start = (prg[0] ?? 0) | ((prg[1] ?? 0) << 8);
  return { start, end: Math.min(0xffff, start + prg.length - 3) };
}
