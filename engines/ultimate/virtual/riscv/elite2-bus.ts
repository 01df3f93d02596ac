// The I/O a native program sees on the virtual Elite II, a deliberately small part of the real map
// (engines/ultimate/riscv-apps/elite2-memory-map.ts):
//  - the ITU block at IOBASE (256 bytes): UART_DATA (+0x10) write = one byte out; UART_FLAGS (+0x12)
//    read = TX ready (0x40), never full, no RX data; UART_GET (+0x11) reads 0; other ITU registers
//    read 0 and ignore writes (so ITU_IRQ_GLOBAL = 0 and the like are harmless);
//  - the C64's 64 KiB at C64_MEMORY_BASE (IOBASE + 0x50000), DMA-style: the same access REST
//    readmem/writemem makes, I/O side effects included. Wider accesses are little-endian bytes.
// Everything else is unmapped: an access raises an access fault.
import {
  C64_MEMORY_BASE,
  C64_MEMORY_BYTES,
  ITU_BASE,
  ITU_BYTES,
  UART_DATA,
  UART_FLAGS,
  UART_TX_READY,
} from '../../riscv-apps/elite2-memory-map.js';
import type { MachineSeam } from '../c64/machine-seam.js';
import type { AccessWidth, Rv32Bus } from './rv32-bus.js';

/** The C64 side of the window: byte reads and writes with DMA semantics. */
export type C64Memory = Pick<MachineSeam, 'readMem' | 'writeMem'>;

export class Elite2Bus implements Rv32Bus {
  readonly #c64: () => C64Memory;
  readonly #uart: (byte: number) => void;

  /** `c64` is looked up on every access, so a device that rebuilds its machine stays wired. */
  constructor(opts: { c64: () => C64Memory; uartOut: (byte: number) => void }) {
    this.#c64 = opts.c64;
    this.#uart = opts.uartOut;
  }

  read(address: number, width: AccessWidth): number | undefined {
    const c = address - C64_MEMORY_BASE;
    if (c >= 0 && c + width <= C64_MEMORY_BYTES) {
      const bytes = this.#c64().readMem(c, width);
      let v = 0;
      for (let i = width - 1; i >= 0; i--) v = (v << 8) | bytes[i]!;
      return v >>> 0;
    }
    const r = address - ITU_BASE;
    if (r >= 0 && r + width <= ITU_BYTES) return address === UART_FLAGS && width === 1 ? UART_TX_READY : 0;
    return undefined;
  }

  write(address: number, width: AccessWidth, value: number): boolean {
    const c = address - C64_MEMORY_BASE;
    if (c >= 0 && c + width <= C64_MEMORY_BYTES) {
      const bytes = new Uint8Array(width);
      for (let i = 0; i < width; i++) bytes[i] = (value >>> (8 * i)) & 0xff;
      this.#c64().writeMem(c, bytes);
      return true;
    }
    const r = address - ITU_BASE;
    if (r >= 0 && r + width <= ITU_BYTES) {
      if (address === UART_DATA) this.#uart(value & 0xff);
      return true;
    }
    return false;
  }
}
