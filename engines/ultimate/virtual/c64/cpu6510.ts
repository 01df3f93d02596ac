// The 6510 CPU core of the virtual Ultimate 64 (an NMOS 6502 as far as instructions go).
//
// Every instruction is executed as the exact sequence of bus accesses the real chip performs,
// one access per clock: the operand fetches, the dummy reads of indexed modes (at the address
// before the page fix-up), the dummy read of the byte after a one-byte opcode, the double write
// of read-modify-write instructions, the stack dummy reads of JSR/RTS/RTI/PLA/PLP and the
// taken-branch fetches. Cycle counts are therefore not looked up in a table: they are the
// number of accesses, and the page-cross and branch penalties fall out of the access pattern.
// A jammed CPU executes nothing; the machine keeps its clock running with `jamCycle()`.
//
// Performance: one `switch` over the opcode with small helper methods that V8 inlines; no
// allocation per instruction or cycle. The bus is an interface with two methods; the machine
// (machine.ts) decides what an address means and whether it reports the cycle.
//
// RDY: when the VIC-II takes the bus the machine holds the CPU on a read (`hold`); the held clocks
// pass on `cycles` but are not the CPU's own, and the interrupt poll counts own clocks only
// (cpu-rdy-holds.ts).

import { RdyHolds } from './cpu-rdy-holds.js';

/** What the CPU sees of the rest of the machine: one call per clock cycle. */
export interface CpuBus {
  read(addr: number): number;
  write(addr: number, value: number): void;
  /**
   * Optional: bring the interrupt sources up to the current clock. Called inside a BRK/IRQ
   * entry, where an NMI edge that arrived by now takes over the vector.
   */
  syncInterrupts?(): void;
}

/** Status register bits (bit 5 is always 1 when P is pushed or read; B exists only on the stack). */
export const FLAG_C = 0x01;
export const FLAG_Z = 0x02;
export const FLAG_I = 0x04;
export const FLAG_D = 0x08;
export const FLAG_B = 0x10;
export const FLAG_U = 0x20;
export const FLAG_V = 0x40;
export const FLAG_N = 0x80;

/** Interrupt sources that can hold the (level-triggered, wired-OR) IRQ line low. */
export const IRQ_SOURCE_VIC = 0x01;
export const IRQ_SOURCE_CIA = 0x02;
export const IRQ_SOURCE_EXTERNAL = 0x04;

export class Cpu6510 {
  a = 0;
  x = 0;
  y = 0;
  sp = 0xfd;
  pc = 0;
  /** Clock cycles since construction (never reset, so it can time the raster and the stream). */
  cycles = 0;

  // The flags are kept apart (0 or 1) because they are set far more often than P is assembled.
  private fc = 0;
  private fz = 0;
  private fi = 1;
  private fd = 0;
  private fv = 0;
  private fn = 0;

  #irqLines = 0;
  /** The clock (0-based cycle index) from which the IRQ line has been low. */
  private irqAt = Number.NEGATIVE_INFINITY;
  /**
   * The clock from which the IRQ line is high again (after the last release). A poll that
   * happened while the line was still low takes the IRQ even if it was released since.
   */
  private irqReleasedAt = Number.NEGATIVE_INFINITY;
  /** The clock of the pending NMI edge. */
  private nmiAt = Number.NEGATIVE_INFINITY;
  /**
   * The last clock whose interrupt lines the previous instruction's poll saw: the 6502 samples
   * IRQ/NMI during an instruction's second-to-last cycle, so a line that goes low in the last
   * cycle waits for the next instruction. A taken branch without page crossing polls one cycle
   * earlier still (its third cycle has no poll).
   */
  private pollAt = Number.NEGATIVE_INFINITY;
  /** Set by a taken branch without page crossing: its poll is one cycle earlier. */
  private pollEarly = 0;
  /** The clocks RDY held the CPU lately: the poll counts the CPU's own clocks only. */
  private readonly holds = new RdyHolds();
  /**
   * The opcode whose execution a hold interrupts: the current instruction's after its opcode
   * fetch, the previous one's during the fetch (0 after an interrupt entry, as after BRK).
   */
  private lastOp = 0;
  /** Set on a falling edge of NMI (see `triggerNmi`); cleared when the NMI is taken. */
  nmiPending = false;
  /** True after a KIL/JAM opcode: only a reset starts the CPU again. */
  jammed = false;

  // CLI, SEI and PLP change I in their last cycle, after the interrupt poll: the poll that
  // follows them sees the old I. `pollIOverride` is the I value to use for the next poll, or -1.
  private pollIOverride = -1;

  constructor(private readonly bus: CpuBus) {}

  /** The status register as an 8-bit value (bit 5 set, B clear: B only exists on the stack). */
  get p(): number {
    return (this.fn << 7) | (this.fv << 6) | FLAG_U | (this.fd << 3) | (this.fi << 2) | (this.fz << 1) | this.fc;
  }

  set p(value: number) {
    this.fn = (value >> 7) & 1;
    this.fv = (value >> 6) & 1;
    this.fd = (value >> 3) & 1;
    this.fi = (value >> 2) & 1;
    this.fz = (value >> 1) & 1;
    this.fc = value & 1;
  }

  /** The 6502 reset sequence: 7 cycles (three fake stack pushes as reads), then PC from $FFFC. */
  reset(): void {
    this.jammed = false;
    this.nmiPending = false;
    this.pollIOverride = -1;
    this.pollAt = Number.NEGATIVE_INFINITY;
    this.holds.reset();
    this.lastOp = 0;
    this.rd(this.pc);
    this.rd(this.pc);
    this.rd(0x100 | this.sp);
    this.sp = (this.sp - 1) & 0xff;
    this.rd(0x100 | this.sp);
    this.sp = (this.sp - 1) & 0xff;
    this.rd(0x100 | this.sp);
    this.sp = (this.sp - 1) & 0xff;
    this.fi = 1;
    const lo = this.rd(0xfffc);
    this.pc = lo | (this.rd(0xfffd) << 8);
  }

  /**
   * Bitmask of IRQ_SOURCE_*: the IRQ line is low while any bit is set. Setting it directly makes
   * a new IRQ due at once (as if it had been low for long); `setIrqSource` says from which clock.
   */
  get irqLines(): number {
    return this.#irqLines;
  }
  set irqLines(value: number) {
    if (this.#irqLines === 0 && value !== 0) this.irqAt = Number.NEGATIVE_INFINITY;
    if (value === 0) this.irqReleasedAt = Number.NEGATIVE_INFINITY;
    this.#irqLines = value;
  }

  /** A source pulls the IRQ line low from clock `at` (0-based cycle index), or releases it. */
  setIrqSource(source: number, active: boolean, at: number): void {
    if (active) {
      if (this.#irqLines === 0) this.irqAt = at;
      this.#irqLines |= source;
    } else if (this.#irqLines !== 0) {
      this.#irqLines &= ~source;
      if (this.#irqLines === 0) this.irqReleasedAt = at;
    }
  }

  /** An NMI is edge-triggered: call this once per falling edge, with the clock of the edge. */
  triggerNmi(at = Number.NEGATIVE_INFINITY): void {
    if (!this.nmiPending) this.nmiAt = at;
    this.nmiPending = true;
  }

  /**
   * RDY held the CPU from clock `from` through `to` (0-based indices): its read is repeated at
   * `to + 1`. Called by the bus inside a read, while `cycles` is `from + 1`.
   */
  hold(from: number, to: number): void {
    this.cycles += to - from + 1;
    this.holds.record(from, to + 1, this.lastOp !== 0x78);
  }

  /** Advance one clock while jammed: the bus shows reads of $FFFF, as a halted NMOS 6502 does. */
  jamCycle(): void {
    this.rd(0xffff);
  }

  // --- bus access, one clock each --------------------------------------------------------------

  private rd(addr: number): number {
    this.cycles++;
    return this.bus.read(addr);
  }

  private wr(addr: number, value: number): void {
    this.cycles++;
    this.bus.write(addr, value);
  }

  private fetch(): number {
    const v = this.rd(this.pc);
    this.pc = (this.pc + 1) & 0xffff;
    return v;
  }

  private push(value: number): void {
    this.wr(0x100 | this.sp, value);
    this.sp = (this.sp - 1) & 0xff;
  }

  private pull(): number {
    this.sp = (this.sp + 1) & 0xff;
    return this.rd(0x100 | this.sp);
  }

  // --- effective addresses ---------------------------------------------------------------------

  private eaZp(): number {
    return this.fetch();
  }

  private eaZpIdx(idx: number): number {
    const base = this.fetch();
    this.rd(base); // the 6502 reads the unindexed zero-page address while it adds
    return (base + idx) & 0xff;
  }

  private eaAbs(): number {
    const lo = this.fetch();
    return lo | (this.fetch() << 8);
  }

  /** abs,X / abs,Y for reads: the extra (dummy) cycle only when the page is crossed. */
  private eaAbsIdxRead(idx: number): number {
    const lo = this.fetch();
    const hi = this.fetch() << 8;
    const sum = lo + idx;
    if (sum > 0xff) this.rd(hi | (sum & 0xff));
    return (hi + sum) & 0xffff;
  }

  /** abs,X / abs,Y for writes and read-modify-writes: the dummy read always happens. */
  private eaAbsIdxWrite(idx: number): number {
    const lo = this.fetch();
    const hi = this.fetch() << 8;
    const sum = lo + idx;
    this.rd(hi | (sum & 0xff));
    return (hi + sum) & 0xffff;
  }

  /** (zp,X) */
  private eaIzx(): number {
    const base = this.fetch();
    this.rd(base);
    const ptr = (base + this.x) & 0xff;
    const lo = this.rd(ptr);
    return lo | (this.rd((ptr + 1) & 0xff) << 8);
  }

  /** (zp),Y for reads: extra cycle on page cross. */
  private eaIzyRead(): number {
    const ptr = this.fetch();
    const lo = this.rd(ptr);
    const hi = this.rd((ptr + 1) & 0xff) << 8;
    const sum = lo + this.y;
    if (sum > 0xff) this.rd(hi | (sum & 0xff));
    return (hi + sum) & 0xffff;
  }

  /** (zp),Y for writes and read-modify-writes. */
  private eaIzyWrite(): number {
    const ptr = this.fetch();
    const lo = this.rd(ptr);
    const hi = this.rd((ptr + 1) & 0xff) << 8;
    const sum = lo + this.y;
    this.rd(hi | (sum & 0xff));
    return (hi + sum) & 0xffff;
  }

  // --- operations ------------------------------------------------------------------------------

  private nz(v: number): number {
    this.fz = v === 0 ? 1 : 0;
    this.fn = v >> 7;
    return v;
  }

  private adc(v: number): void {
    const a = this.a;
    const c = this.fc;
    if (this.fd === 0) {
      const sum = a + v + c;
      this.fc = sum > 0xff ? 1 : 0;
      this.fv = (~(a ^ v) & (a ^ sum) & 0x80) >> 7;
      this.a = this.nz(sum & 0xff);
      return;
    }
    // NMOS decimal mode: Z from the binary sum, N and V from the half-adjusted intermediate.
    let t = (a & 0x0f) + (v & 0x0f) + c;
    if (t > 0x09) t += 0x06;
    t = t <= 0x0f ? (t & 0x0f) + (a & 0xf0) + (v & 0xf0) : (t & 0x0f) + (a & 0xf0) + (v & 0xf0) + 0x10;
    this.fz = ((a + v + c) & 0xff) === 0 ? 1 : 0;
    this.fn = (t >> 7) & 1;
    this.fv = ((a ^ t) & 0x80) !== 0 && ((a ^ v) & 0x80) === 0 ? 1 : 0;
    if ((t & 0x1f0) > 0x90) t += 0x60;
    this.fc = (t & 0xff0) > 0xf0 ? 1 : 0;
    this.a = t & 0xff;
  }

  private sbc(v: number): void {
    const a = this.a;
    const borrow = 1 - this.fc;
    const diff = a - v - borrow;
    // All flags come from the binary subtraction, in decimal mode too (NMOS).
    this.fc = diff >= 0 ? 1 : 0;
    this.fv = ((a ^ v) & (a ^ diff) & 0x80) >> 7;
    this.nz(diff & 0xff);
    if (this.fd === 0) {
      this.a = diff & 0xff;
      return;
    }
    let lo = (a & 0x0f) - (v & 0x0f) - borrow;
    let t: number;
    if (lo & 0x10) {
      lo = (lo - 6) & 0x0f;
      t = lo | ((a & 0xf0) - (v & 0xf0) - 0x10);
    } else {
      t = (lo & 0x0f) | ((a & 0xf0) - (v & 0xf0));
    }
    if (t & 0x100) t -= 0x60;
    this.a = t & 0xff;
  }

  private cmp(reg: number, v: number): void {
    const d = reg - v;
    this.fc = d >= 0 ? 1 : 0;
    this.nz(d & 0xff);
  }

  private asl(v: number): number {
    this.fc = v >> 7;
    return this.nz((v << 1) & 0xff);
  }

  private lsr(v: number): number {
    this.fc = v & 1;
    return this.nz(v >> 1);
  }

  private rol(v: number): number {
    const r = ((v << 1) | this.fc) & 0xff;
    this.fc = v >> 7;
    return this.nz(r);
  }

  private ror(v: number): number {
    const r = (v >> 1) | (this.fc << 7);
    this.fc = v & 1;
    return this.nz(r);
  }

  private bit(v: number): void {
    this.fz = (this.a & v) === 0 ? 1 : 0;
    this.fn = v >> 7;
    this.fv = (v >> 6) & 1;
  }

  /** Read-modify-write: read, write the old value back (the NMOS dummy write), write the new. */
  private rmw(ea: number, kind: number): void {
    const v = this.rd(ea);
    this.wr(ea, v);
    let r: number;
    switch (kind) {
      case RMW_ASL:
        r = this.asl(v);
        break;
      case RMW_LSR:
        r = this.lsr(v);
        break;
      case RMW_ROL:
        r = this.rol(v);
        break;
      case RMW_ROR:
        r = this.ror(v);
        break;
      case RMW_INC:
        r = this.nz((v + 1) & 0xff);
        break;
      case RMW_DEC:
        r = this.nz((v - 1) & 0xff);
        break;
      // undocumented combinations: the shift/step, then an ALU operation on A
      case RMW_SLO:
        r = this.asl(v);
        this.a = this.nz(this.a | r);
        break;
      case RMW_RLA:
        r = this.rol(v);
        this.a = this.nz(this.a & r);
        break;
      case RMW_SRE:
        r = this.lsr(v);
        this.a = this.nz(this.a ^ r);
        break;
      case RMW_RRA:
        r = this.ror(v);
        this.adc(r);
        break;
      case RMW_DCP:
        r = (v - 1) & 0xff;
        this.cmp(this.a, r);
        break;
      default:
        /* RMW_ISC */ r = (v + 1) & 0xff;
        this.sbc(r);
        break;
    }
    this.wr(ea, r);
  }

  private branch(taken: boolean): void {
    const off = this.fetch();
    if (!taken) return;
    this.rd(this.pc); // the opcode fetch the taken branch throws away
    const target = (this.pc + ((off ^ 0x80) - 0x80)) & 0xffff;
    if ((target ^ this.pc) & 0xff00)
      this.rd((this.pc & 0xff00) | (target & 0xff)); // page fix-up
    else this.pollEarly = 1; // no poll in the third cycle: an interrupt waits one cycle more
    this.pc = target;
  }

  /** IRQ, NMI and BRK share the sequence; BRK pushes B=1 and has fetched its padding byte. */
  private interrupt(vector: number, brk: boolean): void {
    this.push(this.pc >> 8);
    this.push(this.pc & 0xff);
    // NMI hijack: an NMI arriving while BRK/IRQ pushes takes over the vector.
    if (vector !== 0xfffa) this.bus.syncInterrupts?.();
    let v = vector;
    if (this.nmiPending && vector !== 0xfffa && this.nmiAt <= this.cycles - 1) {
      this.nmiPending = false;
      v = 0xfffa;
    }
    this.push(this.p | (brk ? FLAG_B : 0));
    this.fi = 1;
    const lo = this.rd(v);
    this.pc = lo | (this.rd(v + 1) << 8);
  }

  /**
   * Stores of the SHA/SHX/SHY/TAS group: value & (high byte of the base + 1). On a page cross
   * the high byte of the address becomes that AND. When the VIC held the CPU (RDY low) on the
   * dummy read before the write, the "& (H+1)" drops off the stored value — not the address
   * (VICE-testprogs CPU/sha readme, verified on 6510 and 8500).
   */
  private storeHighAnd(base: number, idx: number, value: number, heldByRdy: boolean): void {
    const ea = (base + idx) & 0xffff;
    const anded = value & (((base >> 8) + 1) & 0xff);
    const addr = (base & 0xff) + idx > 0xff ? (anded << 8) | (ea & 0xff) : ea;
    this.wr(addr, heldByRdy ? value : anded);
  }

  private jam(opAddr: number): void {
    this.jammed = true;
    this.pc = opAddr;
  }

  /**
   * Take a pending interrupt if the line and the I flag allow it. Returns true when a 7-cycle
   * interrupt sequence ran instead of an instruction.
   */
  private pollInterrupts(): boolean {
    const override = this.pollIOverride;
    this.pollIOverride = -1;
    const seen = this.pollAt;
    if (this.nmiPending && this.holds.countsFrom(this.nmiAt, true) <= seen) {
      this.nmiPending = false;
      this.rd(this.pc);
      this.rd(this.pc);
      this.interrupt(0xfffa, false);
      this.pollAt = Number.NEGATIVE_INFINITY; // the handler's first instruction always runs
      this.lastOp = 0;
      return true;
    }
    const lowAtPoll = this.holds.countsFrom(this.irqAt, false) <= seen && (this.#irqLines !== 0 || this.irqReleasedAt > seen);
    if (lowAtPoll && (override === -1 ? this.fi : override) === 0) {
      this.rd(this.pc);
      this.rd(this.pc);
      this.interrupt(0xfffe, false);
      this.pollAt = Number.NEGATIVE_INFINITY;
      this.lastOp = 0;
      return true;
    }
    return false;
  }

  /**
   * Execute one instruction (or take one interrupt). Returns the clock cycles it took.
   * A jammed CPU does nothing here (see `jamCycle`).
   */
  step(): number {
    const start = this.cycles;
    if (this.jammed) return 0;
    if (
      (this.#irqLines !== 0 || this.irqReleasedAt > this.pollAt || this.nmiPending || this.pollIOverride !== -1) &&
      this.pollInterrupts()
    ) {
      return this.cycles - start;
    }
    const opAddr = this.pc;
    const op = this.fetch();
    this.lastOp = op;
    let t: number;
    switch (op) {
      // ---- loads
      case 0xa9:
        this.a = this.nz(this.fetch());
        break;
      case 0xa5:
        this.a = this.nz(this.rd(this.eaZp()));
        break;
      case 0xb5:
        this.a = this.nz(this.rd(this.eaZpIdx(this.x)));
        break;
      case 0xad:
        this.a = this.nz(this.rd(this.eaAbs()));
        break;
      case 0xbd:
        this.a = this.nz(this.rd(this.eaAbsIdxRead(this.x)));
        break;
      case 0xb9:
        this.a = this.nz(this.rd(this.eaAbsIdxRead(this.y)));
        break;
      case 0xa1:
        this.a = this.nz(this.rd(this.eaIzx()));
        break;
      case 0xb1:
        this.a = this.nz(this.rd(this.eaIzyRead()));
        break;
      case 0xa2:
        this.x = this.nz(this.fetch());
        break;
      case 0xa6:
        this.x = this.nz(this.rd(this.eaZp()));
        break;
      case 0xb6:
        this.x = this.nz(this.rd(this.eaZpIdx(this.y)));
        break;
      case 0xae:
        this.x = this.nz(this.rd(this.eaAbs()));
        break;
      case 0xbe:
        this.x = this.nz(this.rd(this.eaAbsIdxRead(this.y)));
        break;
      case 0xa0:
        this.y = this.nz(this.fetch());
        break;
      case 0xa4:
        this.y = this.nz(this.rd(this.eaZp()));
        break;
      case 0xb4:
        this.y = this.nz(this.rd(this.eaZpIdx(this.x)));
        break;
      case 0xac:
        this.y = this.nz(this.rd(this.eaAbs()));
        break;
      case 0xbc:
        this.y = this.nz(this.rd(this.eaAbsIdxRead(this.x)));
        break;

      // ---- stores
      case 0x85:
        this.wr(this.eaZp(), this.a);
        break;
      case 0x95:
        this.wr(this.eaZpIdx(this.x), this.a);
        break;
      case 0x8d:
        this.wr(this.eaAbs(), this.a);
        break;
      case 0x9d:
        this.wr(this.eaAbsIdxWrite(this.x), this.a);
        break;
      case 0x99:
        this.wr(this.eaAbsIdxWrite(this.y), this.a);
        break;
      case 0x81:
        this.wr(this.eaIzx(), this.a);
        break;
      case 0x91:
        this.wr(this.eaIzyWrite(), this.a);
        break;
      case 0x86:
        this.wr(this.eaZp(), this.x);
        break;
      case 0x96:
        this.wr(this.eaZpIdx(this.y), this.x);
        break;
      case 0x8e:
        this.wr(this.eaAbs(), this.x);
        break;
      case 0x84:
        this.wr(this.eaZp(), this.y);
        break;
      case 0x94:
        this.wr(this.eaZpIdx(this.x), this.y);
        break;
      case 0x8c:
        this.wr(this.eaAbs(), this.y);
        break;

      // ---- ALU with memory or immediate
      case 0x69:
        this.adc(this.fetch());
        break;
      case 0x65:
        this.adc(this.rd(this.eaZp()));
        break;
      case 0x75:
        this.adc(this.rd(this.eaZpIdx(this.x)));
        break;
      case 0x6d:
        this.adc(this.rd(this.eaAbs()));
        break;
      case 0x7d:
        this.adc(this.rd(this.eaAbsIdxRead(this.x)));
        break;
      case 0x79:
        this.adc(this.rd(this.eaAbsIdxRead(this.y)));
        break;
      case 0x61:
        this.adc(this.rd(this.eaIzx()));
        break;
      case 0x71:
        this.adc(this.rd(this.eaIzyRead()));
        break;
      case 0xe9:
      case 0xeb:
        this.sbc(this.fetch());
        break;
      case 0xe5:
        this.sbc(this.rd(this.eaZp()));
        break;
      case 0xf5:
        this.sbc(this.rd(this.eaZpIdx(this.x)));
        break;
      case 0xed:
        this.sbc(this.rd(this.eaAbs()));
        break;
      case 0xfd:
        this.sbc(this.rd(this.eaAbsIdxRead(this.x)));
        break;
      case 0xf9:
        this.sbc(this.rd(this.eaAbsIdxRead(this.y)));
        break;
      case 0xe1:
        this.sbc(this.rd(this.eaIzx()));
        break;
      case 0xf1:
        this.sbc(this.rd(this.eaIzyRead()));
        break;
      case 0x29:
        this.a = this.nz(this.a & this.fetch());
        break;
      case 0x25:
        this.a = this.nz(this.a & this.rd(this.eaZp()));
        break;
      case 0x35:
        this.a = this.nz(this.a & this.rd(this.eaZpIdx(this.x)));
        break;
      case 0x2d:
        this.a = this.nz(this.a & this.rd(this.eaAbs()));
        break;
      case 0x3d:
        this.a = this.nz(this.a & this.rd(this.eaAbsIdxRead(this.x)));
        break;
      case 0x39:
        this.a = this.nz(this.a & this.rd(this.eaAbsIdxRead(this.y)));
        break;
      case 0x21:
        this.a = this.nz(this.a & this.rd(this.eaIzx()));
        break;
      case 0x31:
        this.a = this.nz(this.a & this.rd(this.eaIzyRead()));
        break;
      case 0x09:
        this.a = this.nz(this.a | this.fetch());
        break;
      case 0x05:
        this.a = this.nz(this.a | this.rd(this.eaZp()));
        break;
      case 0x15:
        this.a = this.nz(this.a | this.rd(this.eaZpIdx(this.x)));
        break;
      case 0x0d:
        this.a = this.nz(this.a | this.rd(this.eaAbs()));
        break;
      case 0x1d:
        this.a = this.nz(this.a | this.rd(this.eaAbsIdxRead(this.x)));
        break;
      case 0x19:
        this.a = this.nz(this.a | this.rd(this.eaAbsIdxRead(this.y)));
        break;
      case 0x01:
        this.a = this.nz(this.a | this.rd(this.eaIzx()));
        break;
      case 0x11:
        this.a = this.nz(this.a | this.rd(this.eaIzyRead()));
        break;
      case 0x49:
        this.a = this.nz(this.a ^ this.fetch());
        break;
      case 0x45:
        this.a = this.nz(this.a ^ this.rd(this.eaZp()));
        break;
      case 0x55:
        this.a = this.nz(this.a ^ this.rd(this.eaZpIdx(this.x)));
        break;
      case 0x4d:
        this.a = this.nz(this.a ^ this.rd(this.eaAbs()));
        break;
      case 0x5d:
        this.a = this.nz(this.a ^ this.rd(this.eaAbsIdxRead(this.x)));
        break;
      case 0x59:
        this.a = this.nz(this.a ^ this.rd(this.eaAbsIdxRead(this.y)));
        break;
      case 0x41:
        this.a = this.nz(this.a ^ this.rd(this.eaIzx()));
        break;
      case 0x51:
        this.a = this.nz(this.a ^ this.rd(this.eaIzyRead()));
        break;
      case 0xc9:
        this.cmp(this.a, this.fetch());
        break;
      case 0xc5:
        this.cmp(this.a, this.rd(this.eaZp()));
        break;
      case 0xd5:
        this.cmp(this.a, this.rd(this.eaZpIdx(this.x)));
        break;
      case 0xcd:
        this.cmp(this.a, this.rd(this.eaAbs()));
        break;
      case 0xdd:
        this.cmp(this.a, this.rd(this.eaAbsIdxRead(this.x)));
        break;
      case 0xd9:
        this.cmp(this.a, this.rd(this.eaAbsIdxRead(this.y)));
        break;
      case 0xc1:
        this.cmp(this.a, this.rd(this.eaIzx()));
        break;
      case 0xd1:
        this.cmp(this.a, this.rd(this.eaIzyRead()));
        break;
      case 0xe0:
        this.cmp(this.x, this.fetch());
        break;
      case 0xe4:
        this.cmp(this.x, this.rd(this.eaZp()));
        break;
      case 0xec:
        this.cmp(this.x, this.rd(this.eaAbs()));
        break;
      case 0xc0:
        this.cmp(this.y, this.fetch());
        break;
      case 0xc4:
        this.cmp(this.y, this.rd(this.eaZp()));
        break;
      case 0xcc:
        this.cmp(this.y, this.rd(this.eaAbs()));
        break;
      case 0x24:
        this.bit(this.rd(this.eaZp()));
        break;
      case 0x2c:
        this.bit(this.rd(this.eaAbs()));
        break;

      // ---- shifts and increments on A (2 cycles: the dummy read of the next byte)
      case 0x0a:
        this.rd(this.pc);
        this.a = this.asl(this.a);
        break;
      case 0x4a:
        this.rd(this.pc);
        this.a = this.lsr(this.a);
        break;
      case 0x2a:
        this.rd(this.pc);
        this.a = this.rol(this.a);
        break;
      case 0x6a:
        this.rd(this.pc);
        this.a = this.ror(this.a);
        break;

      // ---- read-modify-write on memory
      case 0x06:
        this.rmw(this.eaZp(), RMW_ASL);
        break;
      case 0x16:
        this.rmw(this.eaZpIdx(this.x), RMW_ASL);
        break;
      case 0x0e:
        this.rmw(this.eaAbs(), RMW_ASL);
        break;
      case 0x1e:
        this.rmw(this.eaAbsIdxWrite(this.x), RMW_ASL);
        break;
      case 0x46:
        this.rmw(this.eaZp(), RMW_LSR);
        break;
      case 0x56:
        this.rmw(this.eaZpIdx(this.x), RMW_LSR);
        break;
      case 0x4e:
        this.rmw(this.eaAbs(), RMW_LSR);
        break;
      case 0x5e:
        this.rmw(this.eaAbsIdxWrite(this.x), RMW_LSR);
        break;
      case 0x26:
        this.rmw(this.eaZp(), RMW_ROL);
        break;
      case 0x36:
        this.rmw(this.eaZpIdx(this.x), RMW_ROL);
        break;
      case 0x2e:
        this.rmw(this.eaAbs(), RMW_ROL);
        break;
      case 0x3e:
        this.rmw(this.eaAbsIdxWrite(this.x), RMW_ROL);
        break;
      case 0x66:
        this.rmw(this.eaZp(), RMW_ROR);
        break;
      case 0x76:
        this.rmw(this.eaZpIdx(this.x), RMW_ROR);
        break;
      case 0x6e:
        this.rmw(this.eaAbs(), RMW_ROR);
        break;
      case 0x7e:
        this.rmw(this.eaAbsIdxWrite(this.x), RMW_ROR);
        break;
      case 0xe6:
        this.rmw(this.eaZp(), RMW_INC);
        break;
      case 0xf6:
        this.rmw(this.eaZpIdx(this.x), RMW_INC);
        break;
      case 0xee:
        this.rmw(this.eaAbs(), RMW_INC);
        break;
      case 0xfe:
        this.rmw(this.eaAbsIdxWrite(this.x), RMW_INC);
        break;
      case 0xc6:
        this.rmw(this.eaZp(), RMW_DEC);
        break;
      case 0xd6:
        this.rmw(this.eaZpIdx(this.x), RMW_DEC);
        break;
      case 0xce:
        this.rmw(this.eaAbs(), RMW_DEC);
        break;
      case 0xde:
        this.rmw(this.eaAbsIdxWrite(this.x), RMW_DEC);
        break;

      // ---- register transfers, increments, flags (2 cycles each)
      case 0xaa:
        this.rd(this.pc);
        this.x = this.nz(this.a);
        break;
      case 0xa8:
        this.rd(this.pc);
        this.y = this.nz(this.a);
        break;
      case 0x8a:
        this.rd(this.pc);
        this.a = this.nz(this.x);
        break;
      case 0x98:
        this.rd(this.pc);
        this.a = this.nz(this.y);
        break;
      case 0xba:
        this.rd(this.pc);
        this.x = this.nz(this.sp);
        break;
      case 0x9a:
        this.rd(this.pc);
        this.sp = this.x;
        break;
      case 0xe8:
        this.rd(this.pc);
        this.x = this.nz((this.x + 1) & 0xff);
        break;
      case 0xc8:
        this.rd(this.pc);
        this.y = this.nz((this.y + 1) & 0xff);
        break;
      case 0xca:
        this.rd(this.pc);
        this.x = this.nz((this.x - 1) & 0xff);
        break;
      case 0x88:
        this.rd(this.pc);
        this.y = this.nz((this.y - 1) & 0xff);
        break;
      case 0x18:
        this.rd(this.pc);
        this.fc = 0;
        break;
      case 0x38:
        this.rd(this.pc);
        this.fc = 1;
        break;
      case 0xd8:
        this.rd(this.pc);
        this.fd = 0;
        break;
      case 0xf8:
        this.rd(this.pc);
        this.fd = 1;
        break;
      case 0xb8:
        this.rd(this.pc);
        this.fv = 0;
        break;
      case 0x58: {
        // CLI clears I in its second cycle, after that cycle's poll: the next poll sees the old I
        // and an IRQ waits one more instruction — unless RDY held that cycle, whose repeated
        // poll sees I clear (x64sc; VICE-testprogs interrupts/irqdma).
        const before = this.cycles;
        this.rd(this.pc);
        if (this.cycles - before === 1) this.pollIOverride = this.fi;
        this.fi = 0;
        break;
      }
      case 0x78:
        this.rd(this.pc);
        this.pollIOverride = this.fi;
        this.fi = 1;
        break;
      case 0xea:
      case 0x1a:
      case 0x3a:
      case 0x5a:
      case 0x7a:
      case 0xda:
      case 0xfa:
        this.rd(this.pc);
        break;

      // ---- stack
      case 0x48:
        this.rd(this.pc);
        this.push(this.a);
        break;
      case 0x08:
        this.rd(this.pc);
        this.push(this.p | FLAG_B);
        break;
      case 0x68:
        this.rd(this.pc);
        this.rd(0x100 | this.sp);
        this.a = this.nz(this.pull());
        break;
      case 0x28: {
        this.rd(this.pc);
        this.rd(0x100 | this.sp);
        const old = this.fi;
        this.p = this.pull();
        this.pollIOverride = old;
        break;
      }

      // ---- jumps, calls, returns
      case 0x4c:
        this.pc = this.eaAbs();
        break;
      case 0x6c: {
        const ptr = this.eaAbs();
        const lo = this.rd(ptr);
        // The NMOS bug: the high byte comes from the same page ($xxFF wraps to $xx00).
        this.pc = lo | (this.rd((ptr & 0xff00) | ((ptr + 1) & 0xff)) << 8);
        break;
      }
      case 0x20: {
        const lo = this.fetch();
        this.rd(0x100 | this.sp);
        this.push(this.pc >> 8);
        this.push(this.pc & 0xff);
        this.pc = lo | (this.rd(this.pc) << 8);
        break;
      }
      case 0x60: {
        this.rd(this.pc);
        this.rd(0x100 | this.sp);
        const lo = this.pull();
        this.pc = lo | (this.pull() << 8);
        this.rd(this.pc);
        this.pc = (this.pc + 1) & 0xffff;
        break;
      }
      case 0x40: {
        this.rd(this.pc);
        this.rd(0x100 | this.sp);
        this.p = this.pull();
        const lo = this.pull();
        this.pc = lo | (this.pull() << 8);
        break;
      }
      case 0x00:
        this.fetch(); // the padding byte: BRK returns to the address after it
        this.interrupt(0xfffe, true);
        this.pollEarly = Number.POSITIVE_INFINITY; // like IRQ entry: the handler's first instruction runs
        break;

      // ---- branches
      case 0x10:
        this.branch(this.fn === 0);
        break;
      case 0x30:
        this.branch(this.fn === 1);
        break;
      case 0x50:
        this.branch(this.fv === 0);
        break;
      case 0x70:
        this.branch(this.fv === 1);
        break;
      case 0x90:
        this.branch(this.fc === 0);
        break;
      case 0xb0:
        this.branch(this.fc === 1);
        break;
      case 0xd0:
        this.branch(this.fz === 0);
        break;
      case 0xf0:
        this.branch(this.fz === 1);
        break;

      // ---- undocumented: NOPs that read an operand
      case 0x80:
      case 0x82:
      case 0x89:
      case 0xc2:
      case 0xe2:
        this.fetch();
        break;
      case 0x04:
      case 0x44:
      case 0x64:
        this.rd(this.eaZp());
        break;
      case 0x14:
      case 0x34:
      case 0x54:
      case 0x74:
      case 0xd4:
      case 0xf4:
        this.rd(this.eaZpIdx(this.x));
        break;
      case 0x0c:
        this.rd(this.eaAbs());
        break;
      case 0x1c:
      case 0x3c:
      case 0x5c:
      case 0x7c:
      case 0xdc:
      case 0xfc:
        this.rd(this.eaAbsIdxRead(this.x));
        break;

      // ---- undocumented: read-modify-write combinations
      case 0x07:
        this.rmw(this.eaZp(), RMW_SLO);
        break;
      case 0x17:
        this.rmw(this.eaZpIdx(this.x), RMW_SLO);
        break;
      case 0x0f:
        this.rmw(this.eaAbs(), RMW_SLO);
        break;
      case 0x1f:
        this.rmw(this.eaAbsIdxWrite(this.x), RMW_SLO);
        break;
      case 0x1b:
        this.rmw(this.eaAbsIdxWrite(this.y), RMW_SLO);
        break;
      case 0x03:
        this.rmw(this.eaIzx(), RMW_SLO);
        break;
      case 0x13:
        this.rmw(this.eaIzyWrite(), RMW_SLO);
        break;
      case 0x27:
        this.rmw(this.eaZp(), RMW_RLA);
        break;
      case 0x37:
        this.rmw(this.eaZpIdx(this.x), RMW_RLA);
        break;
      case 0x2f:
        this.rmw(this.eaAbs(), RMW_RLA);
        break;
      case 0x3f:
        this.rmw(this.eaAbsIdxWrite(this.x), RMW_RLA);
        break;
      case 0x3b:
        this.rmw(this.eaAbsIdxWrite(this.y), RMW_RLA);
        break;
      case 0x23:
        this.rmw(this.eaIzx(), RMW_RLA);
        break;
      case 0x33:
        this.rmw(this.eaIzyWrite(), RMW_RLA);
        break;
      case 0x47:
        this.rmw(this.eaZp(), RMW_SRE);
        break;
      case 0x57:
        this.rmw(this.eaZpIdx(this.x), RMW_SRE);
        break;
      case 0x4f:
        this.rmw(this.eaAbs(), RMW_SRE);
        break;
      case 0x5f:
        this.rmw(this.eaAbsIdxWrite(this.x), RMW_SRE);
        break;
      case 0x5b:
        this.rmw(this.eaAbsIdxWrite(this.y), RMW_SRE);
        break;
      case 0x43:
        this.rmw(this.eaIzx(), RMW_SRE);
        break;
      case 0x53:
        this.rmw(this.eaIzyWrite(), RMW_SRE);
        break;
      case 0x67:
        this.rmw(this.eaZp(), RMW_RRA);
        break;
      case 0x77:
        this.rmw(this.eaZpIdx(this.x), RMW_RRA);
        break;
      case 0x6f:
        this.rmw(this.eaAbs(), RMW_RRA);
        break;
      case 0x7f:
        this.rmw(this.eaAbsIdxWrite(this.x), RMW_RRA);
        break;
      case 0x7b:
        this.rmw(this.eaAbsIdxWrite(this.y), RMW_RRA);
        break;
      case 0x63:
        this.rmw(this.eaIzx(), RMW_RRA);
        break;
      case 0x73:
        this.rmw(this.eaIzyWrite(), RMW_RRA);
        break;
      case 0xc7:
        this.rmw(this.eaZp(), RMW_DCP);
        break;
      case 0xd7:
        this.rmw(this.eaZpIdx(this.x), RMW_DCP);
        break;
      case 0xcf:
        this.rmw(this.eaAbs(), RMW_DCP);
        break;
      case 0xdf:
        this.rmw(this.eaAbsIdxWrite(this.x), RMW_DCP);
        break;
      case 0xdb:
        this.rmw(this.eaAbsIdxWrite(this.y), RMW_DCP);
        break;
      case 0xc3:
        this.rmw(this.eaIzx(), RMW_DCP);
        break;
      case 0xd3:
        this.rmw(this.eaIzyWrite(), RMW_DCP);
        break;
      case 0xe7:
        this.rmw(this.eaZp(), RMW_ISC);
        break;
      case 0xf7:
        this.rmw(this.eaZpIdx(this.x), RMW_ISC);
        break;
      case 0xef:
        this.rmw(this.eaAbs(), RMW_ISC);
        break;
      case 0xff:
        this.rmw(this.eaAbsIdxWrite(this.x), RMW_ISC);
        break;
      case 0xfb:
        this.rmw(this.eaAbsIdxWrite(this.y), RMW_ISC);
        break;
      case 0xe3:
        this.rmw(this.eaIzx(), RMW_ISC);
        break;
      case 0xf3:
        this.rmw(this.eaIzyWrite(), RMW_ISC);
        break;

      // ---- undocumented: LAX / SAX / LAS
      case 0xa7:
        this.a = this.x = this.nz(this.rd(this.eaZp()));
        break;
      case 0xb7:
        this.a = this.x = this.nz(this.rd(this.eaZpIdx(this.y)));
        break;
      case 0xaf:
        this.a = this.x = this.nz(this.rd(this.eaAbs()));
        break;
      case 0xbf:
        this.a = this.x = this.nz(this.rd(this.eaAbsIdxRead(this.y)));
        break;
      case 0xa3:
        this.a = this.x = this.nz(this.rd(this.eaIzx()));
        break;
      case 0xb3:
        this.a = this.x = this.nz(this.rd(this.eaIzyRead()));
        break;
      case 0x87:
        this.wr(this.eaZp(), this.a & this.x);
        break;
      case 0x97:
        this.wr(this.eaZpIdx(this.y), this.a & this.x);
        break;
      case 0x8f:
        this.wr(this.eaAbs(), this.a & this.x);
        break;
      case 0x83:
        this.wr(this.eaIzx(), this.a & this.x);
        break;
      case 0xbb:
        t = this.rd(this.eaAbsIdxRead(this.y)) & this.sp;
        this.a = this.x = this.sp = this.nz(t);
        break;

      // ---- undocumented: immediate ALU combinations
      case 0x0b:
      case 0x2b:
        this.a = this.nz(this.a & this.fetch());
        this.fc = this.fn;
        break; // ANC
      case 0x4b:
        this.a = this.lsr(this.a & this.fetch());
        break; // ALR
      case 0x6b:
        this.arr(this.fetch());
        break;
      case 0xcb: // SBX: X = (A & X) - imm, carry as CMP
        t = (this.a & this.x) - this.fetch();
        this.fc = t >= 0 ? 1 : 0;
        this.x = this.nz(t & 0xff);
        break;
      case 0x8b: {
        // ANE: the chip's internal A leaks into the AND through a magic constant; while the
        // VIC holds the CPU on the operand fetch (RDY low) bit 0 of it reads as 0 too.
        const before = this.cycles;
        const imm = this.fetch();
        const magic = this.cycles - before > 1 ? ANE_MAGIC_RDY : ANE_MAGIC;
        this.a = this.nz((this.a | magic) & this.x & imm);
        break;
      }
      case 0xab:
        this.a = this.x = this.nz((this.a | LXA_MAGIC) & this.fetch());
        break; // LXA

      // ---- undocumented: the unstable "AND with high byte + 1" stores
      case 0x93: {
        // SHA (zp),Y
        const ptr = this.fetch();
        const lo = this.rd(ptr);
        const base = lo | (this.rd((ptr + 1) & 0xff) << 8);
        const before = this.cycles;
        this.rd((base & 0xff00) | ((lo + this.y) & 0xff));
        this.storeHighAnd(base, this.y, this.a & this.x, this.cycles - before > 1);
        break;
      }
      case 0x9f:
      case 0x9b:
      case 0x9e:
      case 0x9c: {
        const lo = this.fetch();
        const base = lo | (this.fetch() << 8);
        const idx = op === 0x9c ? this.x : this.y;
        const before = this.cycles;
        this.rd((base & 0xff00) | ((lo + idx) & 0xff));
        if (op === 0x9b) this.sp = this.a & this.x; // TAS
        const value = op === 0x9e ? this.x : op === 0x9c ? this.y : this.a & this.x;
        this.storeHighAnd(base, idx, value, this.cycles - before > 1);
        break;
      }

      // ---- KIL/JAM
      case 0x02:
      case 0x12:
      case 0x22:
      case 0x32:
      case 0x42:
      case 0x52:
      case 0x62:
      case 0x72:
      case 0x92:
      case 0xb2:
      case 0xd2:
      case 0xf2:
        this.jam(opAddr);
        break;

      default:
        // Unreachable: every one of the 256 opcodes has a case above.
        throw new Error(`6510: no case for opcode $${op.toString(16)}`);
    }
    const depth = 2 + this.pollEarly;
    this.pollAt = this.cycles - depth;
    // RDY held the CPU within the poll window: count back over its own clocks only.
    if (this.holds.lastRetry > this.pollAt) this.pollAt = this.holds.pollClock(this.cycles, depth);
    this.pollEarly = 0;
    return this.cycles - start;
  }

  private arr(imm: number): void {
    const t = this.a & imm;
    if (this.fd === 0) {
      const r = (t >> 1) | (this.fc << 7);
      this.a = this.nz(r);
      this.fc = (r >> 6) & 1;
      this.fv = ((r >> 6) ^ (r >> 5)) & 1;
      return;
    }
    let r = (t >> 1) | (this.fc << 7);
    this.fn = this.fc;
    this.fz = r === 0 ? 1 : 0;
    this.fv = ((t ^ r) >> 6) & 1;
    if ((t & 0x0f) + (t & 0x01) > 0x05) r = (r & 0xf0) | ((r + 0x06) & 0x0f);
    if ((t & 0xf0) + (t & 0x10) > 0x50) {
      r = (r & 0x0f) | ((r + 0x60) & 0xf0);
      this.fc = 1;
    } else {
      this.fc = 0;
    }
    this.a = r & 0xff;
  }
}

const RMW_ASL = 0;
const RMW_LSR = 1;
const RMW_ROL = 2;
const RMW_ROR = 3;
const RMW_INC = 4;
const RMW_DEC = 5;
const RMW_SLO = 6;
const RMW_RLA = 7;
const RMW_SRE = 8;
const RMW_RRA = 9;
const RMW_DCP = 10;
const RMW_ISC = 11;

/**
 * The chip-dependent constants of ANE ($8B) and LXA ($AB), as measured on C64s (VICE uses the
 * same): ANE ORs A with $EF, or $EE when RDY held the CPU on the operand fetch; LXA with $EE.
 */
const ANE_MAGIC = 0xef;
const ANE_MAGIC_RDY = 0xee;
const LXA_MAGIC = 0xee;

/** The twelve opcodes that halt an NMOS 6502. */
export const JAM_OPCODES: readonly number[] = [0x02, 0x12, 0x22, 0x32, 0x42, 0x52, 0x62, 0x72, 0x92, 0xb2, 0xd2, 0xf2];
