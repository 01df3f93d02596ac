// The M extension's multiply-high and divide results, exactly as the RISC-V unprivileged ISA
// (chapter "M") defines them, including division by zero and the one signed overflow case. Inputs
// and outputs are int32 values as the register file holds them.

/** High 32 bits of the unsigned 64-bit product, from 16-bit limbs so no double loses precision. */
export function mulhu(a: number, b: number): number {
  const al = a & 0xffff;
  const ah = a >>> 16;
  const bl = b & 0xffff;
  const bh = b >>> 16;
  const ll = al * bl;
  const lh = al * bh;
  const hl = ah * bl;
  const mid = (ll >>> 16) + (lh & 0xffff) + (hl & 0xffff);
  return (ah * bh + (lh >>> 16) + (hl >>> 16) + (mid >>> 16)) | 0;
}

/** Signed × signed high word: the unsigned product corrected for each negative operand. */
export function mulh(a: number, b: number): number {
  return (mulhu(a, b) - (a < 0 ? b : 0) - (b < 0 ? a : 0)) | 0;
}

/** Signed a × unsigned b, high word. */
export function mulhsu(a: number, b: number): number {
  return (mulhu(a, b) - (a < 0 ? b : 0)) | 0;
}

export function div(a: number, b: number): number {
  if (b === 0) return -1;
  if (a === -0x80000000 && b === -1) return a; // overflow: the dividend
  return (a / b) | 0; // truncates toward zero
}

export function divu(a: number, b: number): number {
  if (b === 0) return -1; // all ones
  return ((a >>> 0) / (b >>> 0)) | 0;
}

export function rem(a: number, b: number): number {
  if (b === 0) return a;
  if (a === -0x80000000 && b === -1) return 0;
  return (a % b) | 0; // the sign follows the dividend, as RISC-V requires
}

export function remu(a: number, b: number): number {
  if (b === 0) return a;
  return ((a >>> 0) % (b >>> 0)) | 0;
}
