// The 6510's on-chip I/O port ($00 direction, $01 data) as the C64 wires it.
//
// An output pin drives what was written. An input pin reads what the board puts on it: pull-ups
// on bits 0-2 (LORAM, HIRAM, CHAREN) and 4 (cassette sense, no button pressed); bit 5 (cassette
// motor) reads 0 as an input (the motor driver pulls it low); bit 3 (cassette write) keeps the
// level it last drove. Bits 6 and 7 are not connected: switched to input they keep the charge of
// the last value driven for a while (about 350 000 clocks on a C64, as VICE measures it) and then
// read 0. The PLA sees (data | ~direction) for the banking lines.

/** Clocks an unconnected input (bit 6, 7) keeps its last driven level. */
export const PORT_FALL_OFF_CYCLES = 350_000;

const PULL_UPS = 0x17;

export class CpuPort {
  direction = 0;
  data = 0;
  /** What the output drivers last put on each pin (kept when a pin turns to input). */
  private driven = 0;
  /** Charge on the floating bits 6/7 and the clock until which it holds. */
  private floatingBits = 0;
  private floatingUntil6 = 0;
  private floatingUntil7 = 0;

  reset(): void {
    this.direction = 0;
    this.data = 0;
    this.driven = 0;
    this.floatingBits = 0;
  }

  /** The value a read of $01 returns at clock `now`. */
  read(now: number): number {
    const dir = this.direction;
    let v = (this.data | ~dir) & (this.driven | PULL_UPS);
    if ((dir & 0x20) === 0) v &= ~0x20;
    if ((dir & 0x40) === 0) v = (v & ~0x40) | (now <= this.floatingUntil6 ? this.floatingBits & 0x40 : 0);
    if ((dir & 0x80) === 0) v = (v & ~0x80) | (now <= this.floatingUntil7 ? this.floatingBits & 0x80 : 0);
    return v & 0xff;
  }

  /** A write of $00 (`addr` 0) or $01 at clock `now`. */
  write(addr: number, value: number, now: number): void {
    if (addr === 0) {
      // An output bit 6/7 turned input keeps its charge for a while.
      const turnedInput = this.direction & ~value;
      if (turnedInput & 0x40) {
        this.floatingBits = (this.floatingBits & ~0x40) | (this.data & 0x40);
        this.floatingUntil6 = now + PORT_FALL_OFF_CYCLES;
      }
      if (turnedInput & 0x80) {
        this.floatingBits = (this.floatingBits & ~0x80) | (this.data & 0x80);
        this.floatingUntil7 = now + PORT_FALL_OFF_CYCLES;
      }
      this.direction = value;
    } else {
      // Writing charges the floating bits that are outputs.
      if (this.direction & 0x40) {
        this.floatingBits = (this.floatingBits & ~0x40) | (value & 0x40);
        this.floatingUntil6 = now + PORT_FALL_OFF_CYCLES;
      }
      if (this.direction & 0x80) {
        this.floatingBits = (this.floatingBits & ~0x80) | (value & 0x80);
        this.floatingUntil7 = now + PORT_FALL_OFF_CYCLES;
      }
      this.data = value;
    }
    this.driven = (this.driven & ~this.direction) | (this.data & this.direction);
  }

  /** LORAM, HIRAM, CHAREN as the PLA sees them (bits 0-2). */
  bankingLines(): number {
    return (this.data | ~this.direction) & 7;
  }
}
