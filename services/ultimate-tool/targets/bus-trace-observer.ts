// Judging a run from the Ultimate's debug stream ("6510 & VIC" mode: two entries per clock, the
// VIC's half with PHI2 low, then the CPU's): every CPU write to $D7FF with its cycle, a BRK (the
// vector fetch at $FFFE/$FFFF after three stack pushes whose status byte has B set), a JAM (the
// halted bus: reads of $FFFF, clock after clock), execution outside the program's code (an opcode
// fetch recognised without SYNC: outside-code.ts), and memory reconstructed at the exact write of a
// marker (and at the run's end) from the memory known at the start plus every CPU write since.
// Which BRKs and JAMs are crashes is the test's crash policy (brk-policy.ts). Cycles count clocks
// from the program's start: the first opcode fetch inside the PRG's load range after the reset, or
// where BASIC began the first line of a program that writes $D7FF before any such fetch (or whose
// run ends without one: settle()) (program-start.ts); a crash's cycle is its faulting opcode's fetch, as on
// the vice target.
// Pure: fed entries by the receiver (or a C64Machine directly in tests).
import { type UltimateFamily, ioVisible, portLines } from '../../../engines/ultimate/index.js';
import type { CrashState, DebugRegisterWrite, RunProtocol } from './connection.js';
import { brkIsCrash, prgCoversCpuVector } from './brk-policy.js';
import { type Access, OutsideCodeWatch } from './outside-code.js';
import { RecentAccesses } from './recent-accesses.js';
import { ProgramStartDetector, prgLoadRange } from './program-start.js';

const PHI2 = 0x80000000;
const READ = 0x01000000;
/** GAME# (bit 30) and EXROM# (bit 29), on the U64 and the U2+ alike: Ultimax is GAME# low, EXROM# high. */
const ULTIMAX_MASK = 0x60000000;
const ULTIMAX = 0x20000000;
const BA: Record<UltimateFamily, number> = { u64: 0x10000000, u2plus: 0x08000000 };
const JAM_OPCODES = new Set([0x02, 0x12, 0x22, 0x32, 0x42, 0x52, 0x62, 0x72, 0x92, 0xb2, 0xd2, 0xf2]);
/** Reads of $FFFF in a row that no instruction makes (an IRQ/BRK vector fetch reads it once). */
const JAM_READS = 6;
/** Clocks after a BRK's vector fetch in which the KERNAL's handler pushes A, X and Y. */
const KERNAL_PUSH_WINDOW = 40;

export type TraceEnd =
  | { outcome: 'ended'; verdict: 'pass' | 'fail'; value: number }
  | { outcome: 'crashed'; crash: CrashState }
  | { outcome: 'harness-crash'; cycle: number }
  /** budget.cycles passed: the trace was stopped at this cycle (the budget + 1). */
  | { outcome: 'over_budget'; cycle: number }
  /** A JAM that is not a crash (crash.jam false): nothing more can happen. */
  | { outcome: 'halted'; pc: number; cycle: number };

export interface MarkerEvent {
  value: number;
  cycle: number;
  /** Reads `length` bytes of memory as it was at this write. */
  memory(address: number, length: number): Uint8Array;
}

export class BusTraceObserver {
  readonly writes: DebugRegisterWrite[] = [];
  /** The end of the run, once seen. */
  end: TraceEnd | null = null;
  /** true once the program's start is known; before it no write belongs to the run. */
  get started(): boolean {
    return this.#start.started;
  }
  /** The program runs: its start is known, or BASIC began it (a start the observer may settle on). */
  get running(): boolean {
    return this.#start.started || this.#start.basicStart !== null;
  }
  /** How the start was found: its first opcode fetch in the load range, or BASIC's start. */
  get startKind(): 'load-range-fetch' | 'basic' | null {
    return this.#start.kind;
  }
  /** false when the stream never showed a VIC half-cycle (not "6510 & VIC" mode): no exact clocks. */
  sawVicHalves = false;
  /** Memory as the CPU wrote it (RAM view), from the snapshot at the start on. */
  readonly #shadow = new Uint8Array(0x10000);
  readonly #ba: number;
  readonly #range: { start: number; end: number };
  readonly #prg: Uint8Array;
  readonly #protocol: RunProtocol;
  readonly #onMarker: (e: MarkerEvent) => void;
  #clock = 0;
  #startClock = 0;
  readonly #start: ProgramStartDetector;
  /** The program wrote $FFFE/$FFFF since its start (or its PRG holds them): brk-policy.ts. */
  #cpuVectorSet: boolean;
  #ffffReads = 0;
  /** The last CPU accesses: [address, data, isWrite, clock], newest last (BRK and JAM look back). */
  readonly #recent = new RecentAccesses(8);
  readonly #outside: OutsideCodeWatch;
  #pendingBrk: { state: Omit<CrashState, 'a' | 'x' | 'y'>; pushes: number[]; until: number } | null = null;
  /**
   * The 6510 port as the program set it ($00 direction, $01 data; the stream shows the CPU's writes
   * to both). The KERNAL's reset leaves $2F/$37, so a trace that begins after it starts there.
   */
  #portDirection = 0x2f;
  #portData = 0x37;

  constructor(o: {
    prg: Uint8Array;
    protocol: RunProtocol;
    /** The trace begins after the reset (tests): count from the first fetch in the load range at once. */
    armed?: boolean;
    /** Memory before the run, at `address`. */
    snapshot: Array<{ address: number; bytes: Uint8Array }>;
    family?: UltimateFamily;
    onMarker: (e: MarkerEvent) => void;
  }) {
    this.#prg = o.prg;
    const range = prgLoadRange(o.prg);
    if (!range) throw new Error('the PRG has no load address and bytes');
    this.#range = range;
    this.#cpuVectorSet = prgCoversCpuVector(o.prg);
    this.#protocol = o.protocol;
    this.#onMarker = o.onMarker;
    this.#ba = BA[o.family ?? 'u64'];
    for (const s of o.snapshot) this.#shadow.set(s.bytes.subarray(0, 0x10000 - s.address), s.address);
    this.#start = new ProgramStartDetector(range, o.armed === true);
    this.#outside = new OutsideCodeWatch(o.protocol.crash.outsideCode);
  }

  /** Cycles from the program's first instruction to now. */
  get cycle(): number {
    return this.#clock - this.#startClock;
  }

  /** Memory as it is at this point of the trace (at the run's end once it ended): RAM view below $D000. */
  memory(address: number, length: number): Uint8Array {
    return this.#shadow.slice(address, Math.min(0x10000, address + length));
  }

  /** Feeds entries in stream order; returns true once the run has ended (later entries are ignored). */
  feed(entries: Uint32Array): boolean {
    for (let i = 0; i < entries.length && !this.end; i++) this.#entry1(entries[i]! >>> 0);
    return this.end !== null;
  }

  #entry1(e: number): void {
    if ((e & PHI2) === 0) {
      this.sawVicHalves = true;
      this.#clock++;
      return;
    }
    if (!this.sawVicHalves) this.#clock++; // "6510 Only": one entry per CPU clock, stolen clocks missing
    const address = e & 0xffff;
    const data = (e >>> 16) & 0xff;
    if ((e & READ) === 0) this.#write(address, data, e);
    else if ((e & this.#ba) !== 0) this.#read(address, data);
  }

  /** The newest access, kept beside #recent: the hot path looks back one access at every read. */
  #prevAddress = -1;
  #prevData = 0;
  #prevWrite = false;

  #remember(address: number, data: number, write: boolean): void {
    this.#recent.push(address, data, write, this.#clock);
    this.#prevAddress = address;
    this.#prevData = data;
    this.#prevWrite = write;
  }

  #write(address: number, data: number, entry: number): void {
    this.#shadow[address] = data;
    if (address < 2) {
      if (address === 0) this.#portDirection = data;
      else this.#portData = data;
    }
    this.#remember(address, data, true);
    this.#ffffReads = 0;
    if (!this.started) {
      this.#start.write(address, this.#clock);
      // BASIC wrote the register before any machine code ran: the program is a BASIC program, and
      // its start is where BASIC began it.
      if (address === 0xd7ff && this.#start.basicStart !== null && this.#ioVisibleAt(entry)) {
        this.#begin(this.#start.settleOnBasic()!);
        if (this.#overBudgetAtSettle()) return;
      }
    } else if (address >= 0xfffe) this.#cpuVectorSet = true;
    if (this.#pendingBrk && (address & 0xff00) === 0x0100) {
      this.#pendingBrk.pushes.push(data);
      if (this.#pendingBrk.pushes.length === 3) this.#finishBrk();
      return;
    }
    if (address !== 0xd7ff || !this.started) return;
    // With I/O banked out the write goes to the RAM under $D7FF: not the debug register.
    if (!this.#ioVisibleAt(entry)) return;
    const cycle = this.cycle;
    this.writes.push({ value: data, cycle });
    const verdict = this.#protocol.classify(data);
    if (verdict === 'crash') this.end = { outcome: 'harness-crash', cycle };
    else if (verdict) this.end = { outcome: 'ended', verdict, value: data };
    else this.#onMarker({ value: data, cycle, memory: (a, n) => this.#shadow.slice(a, Math.min(0x10000, a + n)) });
  }

  /** Whether the CPU sees I/O at $D000–$DFFF at this access (the port as followed, or Ultimax). */
  #ioVisibleAt(entry: number): boolean {
    return ioVisible(portLines(this.#portDirection, this.#portData), (entry & ULTIMAX_MASK) === ULTIMAX);
  }

  /** The program's start is at `clock`. */
  #begin(clock: number): void {
    this.#startClock = clock;
    // outside_code is about the program's machine code: a BASIC program runs CHRGET at $0073.
    this.#checkOutside = this.#outside.active && this.#start.kind === 'load-range-fetch';
    this.#loadProgram();
  }

  #checkOutside = false;

  #programLoaded = false;

  /**
   * The DMA load is not on the bus: the program's bytes are what the memory held when it started,
   * or when BASIC began it if that came first (BASIC's writes after it are the program's).
   */
  #loadProgram(): void {
    if (this.#programLoaded) return;
    this.#programLoaded = true;
    this.#shadow.set(this.#prg.subarray(2, 2 + (this.#range.end - this.#range.start + 1)), this.#range.start);
  }

  /**
   * The run ended (the time budget ran out) with only BASIC's start seen: it is the start, so a
   * BASIC program that never wrote $D7FF is one that ran, not one that never started.
   */
  settle(): void {
    const basic = this.#start.settleOnBasic();
    if (basic === null) return;
    this.#begin(basic);
    this.#overBudgetAtSettle();
  }

  /**
   * The budget runs from the start once it is known; settled on BASIC's start later than the
   * budget, the run is over budget where it was settled (the vice target judges the same).
   */
  #overBudgetAtSettle(): boolean {
    const budget = this.#protocol.cycleBudget;
    if (budget === undefined || this.cycle <= budget) return false;
    this.end = { outcome: 'over_budget', cycle: this.cycle };
    return true;
  }

  #read(address: number, data: number): void {
    // The access before this read: an IRQ/BRK vector fetch reads $FFFE, then $FFFF.
    const prevAddress = this.#prevAddress;
    const prevData = this.#prevData;
    const prevRead = !this.#prevWrite;
    this.#remember(address, data, false);
    if (this.#pendingBrk && this.#clock > this.#pendingBrk.until) this.#finishBrk();
    if (!this.started) {
      const fetch = this.#start.read(address, this.#clock);
      if (fetch !== null) {
        this.#begin(fetch);
        return;
      }
      // BASIC began the program: its memory from here on is the program's. (No budget runs yet: a
      // SYS stub's BASIC takes cycles the budget is not about.)
      if (this.#start.basicStart !== null) this.#loadProgram();
      return;
    }
    if (address === 0xffff && prevAddress === 0xfffe && prevRead) this.#vectorFetch((data << 8) | prevData);
    if (address === 0xffff) {
      if (++this.#ffffReads >= JAM_READS && !this.#pendingBrk) this.#jam();
    } else this.#ffffReads = 0;
    // Looked at closer (tuples made) only when the cheap test holds.
    if (!this.end && !this.#pendingBrk && this.#checkOutside && this.#outside.isReadPairOutside(prevAddress, prevRead, address, true)) {
      const fetch = this.#outside.fetchOutside(this.#recent.toArray());
      if (fetch) this.#outsideCode(fetch);
    }
    const budget = this.#protocol.cycleBudget;
    if (!this.end && !this.#pendingBrk && budget !== undefined && this.cycle > budget)
      this.end = { outcome: 'over_budget', cycle: this.cycle };
  }

  /** An opcode fetched outside the code: A, X, Y, P and SP are not on the bus (reported as 0). */
  #outsideCode(fetch: Access): void {
    this.end = {
      outcome: 'crashed',
      crash: {
        kind: 'outside-code',
        pc: fetch[0],
        a: 0,
        x: 0,
        y: 0,
        sp: 0,
        p: 0,
        stack: this.#shadow.slice(0x0100, 0x0200),
        zeroPage: this.#shadow.slice(0x0000, 0x0100),
        cycle: fetch[3] - this.#startClock,
      },
    };
  }

  /**
   * $FFFE then $FFFF: an IRQ or a BRK. The three writes before are the pushes PC hi, PC lo, P; the
   * read before them the BRK's dummy operand read, and before it the BRK's opcode fetch — the
   * crash's cycle, as the vice target counts it.
   */
  #vectorFetch(vector: number): void {
    const recent = this.#recent.toArray();
    const w = recent.filter((r) => r[2]).slice(-3);
    if (w.length < 3 || w.some((r) => (r[0] & 0xff00) !== 0x0100)) return;
    const [hi, lo, p] = w as [[number, number, boolean, number], [number, number, boolean, number], [number, number, boolean, number]];
    if ((p[1] & 0x10) === 0) return; // B clear: a hardware IRQ, not a crash
    const facts = {
      vector,
      brkVector: (this.#shadow[0x0316] ?? 0) | ((this.#shadow[0x0317] ?? 0) << 8),
      cpuVectorSetByProgram: this.#cpuVectorSet,
    };
    if (!brkIsCrash(this.#protocol.crash.brk, facts)) return;
    const pushed = (hi[1] << 8) | lo[1];
    const sp = hi[0] & 0xff;
    const site = (pushed - 2) & 0xffff;
    const n = recent.length;
    const op = recent[n - 7];
    const opClock = op && !op[2] && op[0] === site ? op[3] : this.#clock - 6;
    this.#pendingBrk = {
      state: {
        kind: 'brk',
        pc: site,
        sp,
        p: p[1],
        // The stack and zero page at the BRK, before the handler touches them.
        stack: this.#shadow.slice(0x0100, 0x0200),
        zeroPage: this.#shadow.slice(0x0000, 0x0100),
        cycle: opClock - this.#startClock,
      },
      pushes: [],
      until: this.#clock + KERNAL_PUSH_WINDOW,
    };
  }

  /**
   * A, X and Y are not on the bus at a BRK; the KERNAL's handler at $FF48 pushes them (PHA, TXA,
   * PHA, TYA, PHA) right after the vector fetch. Without those three pushes they are reported as 0.
   */
  #finishBrk(): void {
    const b = this.#pendingBrk!;
    this.#pendingBrk = null;
    const [a = 0, x = 0, y = 0] = b.pushes.length === 3 ? b.pushes : [];
    this.end = { outcome: 'crashed', crash: { ...b.state, a, x, y } };
  }

  #jam(): void {
    // The JAM opcode is the last read before the halted bus that holds one.
    const fetch = this.#recent
      .toArray()
      .reverse()
      .find((r) => !r[2] && r[0] !== 0xffff && JAM_OPCODES.has(r[1]));
    const pc = fetch ? fetch[0] : 0xffff;
    const cycle = fetch ? fetch[3] - this.#startClock : this.cycle;
    if (!this.#protocol.crash.jam) {
      this.end = { outcome: 'halted', pc, cycle };
      return;
    }
    this.end = {
      outcome: 'crashed',
      crash: {
        kind: 'jam',
        pc,
        a: 0,
        x: 0,
        y: 0,
        sp: 0,
        p: 0,
        stack: this.#shadow.slice(0x0100, 0x0200),
        zeroPage: this.#shadow.slice(0x0000, 0x0100),
        cycle: fetch ? cycle : null,
      },
    };
  }
}
