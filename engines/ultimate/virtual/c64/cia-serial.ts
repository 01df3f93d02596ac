// The serial shift register of a 6526 CIA in output mode (CRA bit 6 set), clock by clock.
//
// Timer A's underflows clock it: every underflow toggles the CNT output, and the data bit goes
// out on the falling half, so a byte takes 16 underflows. The byte written to SDR moves into the
// shifter two clocks after the write, and an underflow in that same clock already shifts it
// (timer A at 3, started just before the write); a byte written while another is being shifted
// waits and follows without a gap. The SP interrupt flag is set two clocks after the last bit left, and a
// change of the serial direction in the middle of a byte can flag it too. This follows VICE's
// model (ciacore.c, measured on real CIAs by the cia-sdr-icr tests of VICE's testbench): events
// are bits in a delay word shifted once a clock. Input mode (CNT driven from outside) is not
// modelled: nothing drives CNT on a bare C64.

// Each event group counts down to its "…0" stage, when it acts (then moves on into the past).
const TOGGLE_CNT2 = 0x0001;
const TOGGLE_CNT0 = 0x0004;
const NOGGLE_CNT2 = 0x0010;
const NOGGLE_CNT0 = 0x0040;
const SET_IRQ3 = 0x0100;
const SET_IRQ0 = 0x0800;
const CNT0 = 0x1000;
const CNT1 = 0x2000;
const CNT2 = 0x4000;
const CNT_ALL = 0xf000;
const SET0 = 0x80000;
/** Bits that a shift would carry into the next group: cleared after each shift. */
const CLEAR = NOGGLE_CNT2 | SET_IRQ3 | CNT0 | 0x10000 | 0x100000;
/** Pending events (CNT history aside). */
const ACTIVE = 0x000fff | 0x0f0000;

export class CiaSerial {
  /**
   * `batch4485`: the 6526s of the batch dated 4485 (week 44 of 1985) judge "in the middle of a
   * pulse" over three clocks of CNT history where others look at two (below, `changeDirection`).
   */
  constructor(private readonly batch4485 = false) {}

  /** Half-bits left to shift (16 per byte), 0 when idle. */
  private bits = 0;
  private shifter = 0;
  /** A byte written to SDR waits for the one being shifted. */
  private pending = false;
  private cntHigh = true;
  private delay = CNT_ALL;
  /** Set by `changeDirection` when a byte cut short must still be flagged on the way back. */
  private forceFinish = false;

  reset(): void {
    this.bits = 0;
    this.shifter = 0;
    this.pending = false;
    this.cntHigh = true;
    this.delay = CNT_ALL;
    this.forceFinish = false;
  }

  /** No event pending and CNT steady: clocks change nothing. */
  isQuiet(): boolean {
    return (this.delay & ACTIVE) === 0 && (this.delay & CNT_ALL) === (this.cntHigh ? CNT_ALL : 0);
  }

  /** SDR was written (output mode): the byte reaches the shifter two clocks later. */
  written(): void {
    this.delay |= SET0 >> 1;
  }

  /**
   * One clock: act on the events due, then age the delay word. Returns true when the SP
   * interrupt flag must be set in this clock. `sdr` is the data register's value; `underflow`
   * says timer A underflowed in this clock (output mode).
   */
  tick(sdr: number, underflow: boolean): boolean {
    let d = this.delay;
    let flag = false;
    let feed = 0;
    if (d & SET0) {
      if (this.bits === 0) {
        this.bits = 16;
        this.shifter = sdr << 1;
      } else if (this.bits === 1) {
        this.shifter |= sdr;
        this.bits = 17;
      } else this.pending = true;
    }
    // Timer A's underflow clocks the shifter when a byte is in it or waiting — one that the
    // load above put there in this very clock included (timer A at 3 after the SDR write).
    if (underflow && (this.bits !== 0 || this.pending)) {
      // Pulses too close together (a timer at 0) are not seen as a new edge.
      d |= d & ((TOGGLE_CNT0 | NOGGLE_CNT0) >> 1) ? NOGGLE_CNT2 : TOGGLE_CNT2;
    }
    if (d & TOGGLE_CNT0) {
      if (this.bits !== 0 && (--this.bits & 1) === 1) {
        this.cntHigh = false; // the bit is on SP, CNT falls
        if (this.bits === 1) {
          feed |= SET_IRQ3 << 1; // the flag two clocks from now
          if (this.pending) {
            this.shifter |= sdr;
            this.pending = false;
            this.bits = 17;
          }
        }
      } else {
        this.shifter = (this.shifter << 1) & 0x1ffff;
        this.cntHigh = true;
      }
    }
    if (d & SET_IRQ0) flag = true;
    let next = ((d | feed) << 1) & ~CLEAR;
    if (this.cntHigh) next |= CNT0;
    this.delay = next;
    return flag;
  }

  /** CRA bit 6 changes (to output when `toOutput`): the shifter stops and may flag SP. */
  changeDirection(toOutput: boolean): void {
    if ((this.bits > 1 && this.bits < 15) || (this.bits === 15 && (this.delay & CNT2) === 0)) {
      this.delay |= SET_IRQ3 << 1;
    }
    if (!toOutput) {
      // A byte cut while CNT has not been high for the last two clocks (three on the 4485
      // batch) is flagged when the port turns back to output. On the common chips the SDR flag
      // of a port turned around one clock after CNT rose therefore misses for that one clock;
      // the 4485 batch flags it (VICE's cia-sdr-icr tests, measured on both kinds).
      const wanted = this.batch4485 ? CNT0 | CNT1 | CNT2 : CNT1 | CNT2;
      let finish = (this.delay & wanted) !== wanted;
      if (!finish && this.bits !== 2 && (this.delay & (TOGGLE_CNT2 | (TOGGLE_CNT2 << 1))) === 0 && this.delay & TOGGLE_CNT0) {
        finish = true;
      }
      this.forceFinish = finish;
    } else {
      if (!this.cntHigh && this.bits !== 0) this.shifter = (this.shifter << 1) & 0x1ffff;
      if (this.forceFinish) {
        this.delay |= SET_IRQ3 << 1;
        this.forceFinish = false;
      }
    }
    this.bits = 0;
    this.pending = false;
    this.delay &= ~0x00ff;
    this.cntHigh = true;
  }
}
