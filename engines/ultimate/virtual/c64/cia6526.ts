// The 6526 CIA, clock by clock: the two interval timers (one-shot and continuous, force load,
// timer B counting timer A's underflows), PB6/PB7 timer outputs, the serial shift register in
// output mode, the interrupt control register with its read/clear timing, and the time-of-day
// clock (cia-tod.ts). Both revisions: the original 6526 ("old") raises its interrupt output one
// clock after the flag is set and clears the flags at once when the ICR is read; the 6526A
// ("new", 8521) raises it in the same clock and clears the flags one clock later.
//
// The model is W. Lorenz's "A Software Model of the CIA6526" (as used by PC64, VirtualC64 and
// others): every internal delay of the chip is a bit in a pipeline word that shifts by one each
// clock; `feed` holds the bits that enter the pipelines each clock (e.g. "timer running"). A
// timer started by a control-register write decrements for the first time three clocks later
// (`STA $DC0E` then `LDA $DC04` reads the start value − 2, as on x64sc).
//
// Cost: the chip is only clocked when something reads or writes it or when it may change its
// interrupt output. While the pipelines are at a fixed point (timers counting or stopped, nothing
// pending) a run of clocks is skipped in one step (`advance`), so a running timer costs a few
// operations per underflow.

import { CiaSerial } from './cia-serial.js';
import { CiaTod } from './cia-tod.js';

/**
 * Which chip: the original 6526, the 6526A/8521 of later C64s, or an original 6526 of the batch
 * dated 4485, whose serial port flags a byte cut by a direction change in one more clock
 * (cia-serial.ts); in everything else it is a 6526.
 */
export type CiaModel = '6526' | '6526A' | '6526-4485';

/** The models `CiaModel` accepts, for validating options. */
export const CIA_MODELS: readonly CiaModel[] = ['6526', '6526A', '6526-4485'];

export interface CiaOptions {
  model?: CiaModel;
  /** CPU clocks per second (for the time-of-day clock's power-line input). PAL by default. */
  clockHz?: number;
  /** Power-line frequency driving TOD: 50 (PAL machines) or 60 (NTSC). */
  powerHz?: number;
}

// Pipeline word 1 (bits 0-31). A "0" bit is only ever set by a register access or from `feed`;
// the mask drops it after each shift, so each pipeline is independent.
const CA0 = 1 << 0;
const CA1 = 1 << 1;
const CA2 = 1 << 2;
const CA3 = 1 << 3;
const CB0 = 1 << 4;
const CB1 = 1 << 5;
const CB2 = 1 << 6;
const CB3 = 1 << 7;
const LA0 = 1 << 8;
const LA1 = 1 << 9;
const LA2 = 1 << 10;
const LB0 = 1 << 11;
const LB1 = 1 << 12;
const LB2 = 1 << 13;
const PB6LOW0 = 1 << 14;
const PB6LOW1 = 1 << 15;
const PB7LOW0 = 1 << 16;
const PB7LOW1 = 1 << 17;
const SETINT0 = 1 << 18;
const SETINT1 = 1 << 19;
const CLRINT0 = 1 << 20;
const ONESHOTA0 = 1 << 21;
const ONESHOTB0 = 1 << 22;
const READICR0 = 1 << 23;
const READICR1 = 1 << 24;
const CLRICR0 = 1 << 25;
const CLRICR1 = 1 << 26;
const CLRICR2 = 1 << 27;
const ACKICR0 = 1 << 28;
const ACKICR1 = 1 << 29;
const SETICR0 = 1 << 30;
const SETICR1 = 1 << 31;
const MASK1 = ~(
  CA0 |
  CB0 |
  LA0 |
  LB0 |
  PB6LOW0 |
  PB7LOW0 |
  SETINT0 |
  CLRINT0 |
  ONESHOTA0 |
  ONESHOTB0 |
  READICR0 |
  CLRICR0 |
  ACKICR0 |
  SETICR0
);
// Pipeline word 2.
const TODINT0 = 1 << 0;
const MASK2 = ~TODINT0 & 0x3;

const PAL_CLOCK = 985_248;

export class Cia6526 {
  readonly model: CiaModel;
  private readonly isNew: boolean;
  private pra = 0;
  private prb = 0;
  private ddra = 0;
  private ddrb = 0;
  private cra = 0;
  private crb = 0;
  private counterA = 0xffff;
  private counterB = 0xffff;
  private latchA = 0xffff;
  private latchB = 0xffff;
  private d = 0;
  private d2 = 0;
  private f = 0;
  private f2 = 0;
  private icr = 0;
  private imr = 0;
  /** New CIA: the ICR bits a read acknowledges (cleared one clock after the read). */
  private icrAck = 0;
  private intActive = false;
  private sdr = 0;
  private readonly serial: CiaSerial;
  /** PB6/PB7 as the timers drive them (toggle or one-clock pulse). */
  private pbTimerOut = 0;
  private pbToggle = 0;
  /** CNT pin: nothing drives it on a bare C64, the pull-up keeps it high. */
  private readonly cnt = true;
  private readonly tod: CiaTod;
  /** Clocks done: the next tick is clock index `clock`. */
  private clock = 0;
  /** The machine's cycle count at which it must call `catchUp` (or access the chip) next. */
  nextEvent = Number.POSITIVE_INFINITY;

  /**
   * `onInterrupt(active, at)` when the chip's interrupt output goes low (true) or high again,
   * `at` being the clock (0-based cycle index) of the change. `pins`, when given, turns what the
   * chip drives on its ports into the levels it reads back (CIA 1: keyboard and joysticks,
   * input-lines.ts); without it inputs read high.
   */
  constructor(
    private readonly onInterrupt: (active: boolean, at: number) => void,
    private readonly pins?: (a: number, b: number) => { a: number; b: number },
    options: CiaOptions = {},
  ) {
    const model = options.model ?? '6526';
    if (!CIA_MODELS.includes(model)) {
      throw new RangeError(`CIA model must be one of ${CIA_MODELS.map((m) => `'${m}'`).join(', ')}; got ${JSON.stringify(model)}`);
    }
    this.model = model;
    this.isNew = model === '6526A';
    this.serial = new CiaSerial(model === '6526-4485');
    this.tod = new CiaTod(options.clockHz ?? PAL_CLOCK, options.powerHz ?? 50, () => {
      this.d2 |= TODINT0;
    });
  }

  /**
   * Port A's pins as a read of register 0 at `now` gives them (the timers do not drive port A),
   * without the read's switch and its object: the VIC asks for its bank at every half-cycle it
   * streams. The chip is clocked up to `now` as a read would (its interrupt line follows).
   */
  portAPins(now: number): number {
    this.advance(now);
    const a = (this.pra | ~this.ddra) & 0xff;
    return this.pins ? this.pins(a, (this.prb | ~this.ddrb) & 0xff).a : a;
  }

  #portPins(): { a: number; b: number } {
    const a = (this.pra | ~this.ddra) & 0xff;
    let b = (this.prb | ~this.ddrb) & 0xff;
    const p = this.pins ? this.pins(a, b) : { a, b };
    // Timer outputs override PB6/PB7 when CRA/CRB bit 1 selects them.
    if (this.cra & 0x02) b = (p.b & ~0x40) | (this.pbTimerOut & 0x40);
    else b = p.b;
    if (this.crb & 0x02) b = (b & ~0x80) | (this.pbTimerOut & 0x80);
    return { a: p.a, b };
  }

  /** Power-on state; `now` is the machine's cycle count. */
  reset(now = 0): void {
    this.pra = this.prb = this.ddra = this.ddrb = 0;
    this.cra = this.crb = 0;
    this.counterA = this.counterB = 0xffff;
    this.latchA = this.latchB = 0xffff;
    this.d = this.d2 = this.f = this.f2 = 0;
    this.icr = this.imr = this.icrAck = 0;
    this.sdr = 0;
    this.serial.reset();
    this.pbTimerOut = 0;
    this.pbToggle = 0;
    if (this.intActive) {
      this.intActive = false;
      this.onInterrupt(false, now);
    }
    this.clock = now;
    this.tod.reset(now);
    this.scheduleNext();
  }

  /** Clock the chip up to the machine's cycle count `now` (ticks for every clock index < now). */
  catchUp(now: number): void {
    this.advance(now);
    this.scheduleNext();
  }

  private advance(to: number): void {
    while (this.clock < to) {
      if (this.isQuiet()) {
        let n = to - this.clock;
        if (this.f & CA0) n = Math.min(n, this.counterA - 1);
        if (this.f & CB0) n = Math.min(n, this.counterB - 1);
        n = Math.min(n, this.tod.nextTick - this.clock);
        if (n > 0) {
          if (this.f & CA0) this.counterA -= n;
          if (this.f & CB0) this.counterB -= n;
          this.clock += n;
          continue;
        }
      }
      this.tick();
    }
  }

  /** The pipelines are at a fixed point: clocks only decrement the running counters. */
  private isQuiet(): boolean {
    return (((this.d << 1) & MASK1) | this.f) === this.d && (((this.d2 << 1) & MASK2) | this.f2) === this.d2 && this.serial.isQuiet();
  }

  private scheduleNext(): void {
    if (!this.isQuiet()) {
      this.nextEvent = this.clock + 1;
      return;
    }
    let n = this.tod.nextTick - this.clock + 1;
    if (this.f & CA0) n = Math.min(n, this.counterA);
    if (this.f & CB0) n = Math.min(n, this.counterB);
    this.nextEvent = this.clock + Math.max(1, n);
  }

  /** One clock (index `this.clock`). */
  private tick(): void {
    const now = this.clock;
    if (now >= this.tod.nextTick) this.tod.tick((this.cra & 0x80) !== 0);
    let d = this.d;
    const d2 = this.d2;

    // Timer A: decrement, underflow, one-shot stop, reload.
    if (d & CA3) this.counterA = (this.counterA - 1) & 0xffff;
    const aOut = this.counterA === 0 && (d & CA2) !== 0;
    if (aOut) {
      this.icrAck &= ~0x01;
      if ((d | this.f) & ONESHOTA0) {
        this.cra &= ~0x01;
        d &= ~(CA2 | CA1 | CA0);
        this.f &= ~CA0;
      }
      // Timer B counting A's underflows (CRB bits 6-5 = 10, or 11 with CNT high).
      if ((this.crb & 0x61) === 0x41 || ((this.crb & 0x61) === 0x61 && this.cnt)) d |= CB1;
      d |= LA1;
    }
    if (d & LA1) {
      this.counterA = this.latchA;
      d &= ~CA2;
    }

    // Timer B.
    if (d & CB3) this.counterB = (this.counterB - 1) & 0xffff;
    const bOut = this.counterB === 0 && (d & CB2) !== 0;
    if (bOut) {
      this.icrAck &= ~0x02;
      if ((d | this.f) & ONESHOTB0) {
        this.crb &= ~0x01;
        d &= ~(CB2 | CB1 | CB0);
        this.f &= ~CB0;
      }
      d |= LB1;
    }
    if (d & LB1) {
      this.counterB = this.latchB;
      d &= ~CB2;
    }

    // Serial shift register, output mode: timer A's underflows clock it (cia-serial.ts).
    const spFlag = this.serial.tick(this.sdr, aOut && (this.cra & 0x40) !== 0);

    // PB6/PB7: toggle, or a one-clock high pulse.
    if (aOut) {
      this.pbToggle ^= 0x40;
      if (this.cra & 0x02) {
        if ((this.cra & 0x04) === 0) {
          this.pbTimerOut |= 0x40;
          d |= PB6LOW0;
          d &= ~PB6LOW1;
        } else this.pbTimerOut ^= 0x40;
      }
    }
    if (bOut) {
      this.pbToggle ^= 0x80;
      if (this.crb & 0x02) {
        if ((this.crb & 0x04) === 0) {
          this.pbTimerOut |= 0x80;
          d |= PB7LOW0;
          d &= ~PB7LOW1;
        } else this.pbTimerOut ^= 0x80;
      }
    }
    if (d & PB6LOW1) this.pbTimerOut &= ~0x40;
    if (d & PB7LOW1) this.pbTimerOut &= ~0x80;

    // Interrupt control.
    if (aOut) this.icr |= 0x01;
    // The old chip's "timer B bug": an ICR read in this very clock hides B's flag.
    if (bOut && (this.isNew || (d & READICR0) === 0)) this.icr |= 0x02;
    if ((aOut && this.imr & 0x01) || (bOut && this.imr & 0x02)) d = this.raise(d);
    if (d2 & TODINT0) {
      this.icr |= 0x04;
      if (this.imr & 0x04) d |= SETINT0 | SETICR0;
    }
    if (spFlag) {
      this.icr |= 0x08;
      if (this.imr & 0x08) d = this.raise(d);
    }
    if (d & (CLRICR1 | ACKICR1 | SETICR1 | SETINT1 | CLRINT0)) {
      if (d & CLRICR1) this.icr &= 0x7f;
      if (d & ACKICR1) this.icr &= ~this.icrAck;
      if (d & SETICR1) this.icr |= 0x80;
      if (d & SETINT1 && !this.intActive) {
        this.intActive = true;
        this.onInterrupt(true, now);
      }
      if (d & CLRINT0 && this.intActive) {
        this.intActive = false;
        this.onInterrupt(false, now);
      }
    }

    this.d = ((d << 1) & MASK1) | this.f;
    this.d2 = ((d2 << 1) & MASK2) | this.f2;
    this.clock = now + 1;
  }

  /** A timer underflow with its mask bit set: the old chip pulls the line one clock later. */
  private raise(d: number): number {
    if (!this.isNew) return d | SETINT0 | SETICR0;
    return d & READICR0 ? d | SETINT0 | SETICR0 : d | SETINT1 | SETICR1;
  }

  /** A read at the machine's cycle count `now` (this access is clock `now - 1`). */
  read(reg: number, now: number, sideEffects: boolean): number {
    this.advance(now);
    let v: number;
    switch (reg & 0x0f) {
      case 0x00:
        v = this.#portPins().a;
        break;
      case 0x01:
        v = this.#portPins().b;
        break;
      case 0x02:
        v = this.ddra;
        break;
      case 0x03:
        v = this.ddrb;
        break;
      case 0x04:
        v = this.counterA & 0xff;
        break;
      case 0x05:
        v = this.counterA >> 8;
        break;
      case 0x06:
        v = this.counterB & 0xff;
        break;
      case 0x07:
        v = this.counterB >> 8;
        break;
      case 0x08:
      case 0x09:
      case 0x0a:
      case 0x0b:
        v = this.tod.read((reg & 0x0f) - 8, sideEffects);
        break;
      case 0x0c:
        v = this.sdr;
        break;
      case 0x0d:
        v = this.readIcr(sideEffects);
        break;
      case 0x0e:
        v = this.cra & ~0x10;
        break;
      default:
        v = this.crb & ~0x10;
        break;
    }
    if (sideEffects) this.scheduleNext();
    return v;
  }

  private readIcr(sideEffects: boolean): number {
    let d = this.d;
    if (this.isNew && d & SETINT1 && this.icr & 0x1f) {
      if (!sideEffects) return this.icr | 0x80;
      this.icr |= 0x80;
    }
    const v = this.icr;
    if (!sideEffects) return v;
    if (this.intActive) d |= CLRINT0;
    d &= ~(SETINT0 | SETINT1);
    if (this.isNew) {
      d |= CLRICR0 | ACKICR0;
      this.icrAck = this.icr;
    } else {
      d |= CLRICR0;
      this.icr &= 0x80;
    }
    this.d = d | READICR0;
    return v;
  }

  /** A write at the machine's cycle count `now` (this access is clock `now - 1`). */
  write(reg: number, value: number, now: number): void {
    this.advance(now);
    switch (reg & 0x0f) {
      case 0x00:
        this.pra = value;
        break;
      case 0x01:
        this.prb = value;
        break;
      case 0x02:
        this.ddra = value;
        break;
      case 0x03:
        this.ddrb = value;
        break;
      case 0x04:
        this.latchA = (this.latchA & 0xff00) | value;
        if (this.d & LA2) this.counterA = (this.counterA & 0xff00) | value;
        break;
      case 0x05:
        this.latchA = (this.latchA & 0x00ff) | (value << 8);
        if (this.d & LA2) this.counterA = (this.counterA & 0x00ff) | (value << 8);
        if ((this.cra & 0x01) === 0) this.d |= LA0; // a stopped timer loads the latch
        break;
      case 0x06:
        this.latchB = (this.latchB & 0xff00) | value;
        if (this.d & LB2) this.counterB = (this.counterB & 0xff00) | value;
        break;
      case 0x07:
        this.latchB = (this.latchB & 0x00ff) | (value << 8);
        if (this.d & LB2) this.counterB = (this.counterB & 0x00ff) | (value << 8);
        if ((this.crb & 0x01) === 0) this.d |= LB0;
        break;
      case 0x08:
      case 0x09:
      case 0x0a:
      case 0x0b:
        this.tod.write((reg & 0x0f) - 8, value, (this.crb & 0x80) !== 0);
        break;
      case 0x0c:
        this.sdr = value;
        if (this.cra & 0x40) this.serial.written();
        break;
      case 0x0d:
        this.writeIcr(value);
        break;
      case 0x0e:
        this.writeCra(value);
        break;
      default:
        this.writeCrb(value);
        break;
    }
    this.scheduleNext();
  }

  private writeIcr(value: number): void {
    if (value & 0x80) this.imr |= value & 0x1f;
    else this.imr &= ~(value & 0x1f);
    if (this.imr & this.icr & 0x1f && !this.intActive) {
      if (this.isNew) {
        if ((this.d & READICR1) === 0) this.d |= SETINT1 | SETICR1;
      } else this.d |= SETINT0 | SETICR0;
    } else if (this.d & CLRICR2 && !this.isNew) {
      // An ICR read in the clock before: the old chip drops the interrupt it was about to raise.
      this.d &= ~(SETINT1 | SETICR1);
    }
  }

  private writeCra(value: number): void {
    let d = this.d;
    if (value & 0x01) {
      d |= CA1 | CA0;
      this.f |= CA0;
      if ((this.cra & 0x01) === 0) this.pbToggle |= 0x40; // the toggle output starts high
    } else {
      d &= ~(CA1 | CA0);
      this.f &= ~CA0;
    }
    if (value & 0x02) {
      if ((value & 0x04) === 0) {
        if ((d & PB6LOW1) === 0) this.pbTimerOut &= ~0x40;
        else this.pbTimerOut |= 0x40;
      } else this.pbTimerOut = (this.pbTimerOut & ~0x40) | (this.pbToggle & 0x40);
    }
    if (value & 0x08) this.f |= ONESHOTA0;
    else this.f &= ~ONESHOTA0;
    if (value & 0x10) d |= LA0;
    if (value & 0x20) {
      // counting CNT edges: nothing drives CNT here, so the timer does not count
      d &= ~(CA1 | CA0);
      this.f &= ~CA0;
    }
    if ((value ^ this.cra) & 0x40) {
      this.serial.changeDirection((value & 0x40) !== 0);
    }
    this.d = d;
    this.cra = value;
  }

  private writeCrb(value: number): void {
    let d = this.d;
    if (value & 0x01) {
      d |= CB1 | CB0;
      this.f |= CB0;
      if ((this.crb & 0x01) === 0) this.pbToggle |= 0x80;
    } else {
      d &= ~(CB1 | CB0);
      this.f &= ~CB0;
    }
    if (value & 0x02) {
      if ((value & 0x04) === 0) {
        if ((d & PB7LOW1) === 0) this.pbTimerOut &= ~0x80;
        else this.pbTimerOut |= 0x80;
      } else this.pbTimerOut = (this.pbTimerOut & ~0x80) | (this.pbToggle & 0x80);
    }
    if (value & 0x08) this.f |= ONESHOTB0;
    else this.f &= ~ONESHOTB0;
    if (value & 0x10) d |= LB0;
    if (value & 0x60) {
      // counting CNT or timer A: not the clock
      d &= ~(CB1 | CB0);
      this.f &= ~CB0;
    }
    this.d = d;
    this.crb = value;
  }
}
