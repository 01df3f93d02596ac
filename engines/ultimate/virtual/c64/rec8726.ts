// The RAM Expansion Controller (CSG 8726) of Commodore's 1700/1764/1750 REUs, as the Ultimate
// offers it: eleven registers at $DF00 (mirrored every 32 bytes through $DFFF), DMA between C64
// memory and expansion RAM one byte per clock, with the CPU held while it runs.
//
// What the chip does, from the 1764/1750 manuals and the hardware measurements VICE's reu.c
// documents (W. Moser's):
// - $DF00 status: bit 7 interrupt pending, 6 end of block, 5 verify error (all three clear when
//   read, and the interrupt with them), 4 set on units with 256 Kbit DRAMs (all but the 1700),
//   bits 0-3 the version (0).
// - $DF01 command: bit 7 execute, 5 autoload, 4 "no FF00 trigger", 1-0 the type (0 stash C64→REU,
//   1 fetch REU→C64, 2 swap, 3 verify). Execute with bit 4 clear arms the transfer; it starts at
//   the next CPU write to $FF00 (whatever is mapped there); an execute with bit 4 set starts at
//   once and leaves nothing armed. After a transfer bit 7 clears and bit 4 sets.
// - $DF02/03 C64 address, $DF04/05/06 REU address (bank bits 3-7 read as 1), $DF07/08 length
//   (0 = 65536), $DF09 interrupt mask (bits 0-4 read 1), $DF0A address control (bit 7 fixes the
//   C64 address, bit 6 the REU address; bits 0-5 read 1). Registers $0B-$1F read $FF.
// - Each address and length register is written together with a shadow copy; autoload puts the
//   shadows back after the transfer. Without it the registers are left where the transfer
//   stopped: addresses past the last byte, the length at 1.
// - The REC counts 19 address bits: a 1700 (128 KiB) wraps at 128 KiB, the others at 512 KiB. A
//   1764 (256 KiB) has no DRAM above 256 KiB: writes there are lost and reads give the last value
//   the data latch held (the "floating bus"). Larger units (1 MiB … 16 MiB, as the Ultimate's)
//   keep the bank bits above bit 18 in a latch the count never changes.
// - Verify stops at the first difference (verify error); a difference costs one more clock
//   unless it was the last byte. End of block is set when all compared equal, when the last byte
//   differed, or when the next-to-last differed and the last compares equal.

export const REC_STATUS_IRQ = 0x80;
export const REC_STATUS_END_OF_BLOCK = 0x40;
export const REC_STATUS_VERIFY_ERROR = 0x20;

const COMMAND_EXECUTE = 0x80;
const COMMAND_AUTOLOAD = 0x20;
const COMMAND_NO_FF00 = 0x10;
const IRQ_ENABLE = 0x80;
const IRQ_ON_END = 0x40;
const IRQ_ON_VERIFY = 0x20;
const FIX_C64 = 0x80;
const FIX_REU = 0x40;

/** The C64 side of a transfer: memory as the bus sees it, and the clock (the machine's). */
export interface RecBus {
  /**
   * One DMA clock: wait while the VIC holds the bus, then the access; `isRead` of C64 memory.
   * `lastByte`: the access belongs to the transfer's last byte.
   */
  dmaCycle(isRead: boolean, lastByte?: boolean): void;
  dmaRead(addr: number): number;
  dmaWrite(addr: number, value: number): void;
  /** The REC's interrupt output (to the CPU's IRQ line). */
  setIrq(active: boolean): void;
}

export class Rec8726 {
  /** The expansion RAM. */
  readonly ram: Uint8Array;
  status = 0;
  command = COMMAND_NO_FF00;
  c64Addr = 0;
  reuAddr = 0;
  bank = 0;
  length = 0xffff;
  intMask = 0x1f;
  addrControl = 0x3f;
  #c64Shadow = 0;
  #reuShadow = 0;
  #bankShadow = 0;
  #lengthShadow = 0xffff;
  /** Armed: execute was written with the FF00 trigger on; a write to $FF00 starts it. */
  armed = false;
  /** The last value on the REC's data latch (what reads of missing DRAM return). */
  #latch = 0xff;
  readonly #wrap: number;
  readonly #dramMask: number;
  readonly #backed: number;
  readonly #storeMask: number;
  readonly #bankUnused: number;
  readonly #statusPreset: number;

  /**
   * `memory`: the expansion RAM when it belongs to someone else too (the Ultimate keeps one
   * 16 MiB REU memory that DMA command FF07 and the REU preload also write); the REC uses its
   * first `sizeKb` KiB. Without it the REC has RAM of its own.
   */
  constructor(
    readonly sizeKb: number,
    private readonly bus: RecBus,
    memory?: Uint8Array,
  ) {
    const size = sizeKb * 1024;
    if (memory !== undefined && memory.length < size) {
      throw new RangeError(`REU memory of ${memory.length} bytes is smaller than the ${sizeKb} KiB REU`);
    }
    this.ram = memory ?? dramPowerOnPattern(size);
    const small = sizeKb === 128;
    const large = sizeKb > 512;
    this.#wrap = small ? 0x20000 : 0x80000;
    const dramWrap = small ? 0x20000 : large ? size : 0x80000;
    this.#dramMask = dramWrap - 1;
    this.#backed = size;
    this.#storeMask = large ? size - 1 : this.#wrap - 1;
    this.#bankUnused = large ? 0 : 0xf8;
    this.#statusPreset = small ? 0 : 0x10;
    this.reset();
  }

  reset(): void {
    this.status = this.#statusPreset;
    this.command = COMMAND_NO_FF00;
    this.c64Addr = this.#c64Shadow = 0;
    this.reuAddr = this.#reuShadow = 0;
    this.bank = this.#bankShadow = this.#bankUnused;
    this.length = this.#lengthShadow = 0xffff;
    this.intMask = 0x1f;
    this.addrControl = 0x3f;
    this.armed = false;
    this.bus.setIrq(false);
  }

  /** A register as it reads, without side effects (`reg` 0..31). */
  peek(reg: number): number {
    switch (reg) {
      case 0x00:
        return this.status;
      case 0x01:
        return this.command;
      case 0x02:
        return this.c64Addr & 0xff;
      case 0x03:
        return this.c64Addr >> 8;
      case 0x04:
        return this.reuAddr & 0xff;
      case 0x05:
        return this.reuAddr >> 8;
      case 0x06:
        // Bank bits above the REC's own three cannot be read back, even on larger units.
        return this.bank | 0xf8;
      case 0x07:
        return this.length & 0xff;
      case 0x08:
        return this.length >> 8;
      case 0x09:
        return this.intMask;
      case 0x0a:
        return this.addrControl;
      default:
        return 0xff;
    }
  }

  /** A CPU read: the status register clears its flags and the interrupt. */
  read(reg: number): number {
    const v = this.peek(reg);
    if (reg === 0) {
      this.status &= ~(REC_STATUS_IRQ | REC_STATUS_END_OF_BLOCK | REC_STATUS_VERIFY_ERROR);
      this.bus.setIrq(false);
    }
    return v;
  }

  /** A CPU write; returns true when a transfer must start now (execute with the FF00 trigger off). */
  write(reg: number, value: number): boolean {
    switch (reg) {
      case 0x01:
        this.command = value;
        if ((value & COMMAND_EXECUTE) !== 0) {
          // A transfer started at once also disarms one armed before: a later $FF00 write
          // starts nothing (the REC has a single pending-execute latch).
          this.armed = (value & COMMAND_NO_FF00) === 0;
          return !this.armed;
        }
        return false;
      case 0x02:
        this.c64Addr = this.#c64Shadow = (this.#c64Shadow & 0xff00) | value;
        break;
      case 0x03:
        this.c64Addr = this.#c64Shadow = (this.#c64Shadow & 0xff) | (value << 8);
        break;
      case 0x04:
        this.reuAddr = this.#reuShadow = (this.#reuShadow & 0xff00) | value;
        break;
      case 0x05:
        this.reuAddr = this.#reuShadow = (this.#reuShadow & 0xff) | (value << 8);
        break;
      case 0x06:
        this.bank = this.#bankShadow = value & ~this.#bankUnused & 0xff;
        break;
      case 0x07:
        this.length = this.#lengthShadow = (this.#lengthShadow & 0xff00) | value;
        break;
      case 0x08:
        this.length = this.#lengthShadow = (this.#lengthShadow & 0xff) | (value << 8);
        break;
      case 0x09:
        this.intMask = value | 0x1f;
        // Enabling an interrupt for a condition already flagged raises it at once.
        if ((this.intMask & (IRQ_ENABLE | IRQ_ON_END)) === (IRQ_ENABLE | IRQ_ON_END) && (this.status & REC_STATUS_END_OF_BLOCK) !== 0) {
          this.#raise();
        }
        if (
          (this.intMask & (IRQ_ENABLE | IRQ_ON_VERIFY)) === (IRQ_ENABLE | IRQ_ON_VERIFY) &&
          (this.status & REC_STATUS_VERIFY_ERROR) !== 0
        ) {
          this.#raise();
        }
        break;
      case 0x0a:
        this.addrControl = value | 0x3f;
        break;
      default:
        break;
    }
    return false;
  }

  /** A CPU write to $FF00: true when an armed transfer must start now. */
  ff00Written(): boolean {
    if (!this.armed) return false;
    this.armed = false;
    return true;
  }

  #raise(): void {
    this.status |= REC_STATUS_IRQ;
    this.bus.setIrq(true);
  }

  #next(addr: number, step: number): number {
    const low = (addr & 0x7ffff) + step;
    return (addr & 0xf80000) | (low === this.#wrap ? 0 : low);
  }

  #load(addr: number): number {
    const a = addr & this.#dramMask;
    if (a < this.#backed) this.#latch = this.ram[a]!;
    return this.#latch;
  }

  #store(addr: number, value: number): void {
    const a = addr & this.#dramMask;
    if (a < this.#backed) this.ram[a] = value;
  }

  /** Performs the transfer the command register describes, clock by clock on `bus`. */
  transfer(): void {
    const bus = this.bus;
    let host = this.c64Addr;
    let reu = this.reuAddr | (this.bank << 16);
    let len = this.length === 0 ? 0x10000 : this.length;
    const hostStep = (this.addrControl & FIX_C64) !== 0 ? 0 : 1;
    const reuStep = (this.addrControl & FIX_REU) !== 0 ? 0 : 1;
    let flags = REC_STATUS_END_OF_BLOCK;
    switch (this.command & 3) {
      case 0: // stash
        while (len > 0) {
          bus.dmaCycle(true);
          const v = bus.dmaRead(host);
          this.#store(reu, v);
          this.#latch = v;
          host = (host + hostStep) & 0xffff;
          reu = this.#next(reu, reuStep);
          len--;
        }
        len = 1;
        break;
      case 1: // fetch
        while (len > 0) {
          bus.dmaCycle(false);
          bus.dmaWrite(host, this.#load(reu));
          host = (host + hostStep) & 0xffff;
          reu = this.#next(reu, reuStep);
          len--;
        }
        this.#load(reu); // the latch holds the next byte, prefetched
        len = 1;
        break;
      case 2: // swap: a read and a write clock per byte
        while (len > 0) {
          const fromReu = this.#load(reu);
          bus.dmaCycle(true, len === 1);
          const fromC64 = bus.dmaRead(host);
          this.#store(reu, fromC64);
          bus.dmaCycle(false);
          bus.dmaWrite(host, fromReu);
          host = (host + hostStep) & 0xffff;
          reu = this.#next(reu, reuStep);
          len--;
        }
        len = 1;
        break;
      default: {
        // verify
        flags = 0;
        while (len > 0) {
          bus.dmaCycle(true);
          const a = this.#load(reu);
          const b = bus.dmaRead(host);
          reu = this.#next(reu, reuStep);
          host = (host + hostStep) & 0xffff;
          len--;
          if (a !== b) {
            flags |= REC_STATUS_VERIFY_ERROR;
            if (len >= 1) bus.dmaCycle(true);
            break;
          }
        }
        if (len === 0) {
          len = 1;
          flags |= REC_STATUS_END_OF_BLOCK;
        } else if (len === 1 && this.#load(reu) === bus.dmaRead(host)) {
          flags |= REC_STATUS_END_OF_BLOCK;
        }
      }
    }
    this.#finish(host, reu, len, flags);
  }

  #finish(host: number, reu: number, len: number, flags: number): void {
    reu &= this.#storeMask;
    this.status |= flags;
    if ((this.command & COMMAND_AUTOLOAD) === 0) {
      if ((this.addrControl & FIX_C64) === 0) this.c64Addr = host;
      if ((this.addrControl & FIX_REU) === 0) {
        this.reuAddr = reu & 0xffff;
        this.bank = (reu >> 16) & 0xff;
      }
      this.length = len & 0xffff;
    } else {
      this.c64Addr = this.#c64Shadow;
      this.reuAddr = this.#reuShadow;
      this.bank = this.#bankShadow;
      this.length = this.#lengthShadow;
    }
    const m = this.intMask;
    if ((flags & REC_STATUS_END_OF_BLOCK) !== 0 && (m & (IRQ_ENABLE | IRQ_ON_END)) === (IRQ_ENABLE | IRQ_ON_END)) this.#raise();
    if ((flags & REC_STATUS_VERIFY_ERROR) !== 0 && (m & (IRQ_ENABLE | IRQ_ON_VERIFY)) === (IRQ_ENABLE | IRQ_ON_VERIFY)) this.#raise();
    this.command = (this.command & ~COMMAND_EXECUTE) | COMMAND_NO_FF00;
  }
}

/**
 * What a 17xx's DRAM holds at power-on, as measured on real units (VICE's reu.c documents the
 * measurement): pairs of bytes alternating $FF/$00 from offset 1, the pattern inverted every
 * other 256 bytes, and in each group of four 64 KiB banks a few blocks inverted again.
 */
export function dramPowerOnPattern(size: number): Uint8Array {
  const ram = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    ram[i] = 0xff ^ (((i + 1) >> 1) & 1 ? 0xff : 0) ^ ((i >> 8) & 1 ? 0xff : 0);
  }
  const invert = (from: number, length: number) => {
    for (let a = from; a < from + length && a < size; a++) ram[a]! ^= 0xff;
  };
  for (let bank = 0; bank < size >> 16; bank += 4) {
    for (let i = 0; i < 2; i++) {
      const base = (bank + i) << 16;
      invert(base + 0x2a00, 0x2a00);
      invert(base + 0x8000, 0x2c00);
      invert(base + 0xd600, 0x2a00);
      invert(base + 0x20000, 0x2a00);
      invert(base + 0x25400, 0x2c00);
      invert(base + 0x2ac00, 0x2a00);
    }
  }
  return ram;
}
