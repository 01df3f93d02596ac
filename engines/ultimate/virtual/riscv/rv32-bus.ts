// What the RV32 interpreter sees outside its RAM: a memory-mapped I/O bus. The interpreter handles
// RAM itself (the fast path); any access outside it goes here, with its width. Answering undefined
// (read) or false (write) makes the access an access-fault exception, as an unmapped address is.
export type AccessWidth = 1 | 2 | 4;

export interface Rv32Bus {
  /** The value read (zero-extended to `width` bytes), or undefined when nothing answers there. */
  read(address: number, width: AccessWidth): number | undefined;
  /** False when nothing answers at `address`. `value` holds the low `width` bytes to write. */
  write(address: number, width: AccessWidth, value: number): boolean;
}

/** A bus with nothing on it: every access outside RAM faults. */
export const EMPTY_BUS: Rv32Bus = {
  read: () => undefined,
  write: () => false,
};
