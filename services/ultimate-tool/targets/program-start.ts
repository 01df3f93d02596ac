// Recognising, in a bus trace, the opcode fetch of the program's first instruction: the first CPU
// read of the entry address, with the program's opcode on the bus, after BASIC read the stub's SYS
// token ($9E). The KERNAL's RAM test reads and writes those addresses too, but writes the token's
// address between, which disarms the detector until BASIC reads the token again. Without a BASIC
// stub there is no token to wait for: the first fetch at the entry counts.
//
// Shared by the judge (bus-trace-observer.ts: cycles count from this fetch) and the timeline
// (rows before it belong to whatever ran before the reset, not to this program).
import type { PrgEntry } from './prg-entry.js';

const SYS_TOKEN = 0x9e;

export class ProgramStartDetector {
  started = false;
  #armed: boolean;

  constructor(readonly entry: PrgEntry) {
    this.#armed = entry.sysToken === null;
  }

  /** A CPU write (before the start it may disarm the detector). */
  write(address: number): void {
    if (!this.started && this.entry.sysToken !== null && address === this.entry.sysToken) this.#armed = false;
  }

  /** A CPU read (BA high); true when this read is the program's first opcode fetch. */
  read(address: number, data: number): boolean {
    if (this.started) return false;
    if (this.entry.sysToken !== null && address === this.entry.sysToken && data === SYS_TOKEN) this.#armed = true;
    else if (this.#armed && address === this.entry.entry && data === this.entry.opcode) {
      this.started = true;
      return true;
    }
    return false;
  }
}

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
  #prev: { address: number; clock: number; read: boolean } | null = null;

  /** `armed`: count from the first fetch at once (the trace begins after the reset). */
  constructor(
    readonly range: { start: number; end: number },
    armed = false,
  ) {
    this.#armed = armed;
  }

  write(address: number, clock: number): void {
    this.#prev = { address, clock, read: false };
  }

  /** A CPU read (BA high); the clock of the program's first opcode fetch when this read completes it. */
  read(address: number, clock: number): number | null {
    const prev = this.#prev;
    this.#prev = { address, clock, read: true };
    if (this.started || !prev?.read) return null;
    if (!this.#armed) {
      if (prev.address === 0xfffc && address === 0xfffd) this.#armed = true;
      return null;
    }
    if (address !== ((prev.address + 1) & 0xffff) || prev.address < this.range.start || prev.address > this.range.end) return null;
    this.started = true;
    return prev.clock;
  }
}

/** The inclusive range a PRG's bytes occupy once loaded; null for a PRG without data. */
export function prgLoadRange(prg: Uint8Array): { start: number; end: number } | null {
  if (prg.length < 3) return null;
  const start = (prg[0] ?? 0) | ((prg[1] ?? 0) << 8);
  return { start, end: Math.min(0xffff, start + prg.length - 3) };
}
