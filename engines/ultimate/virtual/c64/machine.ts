// The virtual C64 inside the virtual Ultimate 64: a 6510 on a bus with 64 KiB of RAM, the
// processor port at $00/$01 choosing what the CPU sees, a stand-in BASIC/KERNAL ROM (our own
// code, see kernal-standin.asm — no Commodore ROM is included), the VIC-II (vic-ii.ts: registers,
// raster interrupt, collisions, the clocks it takes), two minimal CIAs (timers and interrupts, cia6526.ts), colour RAM, and
// the Ultimate 64's debug register at $D7FF. docs/ultimate/CPU.md describes what is and is not
// emulated.
//
// Every CPU clock is one bus access, except the clocks the VIC-II takes for bad lines and sprite
// DMA (vic-timing.ts): a read while BA is low waits until BA is high again. When `onBusCycle` is
// set each clock is reported as a debug-stream entry (bit layout of the U64 in DEVICE.md):
//   bit 31 PHI2 (1 = CPU half-cycle, 0 = VIC half-cycle), 30 GAME#, 29 EXROM#, 28 BA, 27 IRQ#,
//   26 ROM# (see below), 25 NMI#, 24 R/W# (1 = read), 23-16 data, 15-0 address.
// What the stream holds follows the "Debug Stream Mode" setting (`debugStreamMode`): "6510 Only"
// (the default) has one entry per CPU half-cycle while BA is high or within three cycles of it
// dropping — so the clocks the VIC takes leave gaps; "6510 & VIC" has two entries per clock (the
// VIC's half, then the CPU's or the VIC's); "VIC Only" the VIC's halves and its stolen clocks.
// Bit 26: the U64 core's meaning is not public; this emulation drives it low when the access hits
// BASIC, KERNAL or character ROM (no cartridge is emulated, so it never means ROML/ROMH here).

import { CIA_MODELS, Cia6526, type CiaModel } from './cia6526.js';
import { InputLines } from './input-lines.js';
import { CpuPort } from './cpu-port.js';
import { Cpu6510, IRQ_SOURCE_CIA, IRQ_SOURCE_EXTERNAL, IRQ_SOURCE_VIC, type CpuBus } from './cpu6510.js';
import { BASIC_ROM, KERNAL_ROM, STANDIN_LABELS } from './kernal-standin.js';
import { RecBusTiming } from './rec-bus-timing.js';
import { Rec8726 } from './rec8726.js';
import { VicII, type VicRevision } from './vic-ii.js';
import { fillPowerOnPattern } from './ram-power-on.js';
import { type DebugStreamMode, isDebugStreamMode } from './debug-stream-mode.js';

export { DEBUG_STREAM_MODES, type DebugStreamMode } from './debug-stream-mode.js';

/** What the CPU sees in one 256-byte page, recomputed when $00/$01 change (plain numbers: hot path). */
const REGION_RAM = 0;
const REGION_BASIC = 1;
const REGION_KERNAL = 2;
const REGION_CHAR = 3;
const REGION_IO = 4;
const REGION_ZP = 5;

export const PAL_CYCLES_PER_LINE = 63;
export const PAL_LINES = 312;
export const PAL_CYCLES_PER_FRAME = PAL_CYCLES_PER_LINE * PAL_LINES;
/** The real PAL C64's CPU clock in Hz. */
export const PAL_CLOCK_HZ = 985_248;
/** The NTSC C64's CPU clock in Hz. */
export const NTSC_CLOCK_HZ = 1_022_727;
export const NTSC_CYCLES_PER_LINE = 65;
export const NTSC_LINES = 263;
/** The first NTSC VIC-II, 6567R56A: 64 cycles × 262 lines. */
export const NTSC_OLD_CYCLES_PER_LINE = 64;
export const NTSC_OLD_LINES = 262;
/** REU sizes of the 1700/1764/1750 and the Ultimate's larger ones, in KiB. */
export const REU_SIZES_KB: readonly number[] = [128, 256, 512, 1024, 2048, 4096, 8192, 16384];

export const DEBUG_REGISTER_ADDRESS = 0xd7ff;

const PHI2 = 0x80000000;
const GAME_HIGH = 1 << 30;
const EXROM_HIGH = 1 << 29;
const BA_HIGH = 1 << 28;
const IRQ_HIGH = 1 << 27;
const ROM_HIGH = 1 << 26;
const NMI_HIGH = 1 << 25;
const READ = 1 << 24;
/** Lines that never change here: no cartridge (GAME#, EXROM# high). */
const STATIC_LINES = GAME_HIGH | EXROM_HIGH;

/** What the machine emits: CPU halves, VIC halves, or both (no 1541 is emulated). */
const EMIT_CPU = 1;
const EMIT_VIC = 2;
function emitFor(mode: DebugStreamMode): number {
  if (mode === 'VIC Only') return EMIT_VIC;
  if (mode === '6510 & VIC' || mode === '6510 & VIC w/IEC') return EMIT_CPU | EMIT_VIC;
  if (mode === '1541 Only') return 0;
  return EMIT_CPU;
}

/** Why the last `run()` returned. */
export type StopReason = 'cycles' | 'exec-hook' | 'jam' | 'until';

/** The CIA revision: the original 6526 or the 6526A of later boards (interrupt and timer timing differ). */
export type { CiaModel };
/**
 * The video standard: the PAL 6569 (63 cycles × 312 lines), the NTSC 6567R8 (65 × 263), or the
 * first NTSC chip, 6567R56A (64 × 262; VICE's `-ntscold`).
 */
export type VideoStandard = 'pal' | 'ntsc' | 'ntsc-old';

/** ROM images for the three ROM sockets (8 KiB, 8 KiB, 4 KiB), e.g. from `loadRomDir`. */
export interface C64Roms {
  kernal: Uint8Array;
  basic: Uint8Array;
  chargen: Uint8Array;
}

export interface C64MachineOptions {
  /** Called once per clock with the debug-stream entry of that bus cycle. */
  onBusCycle?: (entry: number) => void;
  /** CIA revision of both CIAs (default '6526', as VICE's default C64). */
  ciaModel?: CiaModel;
  /** PAL or NTSC VIC-II (default 'pal'). */
  video?: VideoStandard;
  /** REU size in KiB (128 … 16384, a power of two), or 0/undefined for no REU at $DF00. */
  reuKb?: number;
  /** The REU's RAM when it is shared (the Ultimate's one REU memory); at least `reuKb` KiB. */
  reuMemory?: Uint8Array;
  /** Real ROM images; without them the machine runs the stand-in (our own code, kernal-standin.asm). */
  roms?: C64Roms;
  /**
   * What RAM holds at power-on: 'zero' (default), or 'c64' — the pattern of a real board as
   * x64sc starts with it (ram-power-on.ts), which some programs read without meaning to.
   */
  powerOnRam?: 'zero' | 'c64';
  /** The VIC-II's revision: 'old' (6569/6567, default, as VICE's default C64) or 'new' (8565/8562). */
  vicRevision?: VicRevision;
}

export class C64Machine implements CpuBus {
  /** The 64 KiB of RAM (what a DMA or debugger write lands in); see `powerOnRam`. */
  readonly ram = new Uint8Array(0x10000);
  /** Colour RAM, 1 KiB of 4-bit cells at $D800. */
  readonly colorRam = new Uint8Array(0x400);
  readonly cpu: Cpu6510;

  /** The Ultimate 64's debug register ($D7FF): the program writes it, the host reads it. */
  debugRegister = 0;
  /** The KERNAL ROM the CPU sees: the stand-in or the given image, until DMA FF08 replaces it (until the device restarts). */
  private kernal: Uint8Array = KERNAL_ROM;
  private readonly basic: Uint8Array = BASIC_ROM;
  /** The character generator: zeros with the stand-in (no Commodore character set is included). */
  readonly chargen: Uint8Array = new Uint8Array(0x1000);
  /** Real ROM images were given: boot and READY are the real KERNAL's. */
  readonly realRoms: boolean;
  /** Set by the constructor and by `setBoard` (a board of other chips, at a reset). */
  ciaModel!: CiaModel;
  video!: VideoStandard;
  vicRevision!: VicRevision;
  #reuKb = 0;
  #reu?: Rec8726;
  /** Called first thing in `reset()` (the Ultimate applies its REU settings there). */
  beforeReset?: () => void;
  /** A REU transfer was started by the last write; it runs before the next instruction. */
  private reuPending = false;
  /**
   * A write to $FF00 started the transfer: the REC takes the bus from the next clock, so a second
   * write of the same instruction (a read-modify-write's final one) does not reach memory.
   */
  private reuTookBus = false;
  /** When the REC gets the bus during a transfer (rec-bus-timing.ts). */
  private recBus!: RecBusTiming;
  /** Clocks per raster line, raster lines per frame, clocks per frame (PAL 63 × 312, NTSC 65 × 263). */
  cyclesPerLine!: number;
  linesPerFrame!: number;
  cyclesPerFrame!: number;
  onDebugRegisterWrite?: (value: number) => void;
  /**
   * Called before each instruction with its address; return true to stop `run()` before the
   * instruction executes (breakpoints, checkpoints). Costs one call per instruction when set.
   */
  onExec?: (pc: number) => boolean;
  /** Set from the constructor or later; undefined costs nothing. */
  onBusCycle?: (entry: number) => void;
  /** Why the last `run()` returned. */
  lastStop: StopReason = 'cycles';

  /** The 6510's on-chip port at $00/$01 (cpu-port.ts). */
  private readonly port = new CpuPort();
  private readonly regions = new Uint8Array(256);
  /** The VIC-II (vic-ii.ts): registers, raster interrupt, collisions, the clocks it takes. */
  vicII!: VicII;
  /** The VIC-II register file as written. */
  vic!: Uint8Array;
  /** When the VIC takes the bus (bad lines, sprite DMA). */
  private vicTiming!: VicII['timing'];
  /** The 0-based clock at or after which an access must consult `vicTiming`. */
  private baCheckAt = 0;
  /** BA is low for the access being performed (a write inside the three-cycle warning). */
  private baLowNow = false;
  /** Which halves of each clock go to `onBusCycle` (EMIT_*). */
  private emit = EMIT_CPU;
  #streamMode: DebugStreamMode = '6510 Only';
  /** Keyboard matrix and joysticks as the U64's input API drives them (read through CIA 1). */
  readonly inputLines: InputLines;
  /** CIA 1 drives the IRQ line (the KERNAL's 60 Hz timer); CIA 2 drives NMI. */
  private cia1!: Cia6526;
  private cia2!: Cia6526;
  /** The earliest cycle at which the VIC or a CIA timer needs attention. */
  private nextEvent = 0;
  /** CIA 2 holds the NMI line low (shown in the stream's NMI# bit). */
  private nmiLow = false;

  constructor(opts: C64MachineOptions = {}) {
    this.onBusCycle = opts.onBusCycle;
    this.realRoms = opts.roms !== undefined;
    if (opts.roms) {
      this.kernal = romImage(opts.roms.kernal, 0x2000, 'kernal');
      this.basic = romImage(opts.roms.basic, 0x2000, 'basic');
      this.chargen = romImage(opts.roms.chargen, 0x1000, 'chargen');
    }
    const powerOnRam = opts.powerOnRam ?? 'zero';
    if (powerOnRam !== 'zero' && powerOnRam !== 'c64') {
      throw new RangeError(`powerOnRam must be 'zero' or 'c64'; got ${JSON.stringify(powerOnRam)}`);
    }
    if (powerOnRam === 'c64') fillPowerOnPattern(this.ram);
    this.cpu = new Cpu6510(this);
    this.setReu(opts.reuKb ?? 0, opts.reuMemory);
    this.inputLines = new InputLines(() => this.cpu.triggerNmi());
    this.#buildBoard(opts.video ?? 'pal', opts.ciaModel ?? '6526', opts.vicRevision ?? 'old');
    this.reset();
  }

  /**
   * Puts in the VIC-II and CIAs of another board: the video standard, the CIA revision, the VIC-II
   * revision (the virtual Ultimate's per-run machine options). Call it from `beforeReset` (the
   * reset that follows starts the new chips) or before a reset; RAM, ROMs, the CPU, the REU and the
   * input lines stay. Nothing changes when the board is the same.
   */
  setBoard(b: { video: VideoStandard; ciaModel: CiaModel; vicRevision: VicRevision }): void {
    if (b.video === this.video && b.ciaModel === this.ciaModel && b.vicRevision === this.vicRevision) return;
    this.#buildBoard(b.video, b.ciaModel, b.vicRevision);
  }

  /** RAM and colour RAM as a real board powers on (the pattern x64sc starts with); call before a reset. */
  powerOnRam(): void {
    fillPowerOnPattern(this.ram);
    this.colorRam.fill(0);
  }

  #buildBoard(video: VideoStandard, ciaModel: CiaModel, vicRevision: VicRevision): void {
    if (video !== 'pal' && video !== 'ntsc' && video !== 'ntsc-old') {
      throw new RangeError(`video must be 'pal', 'ntsc' or 'ntsc-old'; got ${JSON.stringify(video)}`);
    }
    if (!CIA_MODELS.includes(ciaModel)) {
      throw new RangeError(`ciaModel must be one of ${CIA_MODELS.map((m) => `'${m}'`).join(', ')}; got ${JSON.stringify(ciaModel)}`);
    }
    if (vicRevision !== 'old' && vicRevision !== 'new') {
      throw new RangeError(`vicRevision must be 'old' or 'new'; got ${JSON.stringify(vicRevision)}`);
    }
    this.video = video;
    this.ciaModel = ciaModel;
    this.vicRevision = vicRevision;
    this.cyclesPerLine = video === 'pal' ? PAL_CYCLES_PER_LINE : video === 'ntsc' ? NTSC_CYCLES_PER_LINE : NTSC_OLD_CYCLES_PER_LINE;
    this.linesPerFrame = video === 'pal' ? PAL_LINES : video === 'ntsc' ? NTSC_LINES : NTSC_OLD_LINES;
    this.cyclesPerFrame = this.cyclesPerLine * this.linesPerFrame;
    this.vicII = new VicII(
      {
        ram: this.ram,
        chargen: this.chargen,
        colorRam: this.colorRam,
        vicBank: () => this.vicBank(),
        setIrq: (active, at) => this.cpu.setIrqSource(IRQ_SOURCE_VIC, active, at),
      },
      this.cyclesPerLine,
      this.linesPerFrame,
      vicRevision,
    );
    this.vic = this.vicII.regs;
    this.vicTiming = this.vicII.timing;
    this.recBus = new RecBusTiming(this, this.vicTiming);
    // The TOD clocks count the power line: 50 Hz beside a PAL machine, 60 Hz beside an NTSC one.
    const ciaOptions = {
      model: ciaModel,
      clockHz: video === 'pal' ? PAL_CLOCK_HZ : NTSC_CLOCK_HZ,
      powerHz: video === 'pal' ? 50 : 60,
    } as const;
    this.cia1 = new Cia6526(
      (active, at) => this.cpu.setIrqSource(IRQ_SOURCE_CIA, active, at),
      (a, b) => this.inputLines.cia1Pins(a, b),
      ciaOptions,
    );
    this.cia2 = new Cia6526(
      (active, at) => {
        this.nmiLow = active;
        if (active) this.cpu.triggerNmi(at); // NMI is edge-triggered: only the falling edge counts
      },
      undefined,
      ciaOptions,
    );
  }

  /** REU size in KiB (0 = none). */
  get reuKb(): number {
    return this.#reuKb;
  }
  /** The REU's RAM Expansion Controller at $DF00 (when `reuKb` is set). */
  get reu(): Rec8726 | undefined {
    return this.#reu;
  }

  /**
   * Plugs in a REU of `kb` KiB (0 unplugs it), over `memory` when given (see `reuMemory`). The
   * controller starts in its reset state; a transfer under way is not continued.
   */
  setReu(kb: number, memory?: Uint8Array): void {
    if (!REU_SIZES_KB.includes(kb) && kb !== 0) {
      throw new RangeError(`reuKb must be 0 (no REU) or one of ${REU_SIZES_KB.join(', ')}; got ${kb}`);
    }
    if (this.#reu !== undefined) this.cpu.setIrqSource(IRQ_SOURCE_EXTERNAL, false, this.cpu.cycles);
    this.#reuKb = kb;
    this.reuPending = false;
    this.#reu =
      kb === 0
        ? undefined
        : new Rec8726(
            kb,
            {
              dmaCycle: (isRead, lastByte) => {
                const from = this.cpu.cycles;
                this.recBus.cycle(isRead, lastByte === true);
                const cb = this.onBusCycle;
                if (cb !== undefined) this.emitDmaClocks(cb, from, this.cpu.cycles - 1);
              },
              dmaRead: (addr) => {
                const v = this.dmaRead(addr);
                const cb = this.onBusCycle;
                if (cb !== undefined) this.emitDmaAccess(cb, addr, v, true);
                return v;
              },
              dmaWrite: (addr, value) => {
                this.dmaWrite(addr, value);
                const cb = this.onBusCycle;
                if (cb !== undefined) this.emitDmaAccess(cb, addr, value, false);
              },
              setIrq: (active) => {
                this.cpu.setIrqSource(IRQ_SOURCE_EXTERNAL, active, this.cpu.cycles);
              },
            },
            memory,
          );
  }

  // --- the bus -----------------------------------------------------------------------------------

  /** The firmware's "Debug Stream Mode": which bus halves `onBusCycle` receives. */
  get debugStreamMode(): DebugStreamMode {
    return this.#streamMode;
  }
  set debugStreamMode(mode: DebugStreamMode) {
    if (!isDebugStreamMode(mode)) throw new RangeError(`unknown debug stream mode ${JSON.stringify(mode)}`);
    this.#streamMode = mode;
    this.emit = emitFor(mode);
  }

  read(addr: number): number {
    // The CPU has already counted this clock: its 0-based index is cycles - 1.
    if (this.cpu.cycles > this.baCheckAt) this.vicBus(addr, true);
    const region = this.regions[addr >>> 8];
    let v: number;
    let rom = false;
    switch (region) {
      case REGION_RAM:
        v = this.ram[addr]!;
        break;
      case REGION_ZP:
        v = addr === 0 ? this.port.direction : addr === 1 ? this.port.read(this.cpu.cycles) : this.ram[addr]!;
        break;
      case REGION_BASIC:
        v = this.basic[addr - 0xa000]!;
        rom = true;
        break;
      case REGION_KERNAL:
        v = this.kernal[addr - 0xe000]!;
        rom = true;
        break;
      case REGION_CHAR:
        v = this.chargen[addr & 0x0fff]!;
        rom = true;
        break;
      default:
        v = this.ioRead(addr, true);
        break;
    }
    const cb = this.onBusCycle;
    if (cb !== undefined) {
      if (this.emit !== EMIT_CPU) this.emitVicHalf(cb, this.cpu.cycles - 1, false);
      if ((this.emit & EMIT_CPU) !== 0) {
        cb(
          (PHI2 |
            STATIC_LINES |
            BA_HIGH |
            (this.cpu.irqLines === 0 ? IRQ_HIGH : 0) |
            (this.nmiLow ? 0 : NMI_HIGH) |
            (rom ? 0 : ROM_HIGH) |
            READ |
            (v << 16) |
            addr) >>>
            0,
        );
      }
    }
    return v;
  }

  write(addr: number, value: number): void {
    if (this.cpu.cycles > this.baCheckAt) this.vicBus(addr, false);
    const region = this.regions[addr >>> 8];
    if (region === REGION_IO) {
      this.ioWrite(addr, value);
    } else {
      // ROM regions: writes go to the RAM underneath, as on the real machine. $00/$01 are the
      // 6510's own port: the CPU does not drive the data bus for them, and the RAM underneath
      // takes what is left on it — the byte the VIC-II read in the first half of this clock.
      if (addr < 2) {
        this.ram[addr] = this.vicII.phi1.data(this.cpu.cycles - 1);
        this.portWrite(addr, value);
      } else if (this.reuTookBus) {
        // The RMW's second write: the REC has the bus since the first one; this write is lost.
        this.reuTookBus = false;
      } else {
        this.vicII.beforeRamWrite(addr, value, this.cpu.cycles - 1);
        this.ram[addr] = value;
        if (addr === 0xff00 && this.reu?.ff00Written()) {
          this.startReuTransfer();
          this.reuTookBus = true;
        }
      }
    }
    const cb = this.onBusCycle;
    if (cb !== undefined) {
      const ba = this.baLowNow ? 0 : BA_HIGH;
      if (this.emit !== EMIT_CPU) this.emitVicHalf(cb, this.cpu.cycles - 1, this.baLowNow);
      if ((this.emit & EMIT_CPU) !== 0) {
        cb(
          (PHI2 |
            STATIC_LINES |
            ba |
            (this.cpu.irqLines === 0 ? IRQ_HIGH : 0) |
            (this.nmiLow ? 0 : NMI_HIGH) |
            ROM_HIGH |
            (value << 16) |
            addr) >>>
            0,
        );
      }
    }
    this.baLowNow = false;
  }

  // --- the VIC-II taking the bus ------------------------------------------------------------------

  /**
   * Slow path of an access at a clock where BA may be low: a read waits (the CPU's clock count
   * advances) until BA is high; a write inside the three-cycle warning goes through with BA low.
   */
  private vicBus(addr: number, isRead: boolean): void {
    const cpu = this.cpu;
    const timing = this.vicTiming;
    for (;;) {
      const now = cpu.cycles - 1;
      const iv = timing.intervalAt(now);
      if (iv === undefined) break;
      const [, last, stolenFrom] = iv;
      if (!isRead && now < stolenFrom) {
        this.baLowNow = true;
        break;
      }
      // The CPU is held from `now` through `last`; it retries its access on the clock after.
      const cb = this.onBusCycle;
      if (cb !== undefined) this.emitStall(cb, addr, now, last, stolenFrom);
      cpu.hold(now, last);
    }
    this.baCheckAt = timing.nextAttention(cpu.cycles - 1);
  }

  /** Stream entries for clocks the CPU waits: its repeated read during the warning, then the VIC's. */
  private emitStall(cb: (entry: number) => void, addr: number, from: number, to: number, stolenFrom: number): void {
    const lines = STATIC_LINES | (this.cpu.irqLines === 0 ? IRQ_HIGH : 0) | (this.nmiLow ? 0 : NMI_HIGH);
    const retried = (PHI2 | lines | ROM_HIGH | READ | (this.peek(addr) << 16) | addr) >>> 0;
    for (let c = from; c <= to; c++) {
      if (this.emit !== EMIT_CPU) this.emitVicHalf(cb, c, true);
      if (c < stolenFrom) {
        if ((this.emit & EMIT_CPU) !== 0) cb(retried);
      } else if ((this.emit & EMIT_VIC) !== 0) {
        // The CPU's half of a stolen clock is the VIC's: a c-access (video matrix) or s-access.
        const a = this.vicAddress(c, true);
        cb((PHI2 | lines | READ | (this.ram[a]! << 16) | a) >>> 0);
      }
    }
  }

  /**
   * Stream entries for an REU transfer's clocks up to its next access at clock `access`: the REC
   * has halted the CPU and drives the bus itself, so the trace shows its accesses in the CPU's half
   * (emitDmaAccess). It waits only while the VIC holds BA low, and those clocks show BA low in the
   * VIC's half. Every clock gets its VIC half, so a "6510 & VIC" trace counts the transfer's clocks
   * as the machine does (the VIC's phase-2 fetches in a stolen clock are not shown here).
   */
  private emitDmaClocks(cb: (entry: number) => void, from: number, access: number): void {
    if (this.emit === EMIT_CPU) return;
    for (let c = from; c < access; c++) this.emitVicHalf(cb, c, true);
    this.emitVicHalf(cb, access, false);
  }

  /** The REC's access in the clock emitDmaClocks ended with: its address, data and R/W on the bus. */
  private emitDmaAccess(cb: (entry: number) => void, addr: number, value: number, isRead: boolean): void {
    if ((this.emit & EMIT_CPU) === 0) return;
    const region = this.regions[addr >>> 8];
    const rom = isRead && addr > 1 && (region === REGION_BASIC || region === REGION_KERNAL || region === REGION_CHAR);
    cb(
      (PHI2 |
        STATIC_LINES |
        BA_HIGH |
        (this.cpu.irqLines === 0 ? IRQ_HIGH : 0) |
        (this.nmiLow ? 0 : NMI_HIGH) |
        (rom ? 0 : ROM_HIGH) |
        (isRead ? READ : 0) |
        (value << 16) |
        addr) >>>
        0,
    );
  }

  /** The VIC's own half of clock `c` (PHI2 low): shown in the "VIC" stream modes. */
  private emitVicHalf(cb: (entry: number) => void, c: number, baLow: boolean): void {
    const a = this.vicAddress(c, false);
    cb(
      (STATIC_LINES |
        (baLow ? 0 : BA_HIGH) |
        (this.cpu.irqLines === 0 ? IRQ_HIGH : 0) |
        (this.nmiLow ? 0 : NMI_HIGH) |
        READ |
        (this.ram[a]! << 16) |
        a) >>>
        0,
    );
  }

  /** Where the VIC reads in clock `c` (vic-ii.ts). */
  private vicAddress(c: number, stolenHalf: boolean): number {
    return this.vicII.busAddress(c, stolenHalf);
  }

  // --- the processor port and banking --------------------------------------------------------

  private portWrite(addr: number, value: number): void {
    this.port.write(addr, value, this.cpu.cycles);
    this.updateBanking();
  }

  /** The LORAM/HIRAM/CHAREN lines as the PLA sees them (inputs read as pulled high). */
  private updateBanking(): void {
    const lines = this.port.bankingLines();
    const loram = (lines & 1) !== 0;
    const hiram = (lines & 2) !== 0;
    const charen = (lines & 4) !== 0;
    const r = this.regions;
    r.fill(REGION_RAM);
    r[0] = REGION_ZP;
    if (loram && hiram) r.fill(REGION_BASIC, 0xa0, 0xc0);
    if (loram || hiram) r.fill(charen ? REGION_IO : REGION_CHAR, 0xd0, 0xe0);
    if (hiram) r.fill(REGION_KERNAL, 0xe0, 0x100);
  }

  // --- the I/O area ------------------------------------------------------------------------------

  /** The raster line the beam is on at the current cycle. */
  rasterLine(): number {
    return this.vicII.rasterLine(this.cpu.cycles);
  }

  private ioRead(addr: number, sideEffects: boolean): number {
    const page = addr & 0xfc00;
    if (page === 0xd000) return this.vicII.read(addr & 0x3f, this.cpu.cycles, sideEffects);
    if (page === 0xd400) return addr === DEBUG_REGISTER_ADDRESS ? this.debugRegister : 0; // SID: write-only here
    if (page === 0xd800) return this.colorRam[addr & 0x3ff]!;
    if ((addr & 0xff00) === 0xdc00) return this.ciaRead(this.cia1, addr, sideEffects);
    if ((addr & 0xff00) === 0xdd00) return this.ciaRead(this.cia2, addr, sideEffects);
    if ((addr & 0xff00) === 0xdf00 && this.reu !== undefined) {
      return sideEffects ? this.reu.read(addr & 0x1f) : this.reu.peek(addr & 0x1f);
    }
    // I/O 1 and 2 with nothing plugged in: the data bus still holds what the VIC read in phi1.
    return this.vicII.phi1.data(this.cpu.cycles - 1);
  }

  /** A CIA read clocks the chip up to this access and may start its interrupt pipeline. */
  private ciaRead(cia: Cia6526, addr: number, sideEffects: boolean): number {
    const v = cia.read(addr & 0x0f, this.cpu.cycles, sideEffects);
    if (sideEffects) this.updateNextEvent();
    return v;
  }

  private ioWrite(addr: number, value: number): void {
    const page = addr & 0xfc00;
    if (page === 0xd000) this.vicWrite(addr & 0x3f, value);
    else if (page === 0xd400) {
      if (addr === DEBUG_REGISTER_ADDRESS) {
        this.debugRegister = value;
        this.onDebugRegisterWrite?.(value);
      }
    } else if (page === 0xd800) this.colorRam[addr & 0x3ff] = value & 0x0f;
    else if ((addr & 0xff00) === 0xdc00) {
      this.cia1.write(addr & 0x0f, value, this.cpu.cycles);
      // PB4 is the VIC's light pen input (control port 1's fire line).
      if ((addr & 0x0c) === 0) this.vicII.lightPenInput((this.cia1.read(0x01, this.cpu.cycles, false) & 0x10) === 0, this.cpu.cycles - 1);
      this.updateNextEvent();
    } else if ((addr & 0xff00) === 0xdd00) {
      this.cia2.write(addr & 0x0f, value, this.cpu.cycles);
      this.updateNextEvent();
    } else if ((addr & 0xff00) === 0xdf00 && this.reu?.write(addr & 0x1f, value)) {
      this.startReuTransfer();
    }
  }

  // --- the REU's DMA -----------------------------------------------------------------------------

  /**
   * The transfer starts on the clock after the write that started it (the CPU's next clock is a
   * read, which DMA holds off): it runs between instructions, before the next one.
   */
  private startReuTransfer(): void {
    this.reuPending = true;
    this.nextEvent = 0;
  }

  /**
   * True when clock `c` is where BA drops for sprite 0's DMA in the line that turns it on: the
   * VIC sets BA late there, and the REC still gets that clock (x64sc's `vicii_cycle_reu`).
   */
  spriteZeroTurnsOnAt(c: number): boolean {
    const k = c % this.cyclesPerLine;
    if (k !== this.cyclesPerLine - 9 || (this.vic[0x15]! & 1) === 0) return false;
    const line = Math.floor((c % this.cyclesPerFrame) / this.cyclesPerLine);
    return this.vic[0x01] === (line & 0xff);
  }

  /** What DMA reads at `addr`: C64 memory as the processor port maps it, I/O with its side effects. */
  private dmaRead(addr: number): number {
    if (addr < 2) return this.ram[addr]!; // the processor port is inside the CPU: DMA sees RAM
    switch (this.regions[addr >>> 8]) {
      case REGION_IO:
        return this.ioRead(addr, true);
      default:
        return this.peek(addr);
    }
  }

  private dmaWrite(addr: number, value: number): void {
    if (this.regions[addr >>> 8] === REGION_IO) {
      if ((addr & 0xff00) !== 0xdf00) this.ioWrite(addr, value); // the REC does not program itself
    } else {
      // The REC's write lands in clock cycles - 1 (RecBusTiming advanced past it); DMA reaches the
      // RAM under the processor port too.
      this.vicII.beforeRamWrite(addr, value, this.cpu.cycles - 1);
      this.ram[addr] = value;
    }
  }

  private vicWrite(reg: number, value: number): void {
    if (this.vicII.write(reg, value, this.cpu.cycles)) {
      // $D011, $D015, $D017 or a sprite Y changed: BA for the rest of this line may differ.
      this.baCheckAt = this.vicTiming.nextAttention(this.cpu.cycles);
    }
    this.updateNextEvent();
  }

  private updateNextEvent(): void {
    this.nextEvent = Math.min(this.vicII.nextEvent, this.cia1.nextEvent, this.cia2.nextEvent);
  }

  private vicBank(): number {
    // CIA 2's PA0/PA1, inverted (portAPins: a register read without its cost).
    return (~this.cia2.portAPins(this.cpu.cycles) & 3) << 14;
  }

  /** The CPU is inside a BRK/IRQ entry: an NMI due by now may take over its vector. */
  syncInterrupts(): void {
    if (this.cpu.cycles >= this.nextEvent) this.handleEvents();
  }

  /** Raster compare and CIA timer underflows due by now (called between instructions). */
  private handleEvents(): void {
    if (this.reuPending) {
      this.reuPending = false;
      this.reuTookBus = false;
      this.recBus.start();
      this.reu!.transfer();
      this.baCheckAt = this.vicTiming.nextAttention(this.cpu.cycles);
    }
    const now = this.cpu.cycles;
    if (now >= this.vicII.nextEvent) this.vicII.handleEvents(now);
    if (now >= this.cia1.nextEvent) this.cia1.catchUp(now);
    if (now >= this.cia2.nextEvent) this.cia2.catchUp(now);
    this.updateNextEvent();
  }

  // --- debugger and DMA access (no side effects, no bus cycles) ----------------------------------

  /**
   * What the CPU would read at `addr` with the current banking, without side effects: ROM where
   * ROM is mapped, I/O registers as they would read (the raster at this cycle), RAM otherwise.
   */
  /** DMA FF08: an 8 KiB image becomes the KERNAL ROM (shorter images are zero-filled). */
  replaceKernal(rom: Uint8Array): void {
    const k = new Uint8Array(0x2000);
    k.set(rom.subarray(0, 0x2000));
    this.kernal = k;
  }

  peek(addr: number): number {
    addr &= 0xffff;
    switch (this.regions[addr >>> 8]) {
      case REGION_RAM:
        return this.ram[addr]!;
      case REGION_ZP:
        return addr === 0 ? this.port.direction : addr === 1 ? this.port.read(this.cpu.cycles) : this.ram[addr]!;
      case REGION_BASIC:
        return this.basic[addr - 0xa000]!;
      case REGION_KERNAL:
        return this.kernal[addr - 0xe000]!;
      case REGION_CHAR:
        return this.chargen[addr & 0x0fff]!;
      default:
        return this.ioRead(addr, false);
    }
  }

  /**
   * A debugger write as the CPU would do it, without a bus cycle: RAM (also under ROM), or the
   * I/O register when I/O is mapped — so poking $D020 changes the border and $D019 acknowledges,
   * as a write from VICE's monitor does. $00/$01 change the banking.
   */
  poke(addr: number, value: number): void {
    addr &= 0xffff;
    value &= 0xff;
    if (this.regions[addr >>> 8] === REGION_IO) {
      this.ioWrite(addr, value);
      if (this.cpu.cycles >= this.nextEvent) this.handleEvents();
    } else {
      this.ram[addr] = value;
      if (addr < 2) this.portWrite(addr, value);
    }
  }

  /**
   * DMA read as the Ultimate does it (REST readmem): the device's DMA sees the C64 memory map with
   * the banking that is in effect, so ROM reads as ROM and $D000-$DFFF as I/O when mapped.
   */
  readMem(addr: number, len: number): Uint8Array {
    checkRange(addr, len);
    const out = new Uint8Array(len);
    // The 6510's port at $00/$01 is inside the CPU: DMA sees the RAM underneath.
    for (let i = 0; i < len; i++) out[i] = addr + i < 2 ? this.ram[addr + i]! : this.peek(addr + i);
    return out;
  }

  /**
   * DMA write (REST writemem): lands in RAM, or in I/O registers where I/O is mapped. "Writing to
   * the I/O registers of the 6510 is not possible" (the firmware's documentation): $00/$01 reach
   * the RAM underneath, the banking does not change.
   */
  writeMem(addr: number, bytes: Uint8Array): void {
    checkRange(addr, bytes.length);
    for (let i = 0; i < bytes.length; i++) {
      if (addr + i < 2) this.ram[addr + i] = bytes[i]!;
      else this.poke(addr + i, bytes[i]!);
    }
  }

  // --- running -----------------------------------------------------------------------------------

  /**
   * Execute at least `cycles` clocks (the last instruction is completed) unless a hook stops it
   * first. Returns the clocks executed. A jammed CPU keeps the clock running: each cycle is a read
   * of $FFFF on the bus, as on a halted NMOS 6502, and `lastStop` is 'jam'.
   */
  run(cycles: number, until?: (machine: C64Machine) => boolean): number {
    const cpu = this.cpu;
    const start = cpu.cycles;
    const target = start + cycles;
    const hook = this.onExec;
    this.lastStop = 'cycles';
    while (cpu.cycles < target) {
      if (cpu.jammed) {
        while (cpu.cycles < target) cpu.jamCycle();
        this.lastStop = 'jam';
        break;
      }
      if (hook?.(cpu.pc)) {
        this.lastStop = 'exec-hook';
        break;
      }
      cpu.step();
      if (cpu.cycles >= this.nextEvent) this.handleEvents();
      if (until?.(this)) {
        this.lastStop = 'until';
        break;
      }
    }
    if (cpu.jammed && this.lastStop === 'cycles') this.lastStop = 'jam';
    return cpu.cycles - start;
  }

  /** Execute exactly one instruction (or interrupt entry); returns its clocks (0 when jammed). */
  stepInstruction(): number {
    const n = this.cpu.step();
    if (this.cpu.cycles >= this.nextEvent) this.handleEvents();
    return n;
  }

  /**
   * Cold reset: chips to their power-on state, RAM kept (as on a real reset), and the stand-in
   * KERNAL run until BASIC's READY prompt waits for input.
   */
  reset(): void {
    this.beforeReset?.();
    this.port.reset();
    this.updateBanking();
    this.vicII.reset(this.cpu.cycles);
    this.baCheckAt = this.cpu.cycles;
    this.baLowNow = false;
    this.cia1.reset(this.cpu.cycles);
    this.cia2.reset(this.cpu.cycles);
    this.reu?.reset();
    this.reuPending = false;
    this.reuTookBus = false;
    this.colorRam.fill(0);
    this.cpu.irqLines = 0;
    this.debugRegister = 0;
    this.updateNextEvent();
    this.cpu.reset();
    this.runUntilReady();
  }

  /** True while BASIC sits in its input loop waiting for a key. */
  isReady(): boolean {
    const pc = this.cpu.pc;
    if (this.realRoms) {
      // The real KERNAL's keyboard wait (901227-03 $E5CD-$E5D4: LDA $C6 / STA $CC / STA $0292 /
      // BEQ $E5CD), reached through BASIC's input loop once READY. is printed.
      return pc >= REAL_KERNAL_WAIT_KEY_START && pc <= REAL_KERNAL_WAIT_KEY_END && this.ram[0xc6] === 0;
    }
    return pc >= STANDIN_LABELS.waitKeyStart && pc < STANDIN_LABELS.waitKeyEnd && this.ram[0xc6] === 0;
  }

  private runUntilReady(limit = this.realRoms ? 4_000_000 : 2_000_000): void {
    const hook = this.onExec;
    this.onExec = undefined;
    try {
      this.run(limit, (m) => m.isReady());
    } finally {
      this.onExec = hook;
    }
    if (!this.isReady()) throw new Error(`virtual C64: the ${this.realRoms ? 'given' : 'stand-in'} KERNAL did not reach READY`);
  }

  /**
   * Put keys into the KERNAL keyboard buffer ($0277, count at $C6), as the Ultimate does to type
   * RUN. PETSCII codes; at most 10 at a time (the buffer's size).
   */
  typeKeys(petscii: Uint8Array | number[]): void {
    // The KERNAL's pop_key moves the buffer down and then decrements the count; a key appended
    // in between would be lost. Keys arrive between instructions, so finish pop_key first.
    for (let guard = 0; guard < 100 && this.inPopKey(); guard++) this.stepInstruction();
    const count = this.ram[0xc6]!;
    if (count + petscii.length > 10) {
      throw new RangeError(`keyboard buffer holds 10 keys; ${count} queued, ${petscii.length} more given`);
    }
    for (let i = 0; i < petscii.length; i++) this.ram[0x277 + count + i] = petscii[i]! & 0xff;
    this.ram[0xc6] = count + petscii.length;
  }

  private inPopKey(): boolean {
    if (this.realRoms) return false; // the real KERNAL takes keys with interrupts off ($E5B4 SEI)
    const pc = this.cpu.pc;
    return pc >= STANDIN_LABELS.popKeyStart && pc < STANDIN_LABELS.popKeyEnd;
  }

  /**
   * DMA-load a PRG (2-byte little-endian load address, then data) into the RAM of the running
   * machine, without a reset. This is a debugger's load (VICE's autostart with run=0), not what the
   * Ultimate's load_prg does — that one resets first (`bootLoad`). For a program at the BASIC
   * start ($0801) the BASIC end-of-program pointers are set as LOAD would.
   */
  loadPrg(bytes: Uint8Array): { start: number; end: number } {
    if (bytes.length < 3) throw new RangeError(`a PRG needs a 2-byte load address and data; got ${bytes.length} bytes`);
    const start = bytes[0]! | (bytes[1]! << 8);
    const data = bytes.subarray(2);
    const end = start + data.length;
    if (end > 0x10000) {
      throw new RangeError(`PRG of ${data.length} bytes at $${hex4(start)} runs past $FFFF`);
    }
    this.ram.set(data, start);
    if (start === 0x0801) {
      // VARTAB, ARYTAB and STREND: the end of the program, as BASIC's LOAD leaves them.
      for (const zp of [0x2d, 0x2f, 0x31]) {
        this.ram[zp] = end & 0xff;
        this.ram[zp + 1] = end >> 8;
      }
    }
    return { start, end };
  }

  /**
   * Load a PRG the way the Ultimate's runners do it (firmware 3.14/3.15, `C64_DMA_LOAD` →
   * `dma_load` through the boot cartridge, software/io/c64/c64_subsys.cc): the machine is reset,
   * the file is DMA-loaded at its load address (cut at $FFFF, never refused), the BASIC pointers
   * VARTAB/ARYTAB/STREND and the KERNAL's end address ($AE/$AF) are set to the end of the data as
   * LOAD leaves them, and then
   * - `'run'`: BASIC `RUN` is started, whatever the load address — a machine-code program needs a
   *   BASIC `SYS` stub at $0801; one loaded elsewhere is loaded but not started;
   * - `'none'`: the machine waits at READY (load_prg, DMA FF01);
   * - a number: the CPU jumps to that address (DMA FF09, whose payload starts with it).
   * A file shorter than 2 bytes loads nothing; the machine is still reset.
   */
  bootLoad(bytes: Uint8Array, then: 'run' | 'none' | number): { start: number; end: number } {
    this.reset();
    if (bytes.length < 2) return { start: 0, end: 0 };
    const start = bytes[0]! | (bytes[1]! << 8);
    const data = bytes.subarray(2, 2 + (0x10000 - start));
    const end = start + data.length;
    this.ram.set(data, start);
    const endLo = end & 0xff;
    const endHi = (end >> 8) & 0xff;
    for (const zp of [0x2d, 0x2f, 0x31, 0xae]) {
      this.ram[zp] = endLo;
      this.ram[zp + 1] = endHi;
    }
    if (then === 'run')
      this.typeKeys([0x52, 0x55, 0x4e, 0x0d]); // "RUN" + RETURN
    else if (typeof then === 'number') this.cpu.pc = then & 0xffff;
    return { start, end };
  }

  /**
   * Run a PRG as the Ultimate's run_prg does: reset, DMA-load, then BASIC `RUN` — never
   * `SYS <load address>`; see `bootLoad`.
   */
  runPrg(bytes: Uint8Array): { start: number; end: number } {
    return this.bootLoad(bytes, 'run');
  }

  // --- looking at the screen ---------------------------------------------------------------------

  /** The 25 text lines of the screen at $0400 (or wherever $0288 points), trailing spaces cut. */
  screenLines(): string[] {
    const base = this.ram[0x288]! << 8;
    const lower = (this.vic[0x18]! & 0x02) !== 0;
    const lines: string[] = [];
    for (let row = 0; row < 25; row++) {
      let s = '';
      for (let col = 0; col < 40; col++) s += screenCodeToText(this.ram[base + row * 40 + col]!, lower);
      lines.push(s.replace(/\s+$/, ''));
    }
    return lines;
  }

  screenText(): string {
    return this.screenLines().join('\n').replace(/\n+$/, '');
  }
}

/** One screen code as text (reverse video ignored), for the uppercase or the lowercase charset. */
export function screenCodeToText(code: number, lowercaseCharset: boolean): string {
  const c = code & 0x7f;
  if (c === 0) return '@';
  if (c < 0x1b) return String.fromCharCode((lowercaseCharset ? 0x60 : 0x40) + c);
  if (c < 0x20) return '[£]^←'[c - 0x1b] ?? '?';
  if (c < 0x40) return String.fromCharCode(c);
  if (lowercaseCharset && c >= 0x41 && c <= 0x5a) return String.fromCharCode(c);
  if (c === 0x40) return '─';
  return c === 0x60 ? ' ' : '·';
}

/** The real KERNAL's keyboard wait loop (revision 901227-03). */
const REAL_KERNAL_WAIT_KEY_START = 0xe5cd;
const REAL_KERNAL_WAIT_KEY_END = 0xe5d4;

function romImage(bytes: Uint8Array, size: number, name: string): Uint8Array {
  if (!(bytes instanceof Uint8Array) || bytes.length !== size) {
    throw new RangeError(`the ${name} ROM image must be ${size} bytes; got ${bytes instanceof Uint8Array ? bytes.length : typeof bytes}`);
  }
  return new Uint8Array(bytes);
}

function checkRange(addr: number, len: number): void {
  if (!Number.isInteger(addr) || addr < 0 || addr > 0xffff) {
    throw new RangeError(`address must be an integer in $0000-$FFFF; got ${addr}`);
  }
  if (!Number.isInteger(len) || len < 0 || addr + len > 0x10000) {
    throw new RangeError(`length ${len} at $${hex4(addr)} runs past $FFFF`);
  }
}

function hex4(n: number): string {
  return n.toString(16).toUpperCase().padStart(4, '0');
}
