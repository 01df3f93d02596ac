// When the REU's controller (REC 8726) gets the C64's bus during a transfer: one access a clock,
// except while the VIC-II holds BA low for a bad line or sprite DMA (vic-timing.ts).
//
// Measured on real 17xx units by VICE's REU/reutiming2 programs (reference dumps of CIA timer A
// read by the REC each clock, on a breadbox C64 with the old VIC-II: the "-m2" references):
// - A read that follows a read (stash, verify) happens in every clock BA is high and in none
//   where it is low: the REC stops in the clock BA drops, as the CPU's read does. In the line
//   where sprite 0's DMA turns on BA drops a clock late and the REC still reads in that clock.
// - A write (fetch, and a swap's second half) goes on through the first two clocks of BA low
//   before a bad line, through the first only before sprite DMA (measured with sprite-to-
//   background collisions on a 1750: 45 writes in a line with eight sprites on).
// - A read right after a write (a swap's first half, and a transfer's first byte right after the
//   CPU's STA) sees BA one clock ahead: if BA drops in the next clock it does not start, and waits
//   until BA has been high again — a one-clock gap between two BA-low runs does not count. A read
//   already started when BA drops is held on the bus and takes the data of the last clock before
//   the VIC takes it (the BA warning's last clock); the swap's write then follows after the VIC.
//   It is not held (it waits, and reads after the VIC) when the run of BA-low clocks lasts longer
//   than a plain bad line's, nor in the transfer's first byte; the transfer's last byte is read
//   at once, in the warning.
// x64sc 3.10 takes the held read in its first clock and passes 12 of the 28 programs; this model
// passes the 14 "-m2" programs and the 5 that need no swap. The other 9 expect what a C64C with
// the new VIC-II does (the first byte read under a VIC DMA start comes from the RAM under I/O).

import type { VicBusTiming } from './vic-timing.js';

/** The longest run of BA-low clocks a swap's read is held through (a bad line's: 12-54 + 1). */
const SWAP_READ_HOLD_MAX = 44;

/** What the REC's clock needs from the machine. */
export interface RecBusHost {
  /** The machine's clock: the next access happens in clock `cycles`. */
  readonly cpu: { cycles: number };
  /** True when clock `c` is where BA drops for sprite 0's DMA in the line that turns it on. */
  spriteZeroTurnsOnAt(c: number): boolean;
}

export class RecBusTiming {
  /** The transfer's first byte: it waits for BA even where sprite 0's DMA turns on. */
  #first = false;
  /** The last access was a write (the REC's own, or the CPU's that started the transfer). */
  #afterWrite = false;

  constructor(
    private readonly host: RecBusHost,
    private readonly timing: VicBusTiming,
  ) {}

  /** A transfer starts with the next access (the CPU's write to $DF01 or $FF00 was the last). */
  start(): void {
    this.#first = true;
    this.#afterWrite = true;
  }

  /** Advances the clock to the REC's next access (`isRead` of C64 memory) and past it. */
  cycle(isRead: boolean, lastByte: boolean): void {
    const cpu = this.host.cpu;
    if (isRead && this.#afterWrite) this.#readAfterWrite(lastByte);
    else {
      for (;;) {
        const now = cpu.cycles;
        const iv = this.timing.intervalAt(now);
        if (iv === undefined) break;
        const [from, last, stolenFrom] = iv;
        if (isRead && !this.#first && from === now && this.host.spriteZeroTurnsOnAt(from)) break;
        if (!isRead && now < stolenFrom - this.#writeMargin(from)) break;
        cpu.cycles = last + 1;
      }
    }
    this.#first = false;
    this.#afterWrite = !isRead;
    cpu.cycles++;
  }

  /**
   * How many clocks before the VIC's first stolen clock the REC's writes stop: before a bad line
   * they go on through the first two clocks of BA low; before the sprites' DMA through the first
   * only — the clock BA drops, one later in the line where sprite 0 turns on (a real 1750 writes 45
   * bytes in a line with all eight sprites on, where two clocks would give 46).
   */
  #writeMargin(from: number): number {
    return this.timing.spriteRunAt(from) && !this.host.spriteZeroTurnsOnAt(from) ? 2 : 1;
  }

  #readAfterWrite(lastByte: boolean): void {
    const cpu = this.host.cpu;
    const timing = this.timing;
    for (;;) {
      const now = cpu.cycles;
      const cur = timing.intervalAt(now);
      if (cur !== undefined) {
        const [, last, stolenFrom] = cur;
        const end = timing.runEnd(last, now);
        if (now < stolenFrom && !this.#first) {
          if (lastByte) return;
          if (end + 1 - now <= SWAP_READ_HOLD_MAX) {
            cpu.cycles = stolenFrom - 1; // held: the data of the warning's last clock
            return;
          }
        }
        cpu.cycles = end + 1;
        continue;
      }
      const next = timing.intervalAt(now + 1);
      if (next === undefined || next[0] !== now + 1) return;
      cpu.cycles = timing.runEnd(next[1], now) + 1;
    }
  }
}
