// A minimal 6526 CIA: the two interval timers (counting clock cycles), the interrupt control
// register, and ports that read back their outputs with inputs high (nothing pressed, nothing
// plugged in). Enough for the KERNAL's 60 Hz interrupt (CIA 1 timer A) and programs that time
// with the timers. A timer started by a write to its control register begins counting two clocks
// after the write, as the chip's count pipeline does (W. Lorenz, "A Software Model of the
// CIA6526"; VICE ciatimer COUNT2/COUNT3): the value written stays readable in the clock after the
// write. Not emulated: the time-of-day clock, the serial register, timer B counting timer A
// underflows or CNT edges, and the one-clock delay of a force-load into a running timer.
//
// The timers are computed from the cycle counter instead of being decremented every clock:
// `nextEvent` is the cycle of the next underflow and the machine calls `catchUp(now)` when the
// CPU gets there, so a running timer costs nothing between underflows.

interface Timer {
  latch: number;
  /** The counter when stopped; meaningless while running (derived from `underflowAt`). */
  stopped: number;
  running: boolean;
  oneShot: boolean;
  /** The cycle at which the counter next underflows (Infinity when stopped). */
  underflowAt: number;
  /** Before this cycle a just-started timer still shows `stopped` (the start delay). */
  countFrom: number;
}

function newTimer(): Timer {
  return { latch: 0xffff, stopped: 0xffff, running: false, oneShot: false, underflowAt: Number.POSITIVE_INFINITY, countFrom: 0 };
}

export class Cia6526 {
  private readonly regs = new Uint8Array(16);
  private readonly a = newTimer();
  private readonly b = newTimer();
  private icrData = 0;
  private icrMask = 0;
  private interrupting = false;
  /** The cycle of the next timer underflow (Infinity when both timers are stopped). */
  nextEvent = Number.POSITIVE_INFINITY;

  /**
   * `onInterrupt(true)` when the chip starts pulling its interrupt output low, false when it stops.
   * `pins`, when given, turns what the chip drives on its ports into the levels it reads back
   * (CIA 1: keyboard matrix and joysticks, input-lines.ts); without it inputs read high.
   */
  constructor(
    private readonly onInterrupt: (active: boolean) => void,
    private readonly pins?: (a: number, b: number) => { a: number; b: number },
    /** The chip revision ('6526' old, '6526A' new); the timing differences are not modelled yet. */
    readonly model: '6526' | '6526A' = '6526',
  ) {}

  #portPins(): { a: number; b: number } {
    const a = (this.regs[0]! | ~this.regs[2]!) & 0xff;
    const b = (this.regs[1]! | ~this.regs[3]!) & 0xff;
    return this.pins ? this.pins(a, b) : { a, b };
  }

  reset(): void {
    this.regs.fill(0);
    Object.assign(this.a, newTimer());
    Object.assign(this.b, newTimer());
    this.icrData = 0;
    this.icrMask = 0;
    this.setInterrupt(false);
    this.nextEvent = Number.POSITIVE_INFINITY;
  }

  /** Process every underflow up to cycle `now`. */
  catchUp(now: number): void {
    this.timerCatchUp(this.a, 0x01, now, 0x0e);
    this.timerCatchUp(this.b, 0x02, now, 0x0f);
    this.nextEvent = Math.min(this.a.underflowAt, this.b.underflowAt);
    this.updateInterrupt();
  }

  private timerCatchUp(t: Timer, flag: number, now: number, controlReg: number): void {
    if (!t.running || t.underflowAt > now) return;
    this.icrData |= flag;
    if (t.oneShot) {
      // one-shot: stop and reload from the latch
      t.running = false;
      t.stopped = t.latch;
      t.underflowAt = Number.POSITIVE_INFINITY;
      this.regs[controlReg]! &= ~0x01;
      return;
    }
    const period = t.latch + 1;
    const missed = Math.floor((now - t.underflowAt) / period);
    t.underflowAt += (missed + 1) * period;
  }

  private counter(t: Timer, now: number): number {
    if (!t.running || now < t.countFrom) return t.stopped;
    return Math.max(0, t.underflowAt - now - 1) & 0xffff;
  }

  /** A read at cycle `now`; with `sideEffects` false (debugger) the ICR is not acknowledged. */
  read(reg: number, now: number, sideEffects: boolean): number {
    switch (reg) {
      case 0x00:
        return this.#portPins().a; // port A: outputs as written, inputs high unless pulled low
      case 0x01:
        return this.#portPins().b;
      case 0x04:
        return this.counter(this.a, now) & 0xff;
      case 0x05:
        return this.counter(this.a, now) >> 8;
      case 0x06:
        return this.counter(this.b, now) & 0xff;
      case 0x07:
        return this.counter(this.b, now) >> 8;
      case 0x0d: {
        this.catchUp(now);
        const v = this.icrData | (this.interrupting ? 0x80 : 0);
        if (sideEffects) {
          this.icrData = 0;
          this.updateInterrupt();
        }
        return v;
      }
      default:
        return this.regs[reg]!;
    }
  }

  write(reg: number, value: number, now: number): void {
    this.catchUp(now);
    switch (reg) {
      case 0x04:
        this.a.latch = (this.a.latch & 0xff00) | value;
        break;
      case 0x05:
        this.writeLatchHigh(this.a, value, now);
        break;
      case 0x06:
        this.b.latch = (this.b.latch & 0xff00) | value;
        break;
      case 0x07:
        this.writeLatchHigh(this.b, value, now);
        break;
      case 0x0d:
        if (value & 0x80) this.icrMask |= value & 0x1f;
        else this.icrMask &= ~value & 0x1f;
        break;
      case 0x0e:
        this.writeControl(this.a, value, now);
        this.regs[reg] = value & ~0x10;
        break;
      case 0x0f:
        this.writeControl(this.b, value, now);
        this.regs[reg] = value & ~0x10;
        break;
      default:
        this.regs[reg] = value;
    }
    this.nextEvent = Math.min(this.a.underflowAt, this.b.underflowAt);
    this.updateInterrupt();
  }

  private writeLatchHigh(t: Timer, value: number, now: number): void {
    t.latch = (t.latch & 0x00ff) | (value << 8);
    if (!t.running) t.stopped = t.latch; // a stopped timer loads the latch when its high byte is written
    void now;
  }

  private writeControl(t: Timer, value: number, now: number): void {
    const current = this.counter(t, now);
    t.oneShot = (value & 0x08) !== 0;
    const load = (value & 0x10) !== 0 ? t.latch : current;
    const start = (value & 0x01) !== 0;
    if (start) {
      if (!t.running) {
        // Start delay: the first decrement is two clocks after this write.
        t.stopped = load;
        t.countFrom = now + 1;
        t.underflowAt = now + load + 2;
      } else if ((value & 0x10) !== 0) t.underflowAt = now + load + 1;
      t.running = true;
    } else {
      t.running = false;
      t.stopped = load;
      t.underflowAt = Number.POSITIVE_INFINITY;
    }
  }

  private updateInterrupt(): void {
    this.setInterrupt((this.icrData & this.icrMask) !== 0);
  }

  private setInterrupt(active: boolean): void {
    if (active === this.interrupting) return;
    this.interrupting = active;
    this.onInterrupt(active);
  }
}
