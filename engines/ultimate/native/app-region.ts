// Where native code lives on the Ultimate 64 Elite II: the firmware links its applications at
// ORIGIN 0x03000000, LENGTH 0x01000000 (target/u64ii/riscv/update/linker.x), and its I/O is at
// IOBASE 0x10000000 (software/system/iomap.h). One home for these numbers.
export const APP_REGION_BASE = 0x03000000;
export const APP_REGION_BYTES = 0x01000000;
export const APP_REGION_END = APP_REGION_BASE + APP_REGION_BYTES;
