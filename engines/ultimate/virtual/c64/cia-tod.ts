// The time-of-day clock of a 6526 CIA: BCD tenths, seconds, minutes and hours (12-hour with a PM
// flag), counted from the 50/60 Hz power-line input, with an alarm, the read latch, and the
// stop-on-hours-write / start-on-tenths-write rule.
//
// The 10 Hz divider is a 3-bit ring counter stepped by each power-line tick (six states); it
// matches at the 5th state with CRA bit 7 set (50 Hz input) or the 6th with it clear (60 Hz), and
// the tenths advance on the tick after a match (VICE's ciacore.c documents the ring). Writing
// the hours stops the clock and clears the divider; writing the tenths starts it again. Reading
// the hours freezes what the registers show (the clock keeps running) until the tenths are read.
// The power line of a PAL C64 is 50 Hz, of an NTSC one 60 Hz; ticks are evenly spaced here.

export class CiaTod {
  /** tenths, seconds, minutes, hours (bit 7 = PM) */
  readonly time = new Uint8Array(4);
  readonly alarm = new Uint8Array(4);
  private readonly latch = new Uint8Array(4);
  private latched = false;
  private stopped = true;
  private ring = 0;
  /** Power-line ticks since reset (to place the next one without drift). */
  private ticks = 0;
  /** The clock (cycle index) of the next power-line tick. */
  nextTick = 0;

  constructor(
    private readonly cyclesPerSecond: number,
    private readonly powerHz: number,
    /** Called when the time becomes equal to the alarm (the ICR's TOD flag). */
    private readonly onAlarm: () => void,
  ) {}

  reset(now: number): void {
    this.time.fill(0);
    this.time[3] = 1;
    this.alarm.fill(0);
    this.latched = false;
    this.stopped = true;
    this.ring = 0;
    this.ticks = 0;
    this.start = now;
    this.nextTick = now + this.period(1);
  }

  private start = 0;
  private period(k: number): number {
    return Math.round((k * this.cyclesPerSecond) / this.powerHz);
  }

  /** One power-line tick at `this.nextTick`; `fiftyHz` is CRA bit 7. */
  tick(fiftyHz: boolean): void {
    this.ticks++;
    this.nextTick = this.start + this.period(this.ticks + 1);
    if (this.stopped) return;
    if (this.ring !== (fiftyHz ? 4 : 5)) {
      this.ring = this.ring >= 5 ? 0 : this.ring + 1;
      return;
    }
    this.ring = 0;
    this.advance();
    this.checkAlarm();
  }

  private advance(): void {
    const t = this.time;
    let ts = (t[0]! + 1) & 0x0f;
    if (ts !== 10) {
      t[0] = ts;
      return;
    }
    ts = 0;
    t[0] = 0;
    let sl = (t[1]! & 0x0f) + 1;
    let sh = (t[1]! >> 4) & 0x07;
    if (sl === 10) {
      sl = 0;
      sh = (sh + 1) & 7;
    }
    let carryMin = false;
    if (sh === 6) {
      sh = 0;
      carryMin = true;
    }
    t[1] = (sh << 4) | (sl & 0x0f);
    if (!carryMin) return;
    let ml = (t[2]! & 0x0f) + 1;
    let mh = (t[2]! >> 4) & 0x07;
    if (ml === 10) {
      ml = 0;
      mh = (mh + 1) & 7;
    }
    let carryHour = false;
    if (mh === 6) {
      mh = 0;
      carryHour = true;
    }
    t[2] = (mh << 4) | (ml & 0x0f);
    if (!carryHour) return;
    let hl = t[3]! & 0x0f;
    let hh = (t[3]! >> 4) & 0x01;
    let pm = t[3]! & 0x80;
    if ((hh === 1 && hl === 2) || (hh === 0 && hl === 9)) {
      // 09 → 10 and 12 → 01
      hl = hh;
      hh ^= 1;
    } else {
      hl = (hl + 1) & 0x0f;
      if (hh === 1 && hl === 2) pm ^= 0x80; // 11 → 12 flips AM/PM
    }
    t[3] = pm | (hh << 4) | hl;
  }

  private checkAlarm(): void {
    const t = this.time;
    const a = this.alarm;
    if (t[0] === a[0] && t[1] === a[1] && t[2] === a[2] && t[3] === a[3]) this.onAlarm();
  }

  /** A read of register 8+i (0 tenths … 3 hours); `sideEffects` false for the debugger. */
  read(i: number, sideEffects: boolean): number {
    const src = this.latched ? this.latch : this.time;
    const v = src[i]!;
    if (sideEffects) {
      if (i === 3 && !this.latched) {
        this.latch.set(this.time);
        this.latched = true;
      } else if (i === 0) this.latched = false;
    }
    return v;
  }

  /** A write of register 8+i; `setAlarm` is CRB bit 7. */
  write(i: number, value: number, setAlarm: boolean): void {
    let v = value;
    if (i === 3) {
      v &= 0x9f;
      if (!setAlarm && (v & 0x1f) === 0x12) v ^= 0x80; // writing 12 flips AM/PM
    } else if (i === 0) v &= 0x0f;
    else v &= 0x7f;
    const target = setAlarm ? this.alarm : this.time;
    if (!setAlarm) {
      if (i === 3) this.stopped = true;
      else if (i === 0 && this.stopped) {
        this.stopped = false;
        this.ring = 0;
      }
    }
    if (target[i] === v) return;
    target[i] = v;
    this.checkAlarm();
  }
}
