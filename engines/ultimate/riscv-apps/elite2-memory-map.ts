// Where things are for native code on the Ultimate 64 Elite II, from the firmware sources
// (GideonZ/1541ultimate): applications are linked at ORIGIN 0x03000000, LENGTH 0x01000000
// (target/u64ii/riscv/update/linker.x); I/O is at IOBASE 0x10000000 (-DIOBASE); the ITU block with
// its UART is at IOBASE + 0 (software/system/iomap.h, itu.h); the C64's memory is visible at
// C64_MEMORY_BASE = IOBASE + 0x50000. One home for these numbers.
export const APP_REGION_BASE = 0x03000000;
export const APP_REGION_BYTES = 0x01000000;
export const APP_REGION_END = APP_REGION_BASE + APP_REGION_BYTES;

export const IOBASE = 0x10000000;
/** ITU block (interrupt/timer/UART unit): 256 bytes of registers at IOBASE. */
export const ITU_BASE = IOBASE;
export const ITU_BYTES = 0x100;
export const UART_DATA = ITU_BASE + 0x10;
export const UART_GET = ITU_BASE + 0x11;
export const UART_FLAGS = ITU_BASE + 0x12;
export const UART_ICTRL = ITU_BASE + 0x13;
/** UART_FLAGS bits (itu.h). */
export const UART_OVERFLOW = 0x01;
export const UART_TX_FULL = 0x10;
export const UART_RX_FULL = 0x20;
export const UART_TX_READY = 0x40;
export const UART_RX_AVAILABLE = 0x80;
/** The C64's 64 KiB address space as the firmware sees it. */
export const C64_MEMORY_BASE = IOBASE + 0x50000;
export const C64_MEMORY_BYTES = 0x10000;

/** The exit convention of our native programs on the virtual device: ECALL with a7 = 93, code in a0. */
export const NATIVE_EXIT_ECALL = 93;
