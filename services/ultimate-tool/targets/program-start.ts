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
