// The clocks in which RDY held the 6510 (the VIC-II's BA low while the CPU wanted to read), as
// the CPU's interrupt logic sees them.
//
// The 6510 takes an interrupt at an instruction boundary when the line was low for two of the
// CPU's own clocks of the instruction (three after a taken branch that stays in its page): it
// samples the line during the second-to-last cycle. A held clock is not one of the CPU's own —
// its interrupt pipeline stands still while RDY is low — except that a line that goes low while
// the CPU is held is latched and counts as one clock when the CPU runs again. That is x64sc's
// rule (`irq_delay_cycles` counts CPU clocks, `maincpu_steal_cycles` adds one for an interrupt
// that arrived during the steal), and the real C64's, measured by VICE-testprogs
// interrupts/irqdma. One exception, again x64sc's: a hold during SEI's second cycle (or the
// opcode fetch after it) latches nothing, so an IRQ arriving then is not taken after the SEI.
//
// Only the last few holds matter: an interrupt that arrived before them has had at least one own
// clock (the retried read) after each, more than the three the poll ever needs.

const SLOTS = 4;

export class RdyHolds {
  /** First held clock of each recorded hold (a ring, `head` the most recent). */
  private readonly from = new Float64Array(SLOTS).fill(Number.NEGATIVE_INFINITY);
  /** The clock of the retried access that ended the hold (an own clock of the CPU). */
  private readonly retry = new Float64Array(SLOTS).fill(Number.NEGATIVE_INFINITY);
  /** 1 when an IRQ arriving inside the hold is latched (counts one clock), 0 during SEI. */
  private readonly latchesIrq = new Uint8Array(SLOTS);
  private head = 0;
  /** The retry clock of the most recent hold: the CPU's poll is exact without holds after it. */
  lastRetry = Number.NEGATIVE_INFINITY;

  reset(): void {
    this.from.fill(Number.NEGATIVE_INFINITY);
    this.retry.fill(Number.NEGATIVE_INFINITY);
    this.lastRetry = Number.NEGATIVE_INFINITY;
  }

  /** The CPU was held from clock `from` through `retry - 1` and repeats its access at `retry`. */
  record(from: number, retry: number, latchesIrq: boolean): void {
    if (from === this.lastRetry) {
      // Held again on the clock it was to retry: one longer hold.
      this.retry[this.head] = retry;
    } else {
      this.head = (this.head + 1) % SLOTS;
      this.from[this.head] = from;
      this.retry[this.head] = retry;
      this.latchesIrq[this.head] = latchesIrq ? 1 : 0;
    }
    this.lastRetry = retry;
  }

  /**
   * The clock of the `depth`-th last own clock of the CPU before `end` (exclusive): the poll
   * point. An interrupt that counts from this clock or earlier has been seen for `depth` clocks.
   */
  pollClock(end: number, depth: number): number {
    if (depth === Number.POSITIVE_INFINITY) return Number.NEGATIVE_INFINITY;
    let p = end - 1; // the last own clock: the instruction's final access
    let remaining = depth - 1;
    for (let n = 0, i = this.head; n < SLOTS; n++, i = (i + SLOTS - 1) % SLOTS) {
      const r = this.retry[i]!;
      if (r > p) continue;
      // Own clocks r..p, then the held clocks before r.
      if (remaining <= p - r) return p - remaining;
      remaining -= p - r + 1;
      p = this.from[i]! - 1;
    }
    return p - remaining;
  }

  /**
   * The own clock an interrupt that went low at clock `at` counts from: `at` itself, or for a
   * line that went low inside a hold the last own clock before it (the latched clock), or the
   * retry clock where the hold latches nothing (SEI; IRQ only — `nmi` latches always).
   */
  countsFrom(at: number, nmi: boolean): number {
    if (at >= this.lastRetry) return at;
    for (let n = 0, i = this.head; n < SLOTS; n++, i = (i + SLOTS - 1) % SLOTS) {
      const f = this.from[i]!;
      if (at >= this.retry[i]!) return at;
      if (at >= f) return nmi || this.latchesIrq[i] === 1 ? f - 1 : this.retry[i]!;
    }
    return at;
  }
}
